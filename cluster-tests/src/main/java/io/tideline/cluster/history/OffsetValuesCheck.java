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
 * A consumed record at an offset the final read has nothing at (at or above its high watermark, or a hole in it)
 * was truncated away too, unless it is below a log start offset that retention moved.
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
                checkInFinalLog(history, consumed, result);
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

    private static void checkInFinalLog(HistoryIndex history, Consumed consumed, CheckResult.Builder result) {
        FinalRead read = history.finalRead(consumed.partition());
        if (read == null || consumed.offset() < history.truncatedBelow(consumed.partition())
            || history.finalValueAt(consumed.partition(), consumed.offset()) != null) {
            return;
        }
        result.violation(Violation.Kind.READ_NOT_IN_FINAL_LOG,
            consumed.consumerId() + " read " + consumed.value() + " at " + consumed.partition() + " offset "
                + consumed.offset() + " but the final read has no record there (log start offset "
                + read.logStartOffset() + ", hw " + read.highWatermark() + ")",
            history.sliceForOffset(consumed.partition(), consumed.offset()));
    }

    private static void note(Map<TopicPartition, Map<Long, Set<String>>> valuesByOffset, TopicPartition partition,
                             long offset, String value) {
        // Insertion order keeps the first observed value first in the description.
        valuesByOffset.computeIfAbsent(partition, p -> new TreeMap<>())
            .computeIfAbsent(offset, o -> new LinkedHashSet<>()).add(value);
    }
}
