package io.tideline.tools.cli;

import io.tideline.client.ConsumerRecord;
import io.tideline.client.DeleteRecordsResult;
import io.tideline.client.ProducerRecord;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.client.TidelineProducer;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The soak's traffic, on threads of its own until {@link #stop}: one producer at a paced rate over the busy
 * partitions (acks=all), one consumer reading them from the beginning (auto.offset.reset=earliest, so
 * retention and DeleteRecords passing it only skip it ahead), and a DeleteRecords up to the high watermark
 * of one busy partition every minute. Idle partitions get nothing. Counters are read by the reporter.
 */
final class SoakLoad {
    static final long DELETE_RECORDS_INTERVAL_MS = 60_000;

    private final String bootstrap;
    private final List<TopicPartition> busy;
    private final TopicPartition deleteRecordsTarget;
    private final double recordsPerSecond;
    private final int recordSize;
    private final Time time;
    private volatile boolean running = true;
    private final List<Thread> threads;

    final AtomicLong acked = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong consumed = new AtomicLong();
    final AtomicLong deleteRecordsCalls = new AtomicLong();
    final AtomicLong lowWatermark = new AtomicLong(-1);
    final AtomicReference<String> firstError = new AtomicReference<>();

    SoakLoad(String bootstrap, List<TopicPartition> busy, TopicPartition deleteRecordsTarget, double recordsPerSecond,
             int recordSize, Time time) {
        this.bootstrap = bootstrap;
        this.busy = List.copyOf(busy);
        this.deleteRecordsTarget = deleteRecordsTarget;
        this.recordsPerSecond = recordsPerSecond;
        this.recordSize = recordSize;
        this.time = time;
        this.threads = List.of(new Thread(this::produce, "soak-producer"), new Thread(this::consume, "soak-consumer"),
                new Thread(this::deleteRecords, "soak-delete-records"));
    }

    void start() {
        threads.forEach(Thread::start);
    }

    /**
     * Stops the traffic and waits for its threads. Only the DeleteRecords thread is interrupted (it
     * sleeps between calls): the producer closes normally and waits for its records' answers.
     */
    void stop() throws InterruptedException {
        running = false;
        threads.get(2).interrupt();
        for (Thread t : threads) {
            t.join(120_000);
        }
    }

    private void produce() {
        byte[] value = new byte[recordSize];
        new Random(42).nextBytes(value);
        Throttle throttle = new Throttle(recordsPerSecond, time);
        try (TidelineProducer producer = new TidelineProducer(Map.of("bootstrap.servers", bootstrap, "acks", "all",
                "client.id", "soak"))) {
            long sent = 0;
            while (running) {
                TopicPartition tp = busy.get((int) (sent % busy.size()));
                producer.send(new ProducerRecord(tp.topic(), tp.partition(), null, value)).whenComplete((m, e) -> {
                    if (e == null) {
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                        firstError.compareAndSet(null, "produce: " + e.getMessage());
                    }
                });
                sent++;
                throttle.pace(sent);
            }
        } catch (RuntimeException e) {
            firstError.compareAndSet(null, "producer: " + e);
        }
    }

    private void consume() {
        try (TidelineConsumer consumer = new TidelineConsumer(Map.of("bootstrap.servers", bootstrap,
                "auto.offset.reset", "earliest", "client.id", "soak"))) {
            consumer.assign(busy);
            consumer.seekToBeginning(busy);
            while (running) {
                List<ConsumerRecord> records = consumer.poll(Duration.ofMillis(500));
                consumed.addAndGet(records.size());
            }
        } catch (RuntimeException e) {
            if (running) {
                firstError.compareAndSet(null, "consumer: " + e);
            }
        }
    }

    private void deleteRecords() {
        try (TidelineAdmin admin = new TidelineAdmin(Map.of("bootstrap.servers", bootstrap))) {
            while (running) {
                try {
                    Thread.sleep(DELETE_RECORDS_INTERVAL_MS);
                } catch (InterruptedException e) {
                    return;
                }
                // -1: up to the high watermark, the whole committed log (the beforeOffset table in docs/storage.md).
                DeleteRecordsResult result = admin.deleteRecords(Map.of(deleteRecordsTarget, -1L)).get(deleteRecordsTarget);
                deleteRecordsCalls.incrementAndGet();
                if (result.error() == io.tideline.common.errors.Errors.NONE) {
                    lowWatermark.set(result.lowWatermark());
                } else {
                    firstError.compareAndSet(null, "delete-records: " + result.error() + " " + result.message());
                }
            }
        } catch (RuntimeException e) {
            if (running) {
                firstError.compareAndSet(null, "delete-records: " + e);
            }
        }
    }
}
