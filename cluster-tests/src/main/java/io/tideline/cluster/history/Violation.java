package io.tideline.cluster.history;

import java.util.List;

/**
 * One broken property: its kind, a one-line description, and the slice of history that shows it (the events
 * touching that value, offset or partition, in sequence order).
 */
public record Violation(Kind kind, String description, List<HistoryEvent> slice) {

    public enum Kind {
        LOST_WRITE,
        DUPLICATE_VALUE,
        OFFSET_WITH_TWO_VALUES,
        READ_NOT_IN_FINAL_LOG,
        CONSUMER_WENT_BACKWARDS,
        CONSUMER_SKIPPED_OFFSETS,
        REPLICA_DIVERGES,
        HIGH_WATERMARK_WENT_BACKWARDS,
        LOG_START_OFFSET_WENT_BACKWARDS
    }

    public Violation {
        slice = List.copyOf(slice);
    }

    public String render() {
        StringBuilder out = new StringBuilder(kind.name()).append(": ").append(description);
        for (HistoryEvent event : slice) {
            out.append("\n    ").append(event.describe());
        }
        return out.toString();
    }
}
