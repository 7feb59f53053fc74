package io.tideline.node.server;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.time.Time;
import io.tideline.node.metrics.BusyTimeExecutor;
import io.tideline.node.metrics.IdleRatioGauge;

/**
 * The request handler pool ({@code num.io.threads}) under Kafka's name,
 * {@code kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent}: the fraction of the
 * handlers' time not spent running a request (Kafka's or gRPC's: they share the pool), 0 to 1, over the last
 * 10-20 s. Kafka's is a meter read through its rate; ours is a gauge of the same fraction (docs/metrics.md).
 */
final class HandlerPoolMetrics {
    static final String REQUEST_HANDLER_AVG_IDLE_PERCENT =
            "kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent";

    private HandlerPoolMetrics() {
    }

    static void register(MetricRegistry registry, BusyTimeExecutor handlers, int threads, Time time) {
        registry.register(REQUEST_HANDLER_AVG_IDLE_PERCENT, new IdleRatioGauge(handlers::busyNanos, () -> threads,
                time, IdleRatioGauge.WINDOW_NANOS));
    }
}
