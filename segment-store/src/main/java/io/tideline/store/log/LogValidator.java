package io.tideline.store.log;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.config.LogConfig;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.TimestampType;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Checks incoming batches before anything is written. A request is accepted or refused whole: the
 * first bad batch fails it with a typed error and nothing of it reaches the file.
 */
final class LogValidator {
    private LogValidator() {
    }

    /**
     * Checks shared by leader and follower appends: framing, magic, CRC, sizes. Returns the batches,
     * parsed once here and handed to the other checks and to the segment.
     */
    static List<RecordBatch> validateFraming(MemoryRecords records, LogConfig config) {
        // Truncation first: a request holding only part of a batch is a torn batch (CORRUPT_MESSAGE),
        // not an empty request.
        int validBytes = records.validBytes();
        if (validBytes != records.sizeInBytes()) {
            throw new TidelineException(Errors.CORRUPT_MESSAGE, (records.sizeInBytes() - validBytes)
                    + " bytes after the last whole batch: the request is truncated");
        }
        List<RecordBatch> batches = records.batches();
        if (batches.isEmpty()) {
            throw new TidelineException(Errors.INVALID_RECORD, "The request holds no record batch");
        }
        for (RecordBatch batch : batches) {
            // A request of several batches may span segments; one batch must fit in one.
            if (batch.sizeInBytes() > config.segmentBytes()) {
                throw new TidelineException(Errors.MESSAGE_TOO_LARGE, "A batch of " + batch.sizeInBytes()
                        + " bytes is larger than segment.bytes (" + config.segmentBytes() + ")");
            }
            if (batch.sizeInBytes() > config.maxMessageBytes()) {
                throw new TidelineException(Errors.MESSAGE_TOO_LARGE, "A batch of " + batch.sizeInBytes()
                        + " bytes is larger than max.message.bytes (" + config.maxMessageBytes() + ")");
            }
            batch.ensureValid();
        }
        return batches;
    }

    /**
     * Leader path, before the log's lock is taken (B122): walks the records of every batch ({@code batches} from
     * {@link #validateFraming}), compressed ones as they inflate. Their records may hold at most what an uncompressed
     * batch of max.message.bytes holds (B120). Returns each batch's checks, in order, for
     * {@link #validateAndAssignOffsets}. On a compacted topic every record must have a key (B215);
     * {@code topicPartition} names the partition in that refusal, as Kafka's message does.
     */
    static List<RecordChecks> walkRecords(List<RecordBatch> batches, LogConfig config, TopicPartition topicPartition) {
        long maxRecordsBytes = Math.max(0, config.maxMessageBytes() - RecordBatch.RECORDS_OFFSET);
        List<RecordChecks> walked = new ArrayList<>(batches.size());
        for (RecordBatch batch : batches) {
            RecordChecks checks = new RecordChecks(config.compact() ? topicPartition : null);
            batch.forEachRecord(maxRecordsBytes, checks);
            walked.add(checks);
        }
        return walked;
    }

