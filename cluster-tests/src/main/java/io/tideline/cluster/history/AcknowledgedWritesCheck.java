package io.tideline.cluster.history;

import io.tideline.cluster.history.HistoryEvent.FinalRead;
import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.cluster.history.HistoryEvent.ProduceCompleted;
import io.tideline.cluster.history.HistoryEvent.ProduceInvoked;
import java.util.List;

/**
 * No acknowledged record is lost: with acks=all and min.insync.replicas=2 an OK outcome promises the value is in
 * the log at the acknowledged offset, so the final read must hold it there. Below the highest log start offset
 * anyone was told, DeleteRecords or retention removed records on purpose; those count as deleted by retention.
 * Also counts the outcomes of all attempts.
 */
final class AcknowledgedWritesCheck implements Check {

    @Override
    public void run(HistoryIndex history, CheckResult.Builder result) {
        for (ProduceInvoked invoked : history.invokedByValue().values()) {
            ProduceCompleted completed = history.completion(invoked.value());
            if (completed == null) {
                result.unknownOutcomes++;
                continue;
            }
            switch (completed.outcome()) {
                case FAILED -> result.failed++;
                case UNKNOWN -> result.unknownOutcomes++;
                case OK -> {
                    result.acknowledged++;
                    checkAcknowledged(history, completed, result);
                }
            }
        }
    }

    private static void checkAcknowledged(HistoryIndex history, ProduceCompleted ack, CheckResult.Builder result) {
        if (ack.offset() < history.truncatedBelow(ack.partition())) {
            result.deletedByRetention++;
            return;
        }
        String found = history.finalValueAt(ack.partition(), ack.offset());
        if (ack.value().equals(found)) {
            return;
        }
        result.lost++;
        result.violation(Violation.Kind.LOST_WRITE,
            "acknowledged value " + ack.value() + " at " + ack.partition() + " offset " + ack.offset()
                + " is not in the final read: " + whatIsThere(history.finalRead(ack.partition()), ack, found),
            history.sliceForValue(ack.partition(), ack.value()));
    }

    private static String whatIsThere(FinalRead read, ProduceCompleted ack, String found) {
        if (read == null) {
            return "the partition has no final read";
        }
        if (found != null) {
            return "that offset holds " + found;
        }
        List<Long> elsewhere = read.entries().stream()
            .filter(entry -> entry.value().equals(ack.value())).map(LogEntry::offset).toList();
        String range = " (final read covers log start offset " + read.logStartOffset() + " to hw "
            + read.highWatermark() + ")";
        return elsewhere.isEmpty() ? "no record at that offset" + range
            : "the value is at offset(s) " + elsewhere + " instead" + range;
    }
}
