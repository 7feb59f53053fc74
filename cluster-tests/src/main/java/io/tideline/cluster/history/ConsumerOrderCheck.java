package io.tideline.cluster.history;

import io.tideline.cluster.history.HistoryEvent.Consumed;
import io.tideline.cluster.history.HistoryEvent.OffsetReset;
import io.tideline.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A consumer's offsets strictly increase per partition, with no gap except below a log start offset it was told
 * about (OFFSET_OUT_OF_RANGE) since its previous record. There are no control batches yet, so every other gap is
 * a violation. A consumer's first record of a partition may be at any offset (it may start from a committed
 * offset), unless it was told a log start offset before it: then it must start there.
 */
final class ConsumerOrderCheck implements Check {

    private record Key(String consumerId, TopicPartition partition) { }

    /** The consumer's last record of the partition and the resets it was told since. */
    private static final class Position {
        Consumed last;
        final List<OffsetReset> resetsSinceLast = new ArrayList<>();

        long maxToldSinceLast() {
            return resetsSinceLast.stream().mapToLong(OffsetReset::logStartOffset).max().orElse(-1);
        }
    }

    @Override
    public void run(HistoryIndex history, CheckResult.Builder result) {
        Map<Key, Position> positions = new HashMap<>();
        for (HistoryEvent event : history.events()) {
            if (event instanceof OffsetReset reset) {
                positions.computeIfAbsent(new Key(reset.consumerId(), reset.partition()), k -> new Position())
                    .resetsSinceLast.add(reset);
            } else if (event instanceof Consumed consumed) {
                result.consumed++;
                Position position = positions.computeIfAbsent(
                    new Key(consumed.consumerId(), consumed.partition()), k -> new Position());
                check(position, consumed, result);
                position.last = consumed;
                position.resetsSinceLast.clear();
            }
        }
    }

    private static void check(Position position, Consumed consumed, CheckResult.Builder result) {
        long offset = consumed.offset();
        long told = position.maxToldSinceLast();
        String who = consumed.consumerId() + " on " + consumed.partition();
        if (position.last != null && offset <= position.last.offset()) {
            result.violation(Violation.Kind.CONSUMER_WENT_BACKWARDS,
                who + " read offset " + offset + " after offset " + position.last.offset(), slice(position, consumed));
            return;
        }
        long expected = position.last != null ? position.last.offset() + 1 : told;
        // Offsets below a log start offset the consumer was told are gone; skipping them is what a reset does.
        if (expected >= 0 && offset > expected && offset > told) {
            result.violation(Violation.Kind.CONSUMER_SKIPPED_OFFSETS,
                who + " skipped offsets " + expected + ".." + (offset - 1)
                    + (told >= 0 ? " (told log start offset " + told + ")" : " (no log start offset told)"),
                slice(position, consumed));
        }
    }

    private static List<HistoryEvent> slice(Position position, Consumed consumed) {
        List<HistoryEvent> slice = new ArrayList<>();
        if (position.last != null) {
            slice.add(position.last);
        }
        slice.addAll(position.resetsSinceLast);
        slice.add(consumed);
        return slice;
    }
}
