package io.tideline.cluster.history;

import io.tideline.cluster.history.HistoryEvent.Consumed;
import io.tideline.cluster.history.HistoryEvent.FinalRead;
import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.common.TopicPartition;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * No offset holds two values, over the final read and every consumer read: a consumer that read something the
 * final log does not hold at that offset saw a record that was later truncated away, or the log was rewritten.
 */
final class OffsetValuesCheck implements Check {

    @Override
    public void run(HistoryIndex history, CheckResult.Builder result) {
        Map<TopicPartition, Map<Long, Set<String>>> valuesByOffset = new TreeMap<>();
        for (HistoryEvent event : history.events()) {
            if (event instanceof FinalRead read) {
                for (LogEntry entry : read.entries()) {
                    note(valuesByOffset, read.partition(), entry.offset(), entry.value());
                }
            } else if (event instanceof Consumed consumed) {
                note(valuesByOffset, consumed.partition(), consumed.offset(), consumed.value());
            }
        }
        valuesByOffset.forEach((partition, offsets) -> offsets.forEach((offset, values) -> {
            if (values.size() > 1) {
                result.violation(Violation.Kind.OFFSET_WITH_TWO_VALUES,
                    partition + " offset " + offset + " holds " + values.size() + " values " + values,
                    history.sliceForOffset(partition, offset));
            }
        }));
    }

    private static void note(Map<TopicPartition, Map<Long, Set<String>>> valuesByOffset, TopicPartition partition,
                             long offset, String value) {
        // Insertion order keeps the first observed value first in the description.
        valuesByOffset.computeIfAbsent(partition, p -> new TreeMap<>())
            .computeIfAbsent(offset, o -> new LinkedHashSet<>()).add(value);
    }
}
