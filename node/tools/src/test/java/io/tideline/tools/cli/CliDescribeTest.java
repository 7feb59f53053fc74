package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.Status;
import io.tideline.client.TransportException;
import org.junit.jupiter.api.Test;

/** The one line the CLI prints for a failure (docs/behaviours.md B230 for the wrong-port case). */
class CliDescribeTest {

    @Test
    void aKafkaListenerReachedByMistakeIsOneLineNamingTheGrpcAddress() {
        TransportException e = new TransportException("ListTopics to 127.0.0.1:9092", Status.INTERNAL.withDescription(
                "GOAWAY shut down transport. HTTP/2 error code: PROTOCOL_ERROR, debug data: this is Tideline's Kafka "
                        + "listener (Apache Kafka's protocol); the gRPC API (tideline CLI, Tideline clients) is on "
                        + "127.0.0.1:9392").asRuntimeException());
        assertEquals("wrong port: ListTopics to 127.0.0.1:9092: this is Tideline's Kafka listener (Apache Kafka's "
                + "protocol); the gRPC API (tideline CLI, Tideline clients) is on 127.0.0.1:9392", Cli.describe(e));
        assertEquals("wrong port: ListTopics to 127.0.0.1:9092: this is Tideline's Kafka listener (Apache Kafka's "
                + "protocol); the gRPC API (tideline CLI, Tideline clients) is on 127.0.0.1:9392",
                Cli.describe(new IllegalStateException("wrapped", e)), "found in the cause chain");
    }

    @Test
    void otherTransportFailuresKeepTheirLine() {
        TransportException e = new TransportException("ListTopics to 127.0.0.1:1", Status.UNAVAILABLE
                .withDescription("io exception").asRuntimeException());
        assertEquals("no broker answered (BROKER_NOT_AVAILABLE): ListTopics to 127.0.0.1:1: UNAVAILABLE (io exception)",
                Cli.describe(e));
    }
}
