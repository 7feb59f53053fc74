package io.tideline.cluster.history;

import io.tideline.cluster.history.HistoryEvent.Consumed;
import io.tideline.cluster.history.HistoryEvent.FinalRead;
import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.cluster.history.HistoryEvent.Outcome;
import io.tideline.cluster.history.HistoryEvent.ProduceCompleted;
import io.tideline.common.TopicPartition;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * No value at two offsets, over the final read and every consumer read. The producer is not idempotent yet, so a
 * retried batch may land twice even when the attempt ended OK: duplicates are counted and described, and become
 * violations only when the checker is strict (as it should be once the idempotent producer exists).
 */
final class DuplicateValuesCheck implements Check {

    private final boolean strict;

    DuplicateValuesCheck(boolean strict) {
        this.strict = strict;
    }

    @Override
    public void run(HistoryIndex history, CheckResult.Builder result) {
        // Sorted so that the report lists duplicates in a stable order.
        Map<TopicPartition, Map<String, TreeSet<Long>>> offsetsByValue = new TreeMap<>();
        for (HistoryEvent event : history.events()) {
            if (event instanceof FinalRead read) {
                for (LogEntry entry : read.entries()) {
                    note(offsetsByValue, read.partition(), entry.value(), entry.offset());
                }
            } else if (event instanceof Consumed consumed) {
                note(offsetsByValue, consumed.partition(), consumed.value(), consumed.offset());
            }
        }
        offsetsByValue.forEach((partition, values) -> values.forEach((value, offsets) -> {
            if (offsets.size() > 1) {
                report(history, result, partition, value, offsets);
            }
        }));
    }

    private void report(HistoryIndex history, CheckResult.Builder result, TopicPartition partition, String value,
                        TreeSet<Long> offsets) {
        ProduceCompleted completion = history.completion(value);
        boolean acknowledged = completion != null && completion.outcome() == Outcome.OK;
        result.duplicates++;
        if (acknowledged) {
            result.duplicatesOfAcknowledged++;
        }
        String description = "value " + value + " of " + partition + " is at offsets " + offsets + " (its attempt "
            + (completion == null ? "never completed" : "ended " + completion.outcome()) + ")";
        if (strict) {
            result.violation(Violation.Kind.DUPLICATE_VALUE, description, history.sliceForValue(partition, value));
        } else {
            result.duplicateDescriptions.add(description);
        }
    }

    private static void note(Map<TopicPartition, Map<String, TreeSet<Long>>> offsetsByValue,
                             TopicPartition partition, String value, long offset) {
        offsetsByValue.computeIfAbsent(partition, p -> new HashMap<>())
            .computeIfAbsent(value, v -> new TreeSet<>()).add(offset);
    }
}
