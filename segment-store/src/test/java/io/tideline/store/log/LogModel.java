package io.tideline.store.log;

import io.tideline.common.errors.Errors;
import io.tideline.store.log.LogAction.RecordSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The specification {@link LogModelPropertyTest} holds the real {@link Log} to: a lone replica's
 * partition log as plain maps of records and batches plus its offsets. Where a rule depends on how
 * the real log happened to cut its segments (retention, a torn write), the model is handed the real
 * segment list and says what must follow from it.
 *
 * <p>Rules written here, in the order of docs/behaviours.md:
 * <ul>
 *   <li>high watermark = log end offset (one replica);</li>
 *   <li>a read is OFFSET_OUT_OF_RANGE exactly when offset < log start or offset > log end;</li>
 *   <li>DeleteRecords follows the beforeOffset table (B23);</li>
 *   <li>retention: closed segments wholly below the high watermark, a prefix only: those wholly below
 *       the log start offset, then the oldest while what remains stays at or above retention.bytes,
 *       then the oldest whose newest record is more than retention.ms old; the log start offset
 *       becomes the first surviving segment's base if that is higher;</li>
 *   <li>a clean restart changes nothing; a crash keeps every appended record (the file data survives
 *       the process) except a torn batch and what follows it, and the log start offset comes back as
 *       max(checkpointed value, first segment's base), or the log restarts empty at the checkpointed
 *       start offset if its end fell below it.</li>
 * </ul>
 * Not thread-safe.
 */
final class LogModel {

    record ModelRecord(long offset, long timestamp, byte[] key, byte[] value) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ModelRecord r && offset == r.offset && timestamp == r.timestamp
                    && Arrays.equals(key, r.key) && Arrays.equals(value, r.value);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(offset) * 31 + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "#" + offset + "@" + timestamp + "(k" + (key == null ? "null" : key.length + ":" + Arrays.hashCode(key))
                    + ", v" + value.length + ":" + Arrays.hashCode(value) + ")";
        }
    }

    record ModelBatch(long baseOffset, long lastOffset, int sizeInBytes) {
    }

    /** A real segment as the model sees it; in a list the last one is the active segment. */
    record SegmentView(long baseOffset, int sizeInBytes) {
    }

    record DeleteRecordsOutcome(Errors error, long lowWatermark, int segmentsDeleted) {
    }

    private final TreeMap<Long, ModelRecord> records = new TreeMap<>();
    private final TreeMap<Long, ModelBatch> batches = new TreeMap<>();
    private long logStartOffset;
    private long logEndOffset;
    private long checkpointedLogStartOffset;
    private long checkpointedRecoveryPoint;

    long logStartOffset() {
        return logStartOffset;
    }

    long logEndOffset() {
        return logEndOffset;
    }

    long highWatermark() {
        return logEndOffset;
    }

    long checkpointedLogStartOffset() {
        return checkpointedLogStartOffset;
    }

    long checkpointedRecoveryPoint() {
        return checkpointedRecoveryPoint;
    }

    // ---------------------------------------------------------------- appends

    /** A leader append of one batch of {@code sizeInBytes}: offsets from the log end. Returns the first offset. */
    long append(List<RecordSpec> specs, long timestamp, int sizeInBytes) {
        long first = logEndOffset;
        for (RecordSpec spec : specs) {
            records.put(logEndOffset, new ModelRecord(logEndOffset, timestamp, spec.key(), spec.value()));
            logEndOffset++;
        }
        batches.put(first, new ModelBatch(first, logEndOffset - 1, sizeInBytes));
        return first;
    }

    // ---------------------------------------------------------------- reads

    boolean readIsOutOfRange(long offset) {
        return offset < logStartOffset || offset > logEndOffset;
    }

    List<ModelRecord> records(long fromOffset, long toOffsetExclusive) {
        if (toOffsetExclusive <= fromOffset) {
            return List.of();
        }
        return new ArrayList<>(records.subMap(fromOffset, toOffsetExclusive).values());
    }

    ModelRecord record(long offset) {
        return records.get(offset);
    }

    ModelBatch batchContaining(long offset) {
        Map.Entry<Long, ModelBatch> e = batches.floorEntry(offset);
        return e == null || e.getValue().lastOffset() < offset ? null : e.getValue();
    }

    List<ModelBatch> batches(long fromOffset, long toOffsetExclusive) {
        return new ArrayList<>(batches.subMap(fromOffset, toOffsetExclusive).values());
    }

    /** Largest record timestamp in [base, nextBase), -1 when there is none. */
    long maxTimestamp(long baseOffset, long nextBaseOffset) {
        long max = -1;
        for (ModelRecord r : records.subMap(baseOffset, nextBaseOffset).values()) {
            max = Math.max(max, r.timestamp());
        }
        return max;
    }

    // ---------------------------------------------------------------- DeleteRecords (docs/behaviours.md B23)

    DeleteRecordsOutcome deleteRecords(long beforeOffset, List<SegmentView> segments) {
        long hw = highWatermark();
        if (beforeOffset < -1) {
            return new DeleteRecordsOutcome(Errors.OFFSET_OUT_OF_RANGE, -1, 0);
        }
        long target = beforeOffset == -1 ? hw : beforeOffset;
        if (target > hw) {
            return new DeleteRecordsOutcome(Errors.OFFSET_OUT_OF_RANGE, -1, 0);
        }
        if (beforeOffset == 0 || target <= logStartOffset) {
            return new DeleteRecordsOutcome(Errors.NONE, logStartOffset, 0);
        }
        logStartOffset = target;
        // Closed segments wholly below the new start offset go at once (Log documents "at once").
        int deleted = wholeSegmentsBelowLogStart(segments);
        return new DeleteRecordsOutcome(Errors.NONE, logStartOffset, deleted);
    }

    // ---------------------------------------------------------------- retention

    /**
     * How many of the oldest segments one retention pass must delete, given the real segment list, and
     * applies the resulting log start offset.
     */
    int retentionPass(List<SegmentView> segments, long nowMs, long retentionMs, long retentionBytes) {
        int deletable = closedSegmentsWhollyBelowHighWatermark(segments);
        int count = wholeSegmentsBelowLogStart(segments);
        if (retentionBytes >= 0) {
            long remaining = 0;
            for (int i = count; i < segments.size(); i++) {
                remaining += segments.get(i).sizeInBytes();
            }
            while (count < deletable && remaining - segments.get(count).sizeInBytes() >= retentionBytes) {
                remaining -= segments.get(count).sizeInBytes();
                count++;
            }
        }
        if (retentionMs >= 0) {
            while (count < deletable
                    && nowMs - maxTimestamp(segments.get(count).baseOffset(), segments.get(count + 1).baseOffset()) > retentionMs) {
                count++;
            }
        }
        logStartOffset = Math.max(logStartOffset, segments.get(count).baseOffset());
        return count;
    }

    /** Closed segments whose every offset lies below the log start offset (a prefix). */
    private int wholeSegmentsBelowLogStart(List<SegmentView> segments) {
        int deletable = closedSegmentsWhollyBelowHighWatermark(segments);
        int count = 0;
        while (count < deletable && segments.get(count + 1).baseOffset() <= logStartOffset) {
            count++;
        }
        return count;
    }

    private int closedSegmentsWhollyBelowHighWatermark(List<SegmentView> segments) {
        int count = 0;
        while (count < segments.size() - 1 && segments.get(count + 1).baseOffset() <= highWatermark()) {
            count++;
        }
        return count;
    }

    // ---------------------------------------------------------------- checkpoints, restarts, crashes

    void checkpoint(long recoveryPoint) {
        checkpointedLogStartOffset = logStartOffset;
        checkpointedRecoveryPoint = recoveryPoint;
    }

    /**
     * A crash, then a reopen with the checkpointed offsets. {@code segmentsOnDisk} are the segments
     * the crashed log had; {@code tornBytes} were cut off the end of the last one. Returns the base
     * offsets of the segments the reopened log must have.
     */
    List<Long> crash(List<SegmentView> segmentsOnDisk, int tornBytes) {
        SegmentView active = segmentsOnDisk.get(segmentsOnDisk.size() - 1);
        if (tornBytes > 0) {
            // Batches that still end within the shortened file survive; the torn one and later go.
            int newSize = active.sizeInBytes() - tornBytes;
            int end = 0;
            long firstLost = logEndOffset;
            for (ModelBatch b : batches.tailMap(active.baseOffset(), true).values()) {
                end += b.sizeInBytes();
                if (end > newSize) {
                    firstLost = b.baseOffset();
                    break;
                }
            }
            records.tailMap(firstLost, true).clear();
            batches.tailMap(firstLost, true).clear();
            logEndOffset = firstLost;
        }
        List<Long> bases = new ArrayList<>();
        if (logEndOffset < checkpointedLogStartOffset) {
            records.clear();
            batches.clear();
            logStartOffset = checkpointedLogStartOffset;
            logEndOffset = checkpointedLogStartOffset;
            bases.add(checkpointedLogStartOffset);
        } else {
            logStartOffset = Math.max(checkpointedLogStartOffset, segmentsOnDisk.get(0).baseOffset());
            for (SegmentView s : segmentsOnDisk) {
                bases.add(s.baseOffset());
            }
        }
        return bases;
    }

    @Override
    public String toString() {
        return "LogModel(start=" + logStartOffset + ", end=" + logEndOffset + ", checkpointed start="
                + checkpointedLogStartOffset + ", checkpointed recovery point=" + checkpointedRecoveryPoint + ")";
    }
}
