package io.tideline.store.retention;

import io.tideline.store.retention.RetentionReason.Kind;
import io.tideline.store.retention.RetentionRules.Candidate;
import io.tideline.store.retention.SegmentRetention.Status;
import java.util.ArrayList;
import java.util.List;

/**
 * What one retention pass over a log decides, segment by segment: the single evaluation behind both
 * the pass ({@code Log.deleteOldSegments} deletes {@link #belowLogStartOffset()}, then
 * {@link #sizeBreached()}, then {@link #timeBreached()} segments from the front) and the explanation an
 * operator reads ({@link #segments()}). Because both read this one result, a segment the explanation
 * calls due is exactly one the pass deletes at the same instant, and the reasons it gives for the others
 * are the conditions that stopped each rule (docs/behaviours.md B9-B14).
 *
 * <p>The rules run in the pass's order (B14) over the candidates left by the previous rule: the
 * log-start-offset rule first (B13), then size over the log as it is without those segments (B12),
 * then time (B11). Each takes a prefix (B10). Immutable.
 *
 * @param segments            every segment of the log, oldest first (the active one last)
 * @param belowLogStartOffset how many of the oldest the log-start-offset rule deletes
 * @param sizeBreached        how many after those the size rule deletes
 * @param timeBreached        how many after those the time rule deletes
 */
public record RetentionPlan(List<SegmentRetention> segments, int belowLogStartOffset, int sizeBreached,
                           int timeBreached) {

    public RetentionPlan {
        segments = List.copyOf(segments);
    }

    /** What the plan knows of a segment of the log (the active one included). */
    public record SegmentFacts(long baseOffset, long endOffset, long size, long maxTimestamp) {
    }

    /**
     * Evaluates the rules as a pass at {@code nowMs} would.
     *
     * @param segments every segment, oldest first, the active one last (never empty)
     * @param nextPassMs when the pass that would delete the due segments runs (the reasons' {@code atMs})
     */
    public static RetentionPlan evaluate(List<SegmentFacts> segments, long logStartOffset, long highWatermark,
                                         long retentionMs, long retentionBytes, long nowMs, long nextPassMs) {
        // Candidates: closed segments whose whole range is below the high watermark (B9). The range of a
        // closed segment ends where the next one begins, so they are a prefix of the closed segments.
        List<Candidate> candidates = new ArrayList<>();
        long logSize = 0;
        for (int i = 0; i < segments.size(); i++) {
            SegmentFacts s = segments.get(i);
            logSize += s.size();
            if (i < segments.size() - 1 && candidates.size() == i && s.endOffset() <= highWatermark) {
                candidates.add(new Candidate(s.baseOffset(), s.endOffset(), s.size(), s.maxTimestamp()));
            }
        }
        int byStart = RetentionRules.belowLogStartOffset(candidates, logStartOffset);
        List<Candidate> afterStart = candidates.subList(byStart, candidates.size());
        long sizeAfterStart = logSize - bytes(candidates.subList(0, byStart));
        int bySize = RetentionRules.sizeBreached(afterStart, sizeAfterStart, retentionBytes);
        List<Candidate> afterSize = afterStart.subList(bySize, afterStart.size());
        int byTime = RetentionRules.timeBreached(afterSize, nowMs, retentionMs);

        // The excess over retention.bytes once the pass is done. Time deletions after the size rule only
        // lower it, which is why a second pass deletes nothing more (B14).
        long excess = sizeAfterStart - retentionBytes - bytes(afterStart.subList(0, bySize))
                - bytes(afterSize.subList(0, byTime));
        int firstKept = byStart + bySize + byTime;
        List<SegmentRetention> out = new ArrayList<>(segments.size());
        for (int i = 0; i < segments.size(); i++) {
            SegmentFacts s = segments.get(i);
            List<RetentionReason> reasons = new ArrayList<>(2);
            Status status = Status.KEPT;
            if (i == segments.size() - 1) {
                reasons.add(RetentionReason.of(Kind.ACTIVE_SEGMENT));
            } else if (i >= candidates.size()) {
                reasons.add(new RetentionReason(Kind.NOT_BELOW_HIGH_WATERMARK, -1, highWatermark, -1));
            } else if (i < firstKept) {
                status = Status.DUE;
                Kind kind = i < byStart ? Kind.DUE_BELOW_LOG_START_OFFSET
                        : i < byStart + bySize ? Kind.DUE_RETENTION_BYTES : Kind.DUE_RETENTION_MS;
                reasons.add(new RetentionReason(kind, nextPassMs, -1, -1));
            } else {
                reasons.add(sizeReason(candidates, i, firstKept, retentionBytes, excess));
                reasons.add(timeReason(candidates, i, firstKept, retentionMs, nowMs));
            }
            out.add(new SegmentRetention(s.baseOffset(), s.endOffset(), s.size(), s.maxTimestamp(), status, reasons));
        }
        return new RetentionPlan(out, byStart, bySize, byTime);
    }

    /**
     * Why the size rule leaves candidate {@code i}; {@code stop} is the first candidate the pass keeps and
     * {@code excess} the bytes over retention.bytes once the pass is done (negative: under it).
     */
    private static RetentionReason sizeReason(List<Candidate> candidates, int i, int stop, long retentionBytes,
                                              long excess) {
        if (retentionBytes < 0) {
            return RetentionReason.of(Kind.RETENTION_BYTES_DISABLED);
        }
        if (i == stop || candidates.get(i).size() > excess) {
            return new RetentionReason(Kind.NEEDED_FOR_RETENTION_BYTES, -1, -1, Math.max(0, excess));
        }
        return new RetentionReason(Kind.BLOCKED_BY_OLDER_SEGMENT, -1, candidates.get(stop).baseOffset(), -1);
    }

    /** Why the time rule stopped before candidate {@code i}; {@code stop} is the first candidate it kept. */
    private static RetentionReason timeReason(List<Candidate> candidates, int i, int stop, long retentionMs,
                                              long nowMs) {
        if (retentionMs < 0) {
            return RetentionReason.of(Kind.RETENTION_MS_DISABLED);
        }
        Candidate c = candidates.get(i);
        if (nowMs - c.maxTimestamp() <= retentionMs) {
            // The rule deletes once now - largest timestamp > retention.ms: from this instant on.
            return new RetentionReason(Kind.WITHIN_RETENTION_MS, c.maxTimestamp() + retentionMs + 1, -1, -1);
        }
        return new RetentionReason(Kind.BLOCKED_BY_OLDER_SEGMENT, -1, candidates.get(stop).baseOffset(), -1);
    }

    private static long bytes(List<Candidate> candidates) {
        long total = 0;
        for (Candidate c : candidates) {
            total += c.size();
        }
        return total;
    }

    /** Segments the pass deletes, from the front of the log. */
    public int deletable() {
        return belowLogStartOffset + sizeBreached + timeBreached;
    }
}
