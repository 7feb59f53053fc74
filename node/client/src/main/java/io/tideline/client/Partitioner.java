package io.tideline.client;

import io.tideline.client.internals.Murmur2;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Chooses a partition: the record's own, else murmur2 of its key (Kafka's placement), else a sticky
 * partition per topic. Keyless records stay on one partition until its batch is closed and then move
 * on, so they fill whole batches instead of spreading one-record batches over every partition (the
 * reason Kafka 2.4 made its default partitioner sticky). Thread-safe.
 */
final class Partitioner {
    private final Map<String, Integer> sticky = new ConcurrentHashMap<>();
    private final AtomicInteger counter = new AtomicInteger();

    int partition(ProducerRecord record, int numPartitions) {
        if (record.partition() != null) {
            return record.partition();
        }
        if (record.key() != null) {
            return Murmur2.partition(record.key(), numPartitions);
        }
        return sticky.compute(record.topic(), (t, current) -> current == null || current >= numPartitions
                ? Math.floorMod(counter.getAndIncrement(), numPartitions) : current);
    }

    /** The sticky partition of {@code topic} needs a new batch: move to the next partition instead. */
    int onNewBatch(String topic, int previous, int numPartitions) {
        return sticky.compute(topic, (t, current) -> current == null || current == previous
                ? Math.floorMod(previous + 1, numPartitions) : current);
    }
}