    /**
     * Leader path ({@code batches} from {@link #validateFraming}, {@code walked} from {@link #walkRecords}): checks
     * every batch's records, then assigns offsets from {@code firstOffset}, stamps
     * {@code leaderEpoch} and sets each batch's max timestamp (LogAppendTime: {@code nowMs}).
     * Rewrites the batches in place; returns what was assigned.
     */
    static LogAppendInfo validateAndAssignOffsets(MemoryRecords records, List<RecordBatch> batches,
                                                  List<RecordChecks> walked, long firstOffset,
                                                  int leaderEpoch, LogConfig config, long nowMs, long logStartOffset) {
        Iterator<RecordChecks> walkedChecks = walked.iterator();
        long nextOffset = firstOffset;
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        long offsetOfMaxTimestamp = firstOffset;
        int numRecords = 0;
        for (RecordBatch batch : batches) {
            if (batch.isControlBatch()) {
                throw new TidelineException(Errors.INVALID_RECORD, "Clients may not write control batches");
            }
            RecordChecks checks = walkedChecks.next();
            if (batch.recordCount() == 0 || batch.recordCount() != batch.lastOffsetDelta() + 1) {
                throw new TidelineException(Errors.INVALID_RECORD, "A batch must hold records whose count ("
                        + batch.recordCount() + ") matches lastOffsetDelta + 1 (" + (batch.lastOffsetDelta() + 1) + ")");
            }
            if (checks.firstViolation != null) {
                throw checks.firstViolation;
            }
            if (!config.logAppendTime()) {
                checkTimestampBounds(checks.minTimestamp, checks.maxTimestamp, config, nowMs);
            }
            long batchMax = checks.maxTimestamp;
            batch.setBaseOffset(nextOffset);
            batch.setPartitionLeaderEpoch(leaderEpoch);
            if (config.logAppendTime()) {
                batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, nowMs);
                batchMax = nowMs;
            } else {
                batch.setMaxTimestamp(TimestampType.CREATE_TIME, batchMax);
            }
            if (batchMax > maxTimestamp) {
                maxTimestamp = batchMax;
                offsetOfMaxTimestamp = batch.lastOffset();
            }
            numRecords += batch.recordCount();
            nextOffset = batch.lastOffset() + 1;
        }
        return new LogAppendInfo(firstOffset, nextOffset - 1, maxTimestamp, offsetOfMaxTimestamp,
                config.logAppendTime() ? nowMs : -1L, logStartOffset, numRecords, records.sizeInBytes());
    }

    /**
     * Per-record rules of the leader path, collected during one walk: offset deltas 0, 1, 2, ..., a key on
     * every record of a compacted topic (B215) and no timestamp below -1. The first violation is kept and
     * thrown after the walk, so that a batch that is also malformed further on fails with CORRUPT_MESSAGE
     * first, as when the records were decoded.
     */
    static final class RecordChecks implements RecordBatch.RecordVisitor {
        /** The partition of a compacted topic, whose records need keys; null when keys are optional. */
        private final TopicPartition compactedPartition;
        private int index;
        private long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        private long minTimestamp = Long.MAX_VALUE;
        private TidelineException firstViolation;

        RecordChecks(TopicPartition compactedPartition) {
            this.compactedPartition = compactedPartition;
        }

        /** A record broke a rule: the append will be refused with it. */
        boolean violated() {
            return firstViolation != null;
        }

        @Override
        public void accept(int offsetDelta, long timestamp) {
            accept(offsetDelta, timestamp, true);
        }

        @Override
        public void accept(int offsetDelta, long timestamp, boolean hasKey) {
            if (firstViolation == null) {
                if (offsetDelta != index) {
                    firstViolation = new TidelineException(Errors.INVALID_RECORD,
                            "Record offset deltas inside a batch must be 0, 1, 2, ...; found " + offsetDelta + " at position " + index);
                } else if (!hasKey && compactedPartition != null) {
                    // Kafka's text, which its producer shows in the InvalidRecordException it throws.
                    firstViolation = new TidelineException(Errors.INVALID_RECORD,
                            "Compacted topic cannot accept message without key in topic partition " + compactedPartition);
                } else if (timestamp < RecordBatch.NO_TIMESTAMP) {
                    firstViolation = new TidelineException(Errors.INVALID_TIMESTAMP, "Record timestamp " + timestamp + " is negative");
                }
            }
            maxTimestamp = Math.max(maxTimestamp, timestamp);
            if (timestamp != RecordBatch.NO_TIMESTAMP) {
                minTimestamp = Math.min(minTimestamp, timestamp);
            }
            index++;
        }
    }

    /**
     * A CreateTime batch whose records' timestamps, records without one aside, span [{@code minTimestamp},
     * {@code maxTimestamp}] must lie within [now - message.timestamp.before.max.ms, now +
     * message.timestamp.after.max.ms] of the broker's clock (docs/behaviours.md B150); a batch with no
     * timestamped record ({@code minTimestamp} Long.MAX_VALUE) passes.
     */
    static void checkTimestampBounds(long minTimestamp, long maxTimestamp, LogConfig config, long nowMs) {
        if (minTimestamp == Long.MAX_VALUE) {
            return;
        }
        long before = config.messageTimestampBeforeMaxMs();
        long after = config.messageTimestampAfterMaxMs();
        // Timestamps below -1 are refused before this, so nowMs - minTimestamp cannot overflow.
        long outOfRange = nowMs - minTimestamp > before ? minTimestamp
                : maxTimestamp - nowMs > after ? maxTimestamp : RecordBatch.NO_TIMESTAMP;
        if (outOfRange != RecordBatch.NO_TIMESTAMP) {
            long lowest = before >= nowMs ? 0 : nowMs - before;
            long highest = after > Long.MAX_VALUE - nowMs ? Long.MAX_VALUE : nowMs + after;
            throw new TidelineException(Errors.INVALID_TIMESTAMP, "Timestamp " + outOfRange
                    + " of a record is out of range: with message.timestamp.type CreateTime it must be within ["
                    + lowest + ", " + highest + "] (message.timestamp.before.max.ms " + before
                    + ", message.timestamp.after.max.ms " + after + ")");
        }
    }

    /**
     * Follower path: the leader's offsets and epochs are kept. Batches must have increasing offsets and must
     * not overlap the log or each other; a gap is taken as it comes, since a compacted leader's log has gaps
     * where the cleaner removed whole batches, and a follower fetching at its log end gets the next batch that
     * exists (B222). An empty log may also take a first batch that contains {@code expectedFirstOffset} (the
     * leader's start offset can sit inside a batch after DeleteRecords).
     */
    static LogAppendInfo validateFollowerBatches(MemoryRecords records, List<RecordBatch> batches, long expectedFirstOffset,
                                                 boolean logEmpty, long logStartOffset) {
        RecordBatch first = batches.get(0);
        boolean containsStart = first.baseOffset() <= expectedFirstOffset && first.lastOffset() >= expectedFirstOffset;
        if (first.baseOffset() < expectedFirstOffset && !(logEmpty && containsStart)) {
            throw new TidelineException(Errors.INVALID_RECORD, "Follower append starting at offset " + first.baseOffset()
                    + " would leave an overlap before log end offset " + expectedFirstOffset);
        }
        long previousLast = first.baseOffset() - 1;
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        long offsetOfMaxTimestamp = first.baseOffset();
        int numRecords = 0;
        for (RecordBatch batch : batches) {
            if (batch.baseOffset() <= previousLast) {
                throw new TidelineException(Errors.INVALID_RECORD, "Batch at offset " + batch.baseOffset()
                        + " does not follow the previous batch ending at " + previousLast);
            }
            if (batch.maxTimestamp() > maxTimestamp) {
                maxTimestamp = batch.maxTimestamp();
                offsetOfMaxTimestamp = batch.lastOffset();
            }
            numRecords += batch.recordCount();
            previousLast = batch.lastOffset();
        }
        return new LogAppendInfo(first.baseOffset(), previousLast, maxTimestamp, offsetOfMaxTimestamp, -1L,
                logStartOffset, numRecords, records.sizeInBytes());
    }
}
