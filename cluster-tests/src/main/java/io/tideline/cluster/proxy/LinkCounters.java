package io.tideline.cluster.proxy;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** What one link has done since it started; thread-safe (adders written by the pumps, read by anyone). */
final class LinkCounters {
    final LongAdder accepted = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder reset = new LongAdder();
    final LongAdder droppedBytes = new LongAdder();
    private final Map<Direction, LongAdder> forwarded = new EnumMap<>(Direction.class);

    LinkCounters() {
        for (Direction d : Direction.values()) {
            forwarded.put(d, new LongAdder());
        }
    }

    void forwarded(Direction direction, int bytes) {
        forwarded.get(direction).add(bytes);
    }

    long forwarded(Direction direction) {
        return forwarded.get(direction).sum();
    }

    @Override
    public String toString() {
        return "accepted=" + accepted.sum() + " refused=" + refused.sum() + " reset=" + reset.sum()
                + " bytesToTarget=" + forwarded(Direction.TO_TARGET)
                + " bytesFromTarget=" + forwarded(Direction.FROM_TARGET)
                + " bytesDropped=" + droppedBytes.sum();
    }
}
