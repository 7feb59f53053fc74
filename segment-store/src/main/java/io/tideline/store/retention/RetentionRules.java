package io.tideline.store.retention;

import java.util.List;

/**
 * The three retention rules as pure functions over the deletable candidates: closed segments wholly
 * below the high watermark, oldest first. Each answers how many of the oldest to delete; rules stop
 * at the first segment that must stay, so only a prefix ever goes (docs/behaviours.md B10).
 */
public final class RetentionRules {
    private RetentionRules() {
    }

    /**
     * What the rules know of a closed segment: its base offset, the base offset of the segment after it
     * (its exclusive end offset), the bytes of its {@code .log} and its largest record timestamp.
     */
    public record Candidate(long baseOffset, long nextSegmentBaseOffset, long size, long maxTimestamp) {
    }

    /** Segments that end at or below the start offset: nothing in them can be read any more. */
    public static int belowLogStartOffset(List<Candidate> candidates, long logStartOffset) {
        int count = 0;
        for (Candidate c : candidates) {
            if (c.nextSegmentBaseOffset() > logStartOffset) {
                break;
            }
            count++;
        }
        return count;
    }

    /**
     * Oldest segments while what remains stays at or above retention.bytes; -1 disables the rule.
     * The total includes the active segment, which itself is never a candidate.
     */
    public static int sizeBreached(List<Candidate> candidates, long logSize, long retentionBytes) {
        if (retentionBytes < 0 || logSize < retentionBytes) {
            return 0;
        }
        long excess = logSize - retentionBytes;
        int count = 0;
        for (Candidate c : candidates) {
            if (excess - c.size() < 0) {
                break;
            }
            excess -= c.size();
            count++;
        }
        return count;
    }

    /**
     * Oldest segments whose largest record timestamp is more than retention.ms old; -1 disables the
     * rule. Record timestamps only: file times change on copies and restores.
     */
    public static int timeBreached(List<Candidate> candidates, long nowMs, long retentionMs) {
        if (retentionMs < 0) {
            return 0;
        }
        int count = 0;
        for (Candidate c : candidates) {
            if (nowMs - c.maxTimestamp() <= retentionMs) {
                break;
            }
            count++;
        }
        return count;
    }
}
