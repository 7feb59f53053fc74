package io.tideline.store.log;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.OffsetOutOfRangeException;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.store.config.LogConfig;
import io.tideline.store.epoch.EpochEndOffset;
import io.tideline.store.epoch.LeaderEpochCache;
import io.tideline.store.producer.ProducerStateEntry;
import io.tideline.store.producer.ProducerStateManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.retention.RetentionPlan;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.FileLayer;
import io.tideline.store.segment.LogSegment;
import io.tideline.store.segment.LogSegment.TimestampAndOffset;
import io.tideline.store.segment.SegmentSwap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's log on one replica: an ordered map of segments, the last of which is active.
 *
 * <p>Offsets: {@code logStartOffset <= highWatermark <= logEndOffset}. The start offset only moves
 * forward (retention, DeleteRecords, a leader's start offset); nothing at or above the high watermark
 * is ever deleted. Reads outside [logStartOffset, logEndOffset] are OFFSET_OUT_OF_RANGE even when the
 * bytes are still on disk.
 *
 * <p>Layers: this class is the log's face and keeps the high watermark, producer state, leader epochs and the
 * cleaner's hooks. Beneath it, all under its lock: {@link LocalLog} keeps the files (segments in {@link LogSegments},
 * roll, reads, truncation; flushes and the recovery point in {@link LogFlusher}), {@link LogAppender} the write
 * path, and {@link LogStartOffset} the start offset with what moves it (DeleteRecords, retention).
 *
 * <p>Thread-safety: a single writer at a time (appends, roll, deletion, truncation, config changes
 * take {@link #lock}); reads take no lock and never block appends. They see a consistent view because
 * segments are published in a concurrent map and offsets in volatile fields, each updated only after
 * the data they describe is in place.
 *
 * <p>Durability: the recovery point is the offset below which everything is known to be on disk (see
 * {@link LogFlusher}).
 */
public final class Log implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Log.class);

    private final TopicPartition topicPartition;
    private final Time time;
    private final ReentrantLock lock = new ReentrantLock();
    private final LocalLog local;
    private final LogFlusher flusher;
    private final LogAppender appender;
    private final LogStartOffset logStart;
    private final int recoveredSegmentsOnLoad;
    private final LeaderEpochCache epochCache;
    /**
     * The idempotent producers' state (docs/kafka-protocol.md "Idempotent producers"): checked on leader
     * appends, updated by every append run after its bytes are in the segment, snapshotted at each roll
     * and at close, rebuilt on open and after a truncation. Guarded by {@link #lock}.
     */
    private final ProducerStateManager producerState;

    private volatile long highWatermark;
    /** True until a replication layer takes the high watermark over: a lone replica's HW is its end. */
    private volatile boolean highWatermarkFollowsLogEnd = true;
    /**
     * The high watermark was read from the replication-offset-checkpoint at open. Without one (a crash before
     * the first checkpoint of this partition) the log end stands in for it only while no replication owns it.
     */
    private final boolean highWatermarkCheckpointed;

    private Log(Path dir, TopicPartition topicPartition, LogConfig config, Time time, Scheduler scheduler, Random random,
                SegmentDeleter deleter, FileLayer files, LogLoader.LoadedLog loaded, long highWatermarkCheckpoint) {
        this.topicPartition = topicPartition;
        this.time = time;
        this.local = new LocalLog(dir, topicPartition, config, time, scheduler, random, deleter, files, lock,
                loaded.segments().values(), loaded.logEndOffset(), loaded.recoveryPoint());
        this.flusher = local.flusher();
        this.recoveredSegmentsOnLoad = loaded.recoveredSegments();
        this.epochCache = loaded.epochCache();
        this.producerState = new ProducerStateManager(dir, topicPartition, time);
        this.appender = new LogAppender(topicPartition, time, local, producerState, epochCache);
        this.logStart = new LogStartOffset(this, loaded.logStartOffset(), time, lock, local, producerState, epochCache);
        this.highWatermarkCheckpointed = highWatermarkCheckpoint >= 0;
        this.highWatermark = clampHighWatermark(highWatermarkCheckpoint < 0 ? local.logEndOffset() : highWatermarkCheckpoint);
    }

    /**
     * Opens (or creates) the log in {@code dir}, named {@code <topic>-<partition>}.
     *
     * @param scheduler                runs the flush of each closed segment after a roll; not owned
     * @param logStartOffsetCheckpoint the start offset last checkpointed, 0 if none
     * @param recoveryPointCheckpoint  offsets below it were flushed before the stop; 0 if unknown
     * @param highWatermarkCheckpoint  the last checkpointed high watermark, or -1 to use the log end
     * @param hadCleanShutdown         the log dir's clean-shutdown marker was present: skip recovery
     */
    public static Log open(Path dir, LogConfig config, Time time, Scheduler scheduler, Random random,
                           SegmentDeleter deleter, long logStartOffsetCheckpoint, long recoveryPointCheckpoint,
                           long highWatermarkCheckpoint, boolean hadCleanShutdown) throws IOException {
        return open(dir, config, time, scheduler, random, deleter, logStartOffsetCheckpoint, recoveryPointCheckpoint,
                highWatermarkCheckpoint, hadCleanShutdown, FileLayer.REAL);
    }

    /** As {@link #open(Path, LogConfig, Time, Scheduler, Random, SegmentDeleter, long, long, long, boolean)}, the
     * segments' files reached through {@code files}. */
    public static Log open(Path dir, LogConfig config, Time time, Scheduler scheduler, Random random,
                           SegmentDeleter deleter, long logStartOffsetCheckpoint, long recoveryPointCheckpoint,
                           long highWatermarkCheckpoint, boolean hadCleanShutdown, FileLayer files) throws IOException {
        TopicPartition tp = TopicPartition.fromDirectoryName(dir.getFileName().toString());
        LogLoader.LoadedLog loaded = LogLoader.load(dir, config, time, random, logStartOffsetCheckpoint,
                recoveryPointCheckpoint, hadCleanShutdown, files);
        Log opened = new Log(dir, tp, config, time, scheduler, random, deleter, files, loaded, highWatermarkCheckpoint);
        try {
            // After an unclean stop only a snapshot at or below the recovery point describes data known to be
            // on disk; after a clean one the snapshot close() wrote at the log end does.
            long end = opened.logEndOffset();
            long snapshotLimit = hadCleanShutdown ? end : Math.min(recoveryPointCheckpoint, end);
            opened.producerState.reload(opened.logStartOffset(), end, snapshotLimit,
                    new SegmentBatchSource(opened.local.segments()));
        } catch (IOException | RuntimeException e) {
            opened.abandon();
            throw e;
        }
        log.info("Loaded {}: {} segments, start offset {}, end offset {}, high watermark {}{}", tp,
                opened.numberOfSegments(), opened.logStartOffset(), opened.logEndOffset(), opened.highWatermark,
                loaded.recoveredSegments() > 0 ? ", recovered " + loaded.recoveredSegments() + " segments (truncated "
                        + loaded.truncatedBytes() + " bytes)" : "");
        return opened;
    }

    // ---------------------------------------------------------------- accessors

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public Path dir() {
        return local.dir();
    }

    public LogConfig config() {
        return local.config();
    }

    public long logStartOffset() {
        return logStart.value();
    }

    public long logEndOffset() {
        return local.logEndOffset();
    }

    public long highWatermark() {
        return highWatermark;
    }

    public long recoveryPoint() {
        return flusher.recoveryPoint();
    }

    public int numberOfSegments() {
        return local.segments().size();
    }

    public int recoveredSegmentsOnLoad() {
        return recoveredSegmentsOnLoad;
    }

    /** Bytes of all segments' {@code .log} files, the figure retention.bytes is compared with. */
    public long size() {
        return local.segments().sizeInBytes();
    }

    /** A snapshot of the segments in offset order (the last is the active one). */
    public List<LogSegment> segments() {
        return local.segments().snapshot();
    }

    public LogSegment activeSegment() {
        return local.activeSegment();
    }

    public void updateConfig(LogConfig newConfig) {
        lock.lock();
        try {
            local.updateConfig(newConfig);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- appends

    /**
     * Leader append: validates every batch, assigns offsets from the log end, stamps
     * {@code leaderEpoch} and the max timestamp. All or nothing: a bad batch fails the whole call
     * with CORRUPT_MESSAGE, INVALID_RECORD or MESSAGE_TOO_LARGE and nothing is written.
     */
    public LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch) {
        return appendAsLeader(validateForLeader(records), leaderEpoch);
    }

    /**
     * The checks of a leader append that read only the request's bytes: framing, CRCs and the walk of every record,
     * decompression included, with the errors of {@link #appendAsLeader(MemoryRecords, int)}. It takes no lock, so
     * callers run it before they take theirs (B122): a large or compressed batch costs its own request's time, not
     * every append's. The walk uses max.message.bytes as this log's config has it when the call starts, and so do
     * the key rule of a compacted topic (B215) and the re-encoding of batches in the topic's compression.type (B210).
     */
    public ValidatedRecords validateForLeader(MemoryRecords records) {
        LogConfig walkConfig = local.config();
        List<RecordBatch> batches = LogValidator.validateFraming(records, walkConfig);
        ValidatedRecords walked = new ValidatedRecords(records, batches,
                LogValidator.walkRecords(batches, walkConfig, topicPartition));
        // Re-encoding in the topic's compression.type is costly too, so it runs here, outside the locks (B210).
        return LogRecompression.toTopicCodec(walked, walkConfig);
    }

    /** {@link #appendAsLeader(MemoryRecords, int)} for records that {@link #validateForLeader} has checked. */
    public LogAppendInfo appendAsLeader(ValidatedRecords validated, int leaderEpoch) {
        LogAppendInfo info = appendAsLeaderLocked(validated, leaderEpoch);
        flusher.maybeFlushAfterAppend();
        return info;
    }

    private LogAppendInfo appendAsLeaderLocked(ValidatedRecords validated, int leaderEpoch) {
        lock.lock();
        try {
            local.ensureOpen();
            return followedByHighWatermark(appender.appendAsLeader(validated, leaderEpoch, logStart.value()));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Follower append: keeps the leader's offsets and epochs. The first batch must start at the log end
     * (no gap, no overlap), except that an empty log accepts a batch that contains its end offset.
     */
    public LogAppendInfo appendAsFollower(MemoryRecords records) {
        LogAppendInfo info = appendAsFollowerLocked(records);
        flusher.maybeFlushAfterAppend();
        return info;
    }

    private LogAppendInfo appendAsFollowerLocked(MemoryRecords records) {
        lock.lock();
        try {
            local.ensureOpen();
            return followedByHighWatermark(appender.appendAsFollower(records, logStart.value()));
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock, after an append: a lone replica's high watermark is its log end. */
    private LogAppendInfo followedByHighWatermark(LogAppendInfo info) {
        if (!info.duplicate() && highWatermarkFollowsLogEnd) {
            highWatermark = local.logEndOffset();
        }
        return info;
    }

    /**
     * Closes the active segment and starts a new one at {@code newBaseOffset}, which must be the log
     * end offset (an empty active segment is not closed: it is the new segment already).
     */
    public LogSegment roll(long newBaseOffset) {
        lock.lock();
        try {
            local.ensureOpen();
            if (newBaseOffset != local.logEndOffset()) {
                // A new segment starts at the next offset: anything else would leave a gap or an overlap.
                throw new IllegalArgumentException("cannot roll " + topicPartition + " at " + newBaseOffset
                        + ": its end offset is " + local.logEndOffset());
            }
            return appender.rollAt(newBaseOffset);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- reads

    /**
     * Reads whole batches from the one holding {@code startOffset}, up to {@code maxBytes} (at least
     * one batch when {@code minOneMessage}) and never at or past {@code maxOffsetExclusive} (the high
     * watermark for consumers, the log end for followers).
     *
     * @throws OffsetOutOfRangeException when startOffset is below the log start offset or above the
     *                                   log end offset; it carries both bounds
     */
    public FetchDataInfo read(long startOffset, int maxBytes, long maxOffsetExclusive, boolean minOneMessage) {
        return local.read(startOffset, maxBytes, maxOffsetExclusive, minOneMessage, this);
    }

    /**
     * The first record with timestamp >= {@code timestamp} at or above the log start offset and below
     * the high watermark (what ListOffsets by time answers), or empty if there is none.
     */
    public Optional<TimestampAndOffset> fetchOffsetByTimestamp(long timestamp) {
        long start = logStart.value();
        long hw = highWatermark;
        try {
            Optional<TimestampAndOffset> found = local.findOffsetByTimestamp(timestamp, start);
            return found.isPresent() && found.get().offset() < hw ? found : Optional.empty();
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Lookup by time in " + topicPartition + " failed", e);
        }
    }

    // ---------------------------------------------------------------- leader epochs

    /** The latest leader epoch that wrote to this log, if any. */
    public Optional<Integer> latestEpoch() {
        return epochCache.latestEpoch();
    }

    /**
     * Where {@code epoch} ends in this log (OffsetsForLeaderEpoch): the largest epoch at or below it and
     * the offset past its last record; a follower truncates there before fetching from a new leader.
     */
    public EpochEndOffset endOffsetForEpoch(int epoch) {
        return epochCache.endOffsetFor(epoch, local.logEndOffset());
    }

    /** The (epoch, start offset) entries, as in the leader-epoch-checkpoint file. */
    public List<io.tideline.store.checkpoint.EpochEntry> leaderEpochEntries() {
        return epochCache.entries();
    }

    // ---------------------------------------------------------------- idempotent producers

    /** A copy of every producer's state on this replica (DescribeProducers), in producer id order. */
    public List<ProducerStateEntry> activeProducers() {
        lock.lock();
        try {
            return producerState.activeProducers();
        } finally {
            lock.unlock();
        }
    }

    /** producer.id.max.entries.per.partition for this log's leader appends (docs/behaviours.md B153). */
    public void setMaxProducerIds(int maxProducerIds) {
        lock.lock();
        try {
            producerState.setMaxProducerIds(maxProducerIds);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Forgets the producer ids idle for {@code expirationMs} or more (producer.id.expiration.ms), counted from
     * this replica's last write of each by its clock (docs/behaviours.md B151); returns how many. A later batch
     * of one starts afresh.
     */
    public int removeExpiredProducers(long nowMs, long expirationMs) {
        lock.lock();
        try {
            return local.isClosed() ? 0 : producerState.removeExpiredProducers(nowMs, expirationMs);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- high watermark

    /**
     * Sets the high watermark (replication layer), clamped to [logStartOffset, logEndOffset]; from now
     * on it no longer follows the log end by itself.
     */
    public long updateHighWatermark(long newHighWatermark) {
        lock.lock();
        try {
            highWatermarkFollowsLogEnd = false;
            highWatermark = clampHighWatermark(newHighWatermark);
            return highWatermark;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A replication layer owns the high watermark from now on: it stays where it is until
     * {@link #updateHighWatermark} moves it, however far appends take the log end. If no checkpointed high
     * watermark was loaded, it starts at the log start offset, as Kafka's missing checkpoint entry means 0:
     * the log end would claim committed whatever tail the replica had not yet had confirmed (after a crash, a
     * divergent tail the new leader never had), until the truncation took it back (docs/behaviours.md B77).
     */
    public void stopFollowingLogEndWithHighWatermark() {
        lock.lock();
        try {
            if (highWatermarkFollowsLogEnd && !highWatermarkCheckpointed) {
                highWatermark = logStart.value();
            }
            highWatermarkFollowsLogEnd = false;
        } finally {
            lock.unlock();
        }
    }

    /** For a log without replication: the high watermark is the log end (the default). */
    public void followLogEndWithHighWatermark() {
        lock.lock();
        try {
            highWatermarkFollowsLogEnd = true;
            highWatermark = local.logEndOffset();
        } finally {
            lock.unlock();
        }
    }

    private long clampHighWatermark(long value) {
        return Math.max(logStart.value(), Math.min(value, local.logEndOffset()));
    }

    // ---------------------------------------------------------------- DeleteRecords and start offset

    /**
     * DeleteRecords on this log, as the beforeOffset table of docs/behaviours.md B23:
     * <ul>
     *   <li>N > 0: records below N become unreadable at once (the start offset becomes N, even inside
     *       a segment); answers the new low watermark.</li>
     *   <li>-1: N is the high watermark.</li>
     *   <li>0: a successful no-op answering the current low watermark.</li>
     *   <li>other negatives, or N above the high watermark: OFFSET_OUT_OF_RANGE.</li>
     *   <li>N at or below the current start offset: the current low watermark, unchanged.</li>
     *   <li>a log whose cleanup.policy lacks delete: POLICY_VIOLATION, nothing changed (B221).</li>
     * </ul>
     * Closed segments wholly below the new start offset are deleted right away (renamed now, unlinked
     * after file.delete.delay.ms); a segment that straddles it, or the active one, stays whole.
     */
    public DeleteRecordsResult deleteRecords(long beforeOffset) {
        return logStart.deleteRecords(beforeOffset);
    }

    /** Told each time the start offset moved forward by DeleteRecords or a follower's adoption of its leader's. */
    @FunctionalInterface
    public interface LogStartOffsetListener {
        /** Called outside the log's lock, before the call that moved the offset returns. */
        void logStartOffsetMoved(Log log);
    }

    /**
     * Who persists a moved start offset (the LogManager writes its log dir's log-start-offset checkpoint). A
     * start offset moved inside a segment is kept by that checkpoint alone: the segment stays, so a crash before
     * the periodic checkpoint would bring the deleted records back and move the start offset backwards.
     */
    public void setLogStartOffsetListener(LogStartOffsetListener listener) {
        logStart.setListener(listener);
    }

    /**
     * Moves the start offset forward (never back, never past the high watermark) and deletes the closed
     * segments that fall wholly below it. Used by DeleteRecords and by followers adopting the leader's
     * start offset. Returns whether it moved.
     */
    public boolean maybeIncrementLogStartOffset(long newLogStartOffset, String reason) {
        return logStart.maybeIncrement(newLogStartOffset, reason);
    }

    // ---------------------------------------------------------------- retention

    /**
     * One retention pass: closed segments wholly below the log start offset, then the oldest while the
     * log exceeds retention.bytes, then those whose largest timestamp is older than retention.ms. Only
     * a prefix of closed segments wholly below the high watermark is ever taken; the active segment
     * stays whatever its age. Returns the number of segments deleted. What it deletes is decided by
     * {@link RetentionPlan}, the same evaluation {@link #retentionView} shows an operator.
     */
    public int deleteOldSegments() {
        return logStart.deleteOldSegments();
    }

    /**
     * What a retention pass at {@code passAtMs} would decide about each segment, with the offsets and
     * limits it decides on, read under the lock in one consistent view. Nothing is deleted. A segment
     * the view calls due is one a pass at that instant deletes, if the log does not change before.
     */
    public RetentionView retentionView(long passAtMs) {
        return logStart.retentionView(passAtMs);
    }

    /** See {@link #retentionView}. */
    public record RetentionView(long logStartOffset, long highWatermark, long logEndOffset, long retentionMs,
                                long retentionBytes, long fileDeleteDelayMs, RetentionPlan plan) {
    }

    // ---------------------------------------------------------------- compaction (the log cleaner's hooks)

    /**
     * What the log cleaner decides on, read under the lock in one consistent view: the closed segments in
     * offset order, the offsets that bound a cleaning (docs/behaviours.md B181) and the last offset of each
     * active idempotent producer's last batch (B184).
     */
    public CleanerView cleanerView() {
        lock.lock();
        try {
            local.ensureOpen();
            List<LogSegment> all = local.segments().snapshot();
            Map<Long, Long> lastOffsets = new java.util.HashMap<>();
            for (ProducerStateEntry producer : producerState.activeProducers()) {
                lastOffsets.put(producer.producerId(), producer.lastOffset());
            }
            return new CleanerView(List.copyOf(all.subList(0, all.size() - 1)), activeSegment().baseOffset(),
                    logStart.value(), highWatermark, local.logEndOffset(), local.config(), Map.copyOf(lastOffsets),
                    local.truncations());
        } finally {
            lock.unlock();
        }
    }

    /**
     * See {@link #cleanerView()}. {@code closedSegments} excludes the active segment; {@code truncations} is the
     * log's count of truncations when the view was taken (see {@link #replaceSegments}).
     */
    public record CleanerView(List<LogSegment> closedSegments, long activeBaseOffset, long logStartOffset,
                              long highWatermark, long logEndOffset, LogConfig config,
                              Map<Long, Long> lastOffsetByProducer, long truncations) {
    }

    /**
     * Puts {@code cleaned} (written as {@code .cleaned}, flushed) in place of {@code old}, consecutive closed
     * segments starting at its base offset, by {@link SegmentSwap}'s protocol (docs/behaviours.md B187): the
     * swap is committed, the map changes (a reader sees either set, both hold the same offsets), the old
     * files are renamed {@code .deleted} and unlinked after file.delete.delay.ms (B17), and the swap takes its
     * final names. Returns false, changing nothing, when any of {@code old} is no longer in the log
     * (retention, DeleteRecords, a truncation or a close took it meanwhile, B189), or when the log was
     * truncated at all since {@code view} was taken: a truncation into a closed segment makes it the active
     * segment, and appends and a roll close it again, the same object holding other records than the ones
     * cleaned. The caller drops the cleaned files.
     */
    public boolean replaceSegments(CleanerView view, LogSegment cleaned, List<LogSegment> old,
                                   SegmentSwap.StepListener listener) {
        lock.lock();
        try {
            if (local.isClosed() || local.truncations() != view.truncations()) {
                return false;
            }
            return local.replaceSegments(cleaned, old, listener);
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Swapping in a cleaned segment of "
                    + topicPartition + " failed", e);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- truncation (followers)

    /** Drops every record at or above {@code offset} (a follower discarding a divergent tail). */
    public void truncateTo(long offset) {
        lock.lock();
        try {
            local.ensureOpen();
            if (offset >= local.logEndOffset()) {
                return;
            }
            if (offset <= logStart.value() && offset <= local.segments().firstBaseOffset()) {
                truncateFullyAndStartAt(offset);
                return;
            }
            local.removeSegmentsAbove(offset);
            epochCache.truncateFromEnd(offset);
            local.truncateActiveSegmentTo(offset);
            long end = local.logEndOffset();
            highWatermark = Math.min(highWatermark, end);
            flusher.setRecoveryPoint(Math.min(flusher.recoveryPoint(), end));
            // The dropped batches may have been any producer's latest: rebuilt from a snapshot at or below the
            // new end (those above it are deleted) and the batches that remain.
            producerState.reload(logStart.value(), end, end, new SegmentBatchSource(local.segments()));
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Truncation of " + topicPartition + " failed", e);
        } finally {
            lock.unlock();
        }
    }

    /** Deletes everything and restarts the log, empty, at {@code newOffset}. */
    public void truncateFullyAndStartAt(long newOffset) {
        lock.lock();
        try {
            local.ensureOpen();
            local.removeAllSegments();
            epochCache.clear();
            producerState.truncateFullyAndStartAt(newOffset);
            LogSegment fresh = local.addNewSegment(newOffset);
            logStart.resetTo(newOffset);
            local.publishEnd(newOffset, fresh);
            highWatermark = newOffset;
            flusher.setRecoveryPoint(newOffset);
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Truncation of " + topicPartition + " failed", e);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- flush and close

    /**
     * flush.ms (B171): fsyncs the log to its end when its last flush is at least flush.ms before
     * {@code nowMs}; the log flusher calls this every log.flush.scheduler.interval.ms. Returns whether a
     * flush was due (one with nothing new to fsync does nothing).
     */
    public boolean flushIfDue(long nowMs) {
        return flusher.flushIfDue(nowMs);
    }

    /** When an fsync last moved the recovery point, or the log was opened (Kafka's lastFlushTime). */
    public long lastFlushTimeMs() {
        return flusher.lastFlushTimeMs();
    }

    /** Fsyncs every segment holding offsets below the log end and moves the recovery point there. */
    public void flush() {
        flusher.flush();
    }

    /** Flushes, trims the active indexes and releases every file. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (local.isClosed()) {
                return;
            }
            try {
                flush();
                // The state at the log end: a clean restart loads it and replays nothing.
                producerState.takeSnapshot();
            } catch (IOException e) {
                throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Producer state snapshot of " + topicPartition
                        + " failed", e);
            } finally {
                // Released even when the flush failed (the error goes to the caller, which then
                // leaves no clean-shutdown marker): a flush scheduled by a roll finds the log closed.
                local.closeSegments();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Releases every file without flushing or trimming, as a crash would (tests and benchmarks). */
    public void abandon() {
        lock.lock();
        try {
            local.abandon();
        } finally {
            lock.unlock();
        }
    }

    /** Closes and removes every file of this log (the caller removes the directory). */
    public void closeAndDelete() {
        lock.lock();
        try {
            local.closeAndDeleteSegments();
            producerState.deleteAllSnapshots();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            lock.unlock();
        }
    }

    public boolean isClosed() {
        return local.isClosed();
    }

    @Override
    public String toString() {
        return "Log(" + topicPartition + ", start=" + logStart.value() + ", hw=" + highWatermark + ", end=" + logEndOffset()
                + ", segments=" + numberOfSegments() + ")";
    }
}
