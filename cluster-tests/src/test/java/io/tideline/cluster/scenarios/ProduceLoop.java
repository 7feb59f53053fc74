package io.tideline.cluster.scenarios;

import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.TidelineProducer;
import io.tideline.cluster.history.History;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread producing unique values to one partition with acks=all, one record at a time, each attempt and
 * its outcome recorded in a {@link History}. A broker's definite refusal (NOT_ENOUGH_REPLICAS) is FAILED;
 * anything else that is not an acknowledgement (timeouts, lost connections, NOT_ENOUGH_REPLICAS_AFTER_APPEND)
 * is UNKNOWN, since the record may have been appended.
 */
final class ProduceLoop implements AutoCloseable {
    /** Pads each value so that a small segment.bytes rolls after a few records. */
    private static final String PADDING = "x".repeat(100);

    private final TidelineProducer producer;
    private final TopicPartition tp;
    private final History history;
    private final Thread thread;
    private final AtomicLong acknowledged = new AtomicLong();
    private volatile boolean stopped;

    private final String prefix;
    private final long paceNanos;

    /** Values are {@code prefix + n + padding}: a prefix per loop keeps them unique across loops. */
    ProduceLoop(String bootstrap, TopicPartition tp, History history, String prefix) {
        this(bootstrap, tp, history, prefix, Duration.ZERO);
    }

    /**
     * As above, pausing {@code pace} after each attempt: it caps the produce rate, for a scenario whose follower
     * must outrun the load (a throttled catch-up only ends if the throttle exceeds the produce rate), and so that
     * a nemesis round on an idle machine does not write ten times what it writes on a loaded one (and take as
     * much longer to read back).
     */
    ProduceLoop(String bootstrap, TopicPartition tp, History history, String prefix, Duration pace) {
        this.prefix = prefix;
        this.paceNanos = pace.toNanos();
        this.producer = new TidelineProducer(Map.of("bootstrap.servers", bootstrap, "acks", "all", "linger.ms", 0,
                "delivery.timeout.ms", 10_000, "request.timeout.ms", 5_000));
        this.tp = tp;
        this.history = history;
        this.thread = new Thread(this::run, "produce-loop-" + prefix);
        thread.setDaemon(true);
        thread.start();
    }

    long acknowledged() {
        return acknowledged.get();
    }

    private void run() {
        for (long n = 0; !stopped; n++) {
            String value = prefix + n + "-" + PADDING;
            History.ProduceAttempt attempt = history.produceInvoked(tp, value);
            try {
                RecordMetadata written = producer.send(new ProducerRecord(tp.topic(), tp.partition(), null,
                        value.getBytes(StandardCharsets.UTF_8))).get(15, TimeUnit.SECONDS);
                attempt.ok(written.offset());
                acknowledged.incrementAndGet();
            } catch (ExecutionException e) {
                Errors error = TidelineException.errorOf(e.getCause());
                if (error == Errors.NOT_ENOUGH_REPLICAS) {
                    attempt.failed(error.name());
                } else {
                    attempt.unknown();
                }
            } catch (TimeoutException e) {
                attempt.unknown();
            } catch (InterruptedException e) {
                attempt.unknown();
                return;
            }
            if (paceNanos > 0) {
                LockSupport.parkNanos(paceNanos);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join(20_000);
        producer.close();
    }
}
