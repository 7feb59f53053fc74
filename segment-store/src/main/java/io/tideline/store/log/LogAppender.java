package io.tideline.store.log;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.time.Time;
import io.tideline.store.epoch.LeaderEpochCache;
import io.tideline.store.producer.BatchHeader;
import io.tideline.store.producer.BatchMetadata;
import io.tideline.store.producer.ProducerAppendOutcome;
import io.tideline.store.producer.ProducerStateManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.segment.LogSegment;
import io.tideline.store.segment.LogSegment.RollReason;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path of one {@link Log} beneath its lock: the checks that need the log's state (an idempotent
 * producer's retry, a follower's gap), offsets and leader epochs, the split of an append into runs of at most
 * segment.bytes, the roll before a run and the producer state each run updates. Every method runs with the log's
 * lock held and the log open; what an append means for the high watermark is {@link Log}'s.
 */
final class LogAppender {
    /** Under {@link Log}'s name: one logger per partition log, whichever layer writes the line. */
    private static final Logger log = LoggerFactory.getLogger(Log.class);

    private final TopicPartition topicPartition;
    private final Time time;
    private final LocalLog local;
    private final ProducerStateManager producerState;
    private final LeaderEpochCache epochCache;

    LogAppender(TopicPartition topicPartition, Time time, LocalLog local, ProducerStateManager producerState,
                LeaderEpochCache epochCache) {
        this.topicPartition = topicPartition;
        this.time = time;
        this.local = local;
        this.producerState = producerState;
        this.epochCache = epochCache;
    }

    /** See {@link Log#appendAsLeader(ValidatedRecords, int)}. */
    LogAppendInfo appendAsLeader(ValidatedRecords validated, int leaderEpoch, long logStartOffset) {
        MemoryRecords records = validated.records;
        List<RecordBatch> batches = validated.batches;
        List<BatchHeader> headers = new ArrayList<>(batches.size());
        batches.forEach(b -> headers.add(BatchHeader.of(b)));
        ProducerAppendOutcome outcome = producerState.checkLeaderAppend(headers);
        if (outcome.isDuplicate()) {
            return duplicateAppendInfo(outcome.duplicateOf().get(), logStartOffset);
        }
        LogAppendInfo info = LogValidator.validateAndAssignOffsets(records, batches, validated.walked, local.logEndOffset(),
                leaderEpoch, local.config(), time.milliseconds(), logStartOffset);
        if (leaderEpoch >= 0) {
            epochCache.assign(leaderEpoch, info.firstOffset());
        }
        append(records, batches, info);
        return info;
    }

    /**
     * A retry of a batch already written: nothing is written and the answer is the original's offsets, with its
     * timestamp as the log append time when the topic uses LogAppendTime (the time the original was stamped).
     */
    private LogAppendInfo duplicateAppendInfo(BatchMetadata original, long logStartOffset) {
        return new LogAppendInfo(original.firstOffset(), original.lastOffset(), original.timestamp(), original.lastOffset(),
                local.config().logAppendTime() ? original.timestamp() : -1L, logStartOffset, 0, 0, true);
    }

    /** See {@link Log#appendAsFollower}. */
    LogAppendInfo appendAsFollower(MemoryRecords records, long logStartOffset) {
        boolean empty = local.segments().sizeInBytes() == 0;
        List<RecordBatch> batches = LogValidator.validateFraming(records, local.config());
        LogAppendInfo info = LogValidator.validateFollowerBatches(records, batches, local.logEndOffset(), empty,
                logStartOffset);
        if (empty && info.firstOffset() < local.logEndOffset()) {
            // The leader's start offset lies inside this batch: re-base the empty log at the batch.
            local.replaceEmptyActiveSegment(info.firstOffset());
        }
        // The leader's epochs travel in the batches; the follower's cache learns them as they come.
        for (RecordBatch batch : batches) {
            int epoch = batch.partitionLeaderEpoch();
            if (epoch >= 0 && epochCache.latestEpoch().map(latest -> epoch > latest).orElse(true)) {
                epochCache.assign(epoch, batch.baseOffset());
            }
        }
        append(records, batches, info);
        return info;
    }

    private void append(MemoryRecords records, List<RecordBatch> batches, LogAppendInfo info) {
        try {
            if (records.sizeInBytes() <= local.config().segmentBytes()) {
                appendRun(records, batches, info.firstOffset(), info.lastOffset(), info.maxTimestamp());
            } else {
                appendInRuns(records, batches);
            }
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Append to " + topicPartition + " failed: " + e.getMessage(), e);
        } catch (InternalError e) {
            // A fault on a mapped index that the JVM delivered after the index's own call returned (B142).
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Append to " + topicPartition + " faulted on a "
                    + "mapped file: " + e.getMessage(), e);
        }
    }

    /**
     * An append larger than a segment (a producer's request carrying several batches of one partition) is
     * written as runs of whole batches, each at most segment.bytes, with the roll checks before each run,
     * so it may span segments as separate appends would. It was validated whole before the first run.
     */
    private void appendInRuns(MemoryRecords records, List<RecordBatch> batches) throws IOException {
        ByteBuffer all = records.buffer();
        int runStart = 0;
        int runBytes = 0;
        int position = 0;
        for (int i = 0; i <= batches.size(); i++) {
            int size = i < batches.size() ? batches.get(i).sizeInBytes() : 0;
            if (i == batches.size() || (runBytes > 0 && runBytes + size > local.config().segmentBytes())) {
                List<RecordBatch> run = batches.subList(runStart, i);
                ByteBuffer slice = all.duplicate();
                slice.position(all.position() + position - runBytes).limit(all.position() + position);
                long maxTimestamp = RecordBatch.NO_TIMESTAMP;
                for (RecordBatch batch : run) {
                    maxTimestamp = Math.max(maxTimestamp, batch.maxTimestamp());
                }
                appendRun(MemoryRecords.readableRecords(slice), run, run.get(0).baseOffset(),
                        run.get(run.size() - 1).lastOffset(), maxTimestamp);
                runStart = i;
                runBytes = 0;
            }
            runBytes += size;
            position += size;
        }
    }

    private void appendRun(MemoryRecords records, List<RecordBatch> batches, long firstOffset, long lastOffset,
                           long maxTimestamp) throws IOException {
        LogSegment segment = maybeRoll(records.sizeInBytes(), firstOffset, lastOffset, maxTimestamp);
        segment.append(records, batches);
        // Per run, not per request: a roll before the next run snapshots the state of exactly the offsets below it.
        for (RecordBatch batch : batches) {
            producerState.update(BatchHeader.of(batch));
        }
        local.publishEnd(lastOffset + 1, segment);
    }

    private LogSegment maybeRoll(int messagesSize, long firstOffset, long lastOffset, long maxTimestamp) {
        RollReason reason = local.rollReason(messagesSize, lastOffset, maxTimestamp);
        if (reason == RollReason.NONE) {
            return local.activeSegment();
        }
        log.debug("Rolling {} at offset {}: {}", topicPartition, firstOffset, reason);
        return rollAt(firstOffset);
    }

    /** A roll at {@code newBaseOffset}, the log end: the first offset of the append that triggered it, if any. */
    LogSegment rollAt(long newBaseOffset) {
        try {
            boolean closesActive = local.activeSegment().size() > 0;
            LogSegment fresh = local.roll(newBaseOffset);
            if (closesActive) {
                // The state of every batch below the new segment: recovery replays from here, not from the log start.
                producerState.takeSnapshot();
                local.flusher().scheduleFlush(newBaseOffset);
            }
            return fresh;
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Roll of " + topicPartition + " failed", e);
        }
    }
}
