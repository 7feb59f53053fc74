package io.tideline.node.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One API of Kafka's protocol served on the Kafka listener (docs/kafka-protocol.md). The listener has parsed
 * the header and the body with kafka-clients' generated classes before calling {@link #handle}, and it
 * writes the answer at the request's version; an API only maps request data to response data.
 *
 * <p>Errors of a partition, topic or group travel inside the response data with Kafka's codes, as in Kafka.
 * A future completed exceptionally is answered with the API's error response for that exception
 * (UNKNOWN_SERVER_ERROR for anything not a {@code org.apache.kafka.common.errors.ApiException}).
 */
public interface KafkaApi {

    ApiKeys key();

    /** The lowest version served; ApiVersions advertises exactly [minVersion, maxVersion]. */
    short minVersion();

    /** The highest version served: at most what kafka-clients' message classes know for this key. */
    short maxVersion();

    /**
     * Answers one request. Called on a listener thread: anything that waits (the quorum, a long-poll, a
     * replication acknowledgement) completes the future later instead of blocking. Requests of one
     * connection are answered in the order they came, whatever order their futures complete in. A future
     * completed with {@code null} sends no response at all (Produce with acks=0, as in Kafka).
     */
    CompletableFuture<? extends ApiMessage> handle(KafkaRequest request);
}
