package io.tideline.node.kafka;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each answered request's time went, in Kafka's phases and under Kafka's names
 * ({@code kafka.network:type=RequestMetrics,name=<Phase>,request=<ApiName>}, histograms of whole milliseconds as
 * Kafka keeps them), and one DEBUG line per request on the logger {@code kafka.request.logger}, the logger a
 * Kafka operator turns up to see each request's timings. Phases (docs/kafka-protocol.md, "Request timings"):
 * <ul>
 *   <li>RequestQueueTimeMs: from the whole frame read to a request handler thread taking it up;
 *   <li>LocalTimeMs: its API's {@code handle} on that thread (for Produce, the leader's append);
 *   <li>RemoteTimeMs: from {@code handle} returning to its answer being known (acks=all waiting for the followers,
 *       a fetch waiting for {@code min_bytes});
 *   <li>ResponseQueueTimeMs: from the answer known to its write starting (the hop to the event loop, and the wait
 *       behind earlier requests' answers on a pipelined connection);
 *   <li>ResponseSendTimeMs: from the write starting to the answer handed to the socket;
 *   <li>TotalTimeMs: all of them.
 * </ul>
 * Requests closed unanswered are not counted. Thread-safe.
 */
final class KafkaRequestTimes {
    static final String PREFIX = "kafka.network:type=RequestMetrics,name=";
    static final String[] PHASES = {"RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs",
        "ResponseSendTimeMs", "TotalTimeMs"};
    /** Kafka's request logger name: operators know to set it to DEBUG. */
    static final Logger requestLog = LoggerFactory.getLogger("kafka.request.logger");

    private final MetricRegistry registry;
    private final Map<ApiKeys, Histogram[]> histograms = new ConcurrentHashMap<>();

    KafkaRequestTimes(MetricRegistry registry) {
        this.registry = registry;
    }

    /** The nanosecond instants of one request's phases, in order (each at or after the one before). */
    record Instants(long read, long handling, long handled, long known, long writing, long written) {
    }

    void record(ApiKeys key, short version, int correlationId, String peer, Instants t) {
        long[] phases = {t.handling() - t.read(), t.handled() - t.handling(), t.known() - t.handled(),
            t.writing() - t.known(), t.written() - t.writing(), t.written() - t.read()};
        Histogram[] h = histograms.computeIfAbsent(key, this::register);
        for (int i = 0; i < phases.length; i++) {
            h[i].update(Math.round(phases[i] / 1e6));
        }
        if (requestLog.isDebugEnabled()) {
            requestLog.debug("Answered {} v{} correlation id {} from {}: total {} ms (request queue {}, local {}, "
                            + "remote {}, response queue {}, send {})", key.name, version, correlationId, peer,
                    ms(phases[5]), ms(phases[0]), ms(phases[1]), ms(phases[2]), ms(phases[3]), ms(phases[4]));
        }
    }

    private Histogram[] register(ApiKeys key) {
        Histogram[] h = new Histogram[PHASES.length];
        for (int i = 0; i < PHASES.length; i++) {
            h[i] = registry.histogram(PREFIX + PHASES[i] + ",request=" + key.name);
        }
        return h;
    }

    private static String ms(long nanos) {
        return String.format("%.3f", nanos / (double) TimeUnit.MILLISECONDS.toNanos(1));
    }
}
