package io.tideline.cluster.history;

import io.tideline.cluster.history.HistoryEvent.Consumed;
import io.tideline.cluster.history.HistoryEvent.FinalRead;
import io.tideline.cluster.history.HistoryEvent.OffsetReset;
import io.tideline.cluster.history.HistoryEvent.ProduceCompleted;
import io.tideline.cluster.history.HistoryEvent.ProduceInvoked;
import io.tideline.cluster.history.HistoryEvent.ReplicaLog;
import io.tideline.cluster.history.HistoryEvent.ReplicaSample;
import io.tideline.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** The views of one history that several checks share, and the slicing of it. Immutable once built. */
final class HistoryIndex {

    private final List<HistoryEvent> events;
    private final Map<TopicPartition, FinalRead> finalReads = new LinkedHashMap<>();
    private final Map<TopicPartition, Map<Long, String>> finalValues = new HashMap<>();
    private final Map<TopicPartition, Long> truncatedBelow = new HashMap<>();
    private final Map<String, ProduceInvoked> invokedByValue = new HashMap<>();
    private final Map<String, ProduceCompleted> completedByValue = new HashMap<>();

    HistoryIndex(List<HistoryEvent> events) {
        this.events = List.copyOf(events);
        for (HistoryEvent event : this.events) {
            if (event instanceof FinalRead read) {
                finalReads.put(read.partition(), read);
                finalValues.put(read.partition(), valuesByOffset(read.entries()));
                raiseTruncation(read.partition(), read.logStartOffset());
            } else if (event instanceof ReplicaLog log) {
                raiseTruncation(log.partition(), log.logStartOffset());
            } else if (event instanceof ReplicaSample sample) {
                raiseTruncation(sample.partition(), sample.logStartOffset());
            } else if (event instanceof OffsetReset reset) {
                raiseTruncation(reset.partition(), reset.logStartOffset());
            } else if (event instanceof ProduceInvoked invoked) {
                invokedByValue.put(invoked.value(), invoked);
            } else if (event instanceof ProduceCompleted completed) {
                completedByValue.put(completed.value(), completed);
            }
        }
    }

    List<HistoryEvent> events() {
        return events;
    }

    /** The final read of a partition, or null if the harness recorded none. */
    FinalRead finalRead(TopicPartition partition) {
        return finalReads.get(partition);
    }

    /** The value the final read found at {@code offset}, or null if it holds none there (or there was no read). */
    String finalValueAt(TopicPartition partition, long offset) {
        Map<Long, String> values = finalValues.get(partition);
        return values == null ? null : values.get(offset);
    }

    static Map<Long, String> valuesByOffset(List<HistoryEvent.LogEntry> entries) {
        Map<Long, String> values = new HashMap<>();
        for (HistoryEvent.LogEntry entry : entries) {
            values.put(entry.offset(), entry.value());
        }
        return values;
    }

    Map<TopicPartition, FinalRead> finalReads() {
        return finalReads;
    }

    /**
     * The highest log start offset any observation reported for the partition: DeleteRecords or retention removed
     * everything below it, so a record missing there is deleted, not lost.
     */
    long truncatedBelow(TopicPartition partition) {
        return truncatedBelow.getOrDefault(partition, 0L);
    }

    Map<String, ProduceInvoked> invokedByValue() {
        return invokedByValue;
    }

    /** The completion of the attempt that wrote {@code value}, or null if it never completed. */
    ProduceCompleted completion(String value) {
        return completedByValue.get(value);
    }

    List<HistoryEvent> slice(Predicate<HistoryEvent> touches) {
        List<HistoryEvent> slice = new ArrayList<>();
        for (HistoryEvent event : events) {
            if (touches.test(event)) {
                slice.add(event);
            }
        }
        return slice;
    }

    /** The events that produced or read {@code value}, and the final read holding it. */
    List<HistoryEvent> sliceForValue(TopicPartition partition, String value) {
        return slice(event -> event instanceof ProduceInvoked e && e.value().equals(value)
            || event instanceof ProduceCompleted e2 && e2.value().equals(value)
            || event instanceof Consumed e3 && e3.value().equals(value)
            || event instanceof FinalRead e4 && e4.partition().equals(partition)
            || event instanceof OffsetReset e5 && e5.partition().equals(partition));
    }

    /** The events that wrote, acknowledged or read {@code offset} of the partition. */
    List<HistoryEvent> sliceForOffset(TopicPartition partition, long offset) {
        return slice(event -> event instanceof ProduceCompleted e
                && e.partition().equals(partition) && e.offset() == offset
            || event instanceof Consumed e2 && e2.partition().equals(partition) && e2.offset() == offset
            || event instanceof FinalRead e3 && e3.partition().equals(partition));
    }

    private void raiseTruncation(TopicPartition partition, long logStartOffset) {
        truncatedBelow.merge(partition, logStartOffset, Math::max);
    }
}
