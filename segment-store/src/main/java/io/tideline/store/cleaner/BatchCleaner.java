package io.tideline.store.cleaner;

import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.record.TimestampType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decides what of one batch a cleaning keeps, and writes it (docs/behaviours.md B182-B186):
 * <ul>
 *   <li>a record above the offset map's latest offset stays (the cleaning did not look that far);</li>
 *   <li>a record without a key goes (B183);</li>
 *   <li>a record stays iff its offset is at or above the map's offset for its key (or its key is not in the
 *       map), and, when it is a tombstone, its batch has no delete horizon yet or the horizon is still in the
 *       future (B185);</li>
 *   <li>a batch that keeps every record and needs no new horizon is copied byte for byte; otherwise it is
 *       rebuilt with the same base offset, last offset, producer fields, leader epoch, timestamp type and
 *       codec, the kept records at their own offsets (B184), and the delete horizon now + delete.retention.ms
 *       when it keeps a tombstone and had none (KIP-534);</li>
 *   <li>a batch that keeps nothing goes, except as a header with no records when it is an active idempotent
 *       producer's last batch (its last sequence must survive) or the last batch below the cleaning's upper
 *       bound (B184);</li>
 *   <li>control and transactional batches are kept as they are: this store writes none yet (B186).</li>
 * </ul>
 * Not thread-safe: one per cleaning.
 */
final class BatchCleaner {
    private final OffsetMap map;
    private final long nowMs;
    private final long deleteRetentionMs;
    private final Map<Long, Long> lastOffsetByProducer;
    private final long upperBoundOffset;
    private final CleanerStats stats;

    BatchCleaner(OffsetMap map, long nowMs, long deleteRetentionMs, Map<Long, Long> lastOffsetByProducer,
                 long upperBoundOffset, CleanerStats stats) {
        this.map = map;
        this.nowMs = nowMs;
        this.deleteRetentionMs = deleteRetentionMs;
        this.lastOffsetByProducer = lastOffsetByProducer;
        this.upperBoundOffset = upperBoundOffset;
        this.stats = stats;
    }

    /** What of {@code batch} goes to the cleaned segment (on a buffer of its own), or null for nothing. */
    RecordBatch clean(RecordBatch batch) {
        stats.bytesRead += batch.sizeInBytes();
        if (batch.isControlBatch() || batch.isTransactional()) {
            stats.messagesRead += batch.recordCount();
            return keep(batch, batch.recordCount());
        }
        List<Record> records = batch.records();
        stats.messagesRead += records.size();
        List<Record> retained = new ArrayList<>(records.size());
        boolean tombstones = false;
        for (Record record : records) {
            if (shouldRetain(batch, record)) {
                retained.add(record);
                tombstones |= record.value() == null;
            }
        }
        if (!retained.isEmpty()) {
            boolean needHorizon = tombstones && !batch.hasDeleteHorizon();
            if (retained.size() == records.size() && !needHorizon) {
                return keep(batch, retained.size());
            }
            long horizon = needHorizon ? saturatedAdd(nowMs, deleteRetentionMs) : batch.deleteHorizonMs();
            return count(rebuild(batch, retained, horizon), retained.size());
        }
        Long producerLast = batch.producerId() >= 0 ? lastOffsetByProducer.get(batch.producerId()) : null;
        boolean lastOfProducer = producerLast != null && producerLast == batch.lastOffset();
        if (lastOfProducer || batch.nextOffset() == upperBoundOffset) {
            return count(RecordBatchBuilder.emptyBatchLike(batch), 0);
        }
        return null;
    }

    private boolean shouldRetain(RecordBatch batch, Record record) {
        if (record.offset() > map.latestOffset()) {
            return true;
        }
        if (record.key() == null) {
            stats.keylessDiscarded++;
            return false;
        }
        boolean latestForKey = record.offset() >= map.get(record.key());
        boolean keepTombstone = !batch.hasDeleteHorizon() || nowMs < batch.deleteHorizonMs();
        if (latestForKey && record.value() == null && !keepTombstone) {
            // The key's last word goes: a consumer still below it never learns of the delete (B194).
            stats.largestRemovedTombstoneOffset = Math.max(stats.largestRemovedTombstoneOffset, record.offset());
        }
        return latestForKey && (record.value() != null || keepTombstone);
    }

    private static RecordBatch rebuild(RecordBatch original, List<Record> retained, long deleteHorizonMs) {
        RecordBatchBuilder builder = new RecordBatchBuilder(original.baseOffset(), original.compressionType())
                .partitionLeaderEpoch(original.partitionLeaderEpoch())
                .producer(original.producerId(), original.producerEpoch(), original.baseSequence());
        if (original.timestampType() == TimestampType.LOG_APPEND_TIME) {
            builder.logAppendTime();
        }
        if (deleteHorizonMs != RecordBatch.NO_TIMESTAMP) {
            builder.deleteHorizon(deleteHorizonMs);
        }
        for (Record record : retained) {
            builder.appendWithOffsetDelta((int) (record.offset() - original.baseOffset()), record.timestamp(),
                    record.key(), record.value(), record.headers());
        }
        return builder.overrideLastOffsetDelta(original.lastOffsetDelta()).build();
    }

    private RecordBatch keep(RecordBatch batch, int records) {
        ByteBuffer copy = ByteBuffer.allocate(batch.sizeInBytes());
        copy.put(batch.buffer()).flip();
        return count(RecordBatch.wrap(copy), records);
    }

    private RecordBatch count(RecordBatch written, int records) {
        stats.bytesWritten += written.sizeInBytes();
        stats.messagesWritten += records;
        return written;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
