package io.tideline.store.log;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.OffsetOutOfRangeException;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.io.FileUtils;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.store.config.LogConfig;
import io.tideline.store.retention.DeletionReason;
import io.tideline.store.retention.RetentionPlan;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.FileBatch;
import io.tideline.store.segment.FileLayer;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import io.tideline.store.segment.LogSegment.RollParams;
import io.tideline.store.segment.LogSegment.RollReason;
import io.tideline.store.segment.LogSegment.TimestampAndOffset;
import io.tideline.store.segment.RecordsSlice;
import io.tideline.store.segment.SegmentSwap;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of one partition's log in its directory, beneath {@link Log}: the segments, the log end and its
 * position in the active segment, roll, reads, flushes and the recovery point ({@link LogFlusher}), truncation and
 * the renames of deleted segments. What the offsets above it mean (start offset, high watermark, producer state, epochs) is
 * {@link Log}'s.
 *
 * <p>Thread-safety: every method that changes the log runs with {@link Log}'s lock held by the caller; the flushes
 * ({@link LogFlusher}) take that lock themselves (the flush a roll schedules runs on the scheduler). Reads and
 * accessors take no lock: segments are published in {@link LogSegments} and the end in volatile fields, each
 * only after the data they describe is in place.
 */
final class LocalLog {
    /** Under {@link Log}'s name: one logger per partition log, whichever layer writes the line. */
    private static final Logger log = LoggerFactory.getLogger(Log.class);

    private final Path dir;
    private final TopicPartition topicPartition;
    private final Time time;
    private final Random random;
    private final SegmentDeleter deleter;
    private final FileLayer files;
    private final LogSegments segments = new LogSegments();
    private final LogFlusher flusher;

    private volatile LogConfig config;
    private volatile long logEndOffset;
    /**
     * The log end with the byte position it has in the active segment, published in one write after
     * the bytes are in the file. Readers bound the active segment by this position rather than by the
     * file's size, which can already include a batch whose offsets are not yet published.
     */
    private volatile EndPosition endPosition;
    private volatile boolean closed;
    /**
     * Counts truncations (under the lock). A flush scheduled by a roll made durable the offsets below
     * the new segment as they were then; after a truncation those offsets may hold other data (or none),
     * so a flush that saw the count change must not move the recovery point.
     */
    private long truncations;
    /** The log end and where it is: the offset, the active segment's base offset and the byte position in it. */
    record EndPosition(long offset, long segmentBaseOffset, int position) {
    }

    /** A step of a deletion between the segments' renames and the directory fsync that makes them durable. */
    @FunctionalInterface
    interface BeforeDirectoryFsync {
        void run() throws IOException;
    }

    LocalLog(Path dir, TopicPartition topicPartition, LogConfig config, Time time, Scheduler scheduler, Random random,
             SegmentDeleter deleter, FileLayer files, ReentrantLock lock, Collection<LogSegment> loaded,
             long logEndOffset, long recoveryPoint) {
        this.dir = dir;
        this.topicPartition = topicPartition;
        this.config = config;
        this.time = time;
        this.random = random;
        this.deleter = deleter;
        this.files = files;
        this.segments.addAll(loaded);
        this.logEndOffset = logEndOffset;
        LogSegment active = segments.activeSegment();
        this.endPosition = new EndPosition(logEndOffset, active.baseOffset(), active.size());
        this.flusher = new LogFlusher(this, topicPartition, time, scheduler, lock, recoveryPoint);
    }

    // ---------------------------------------------------------------- accessors

    Path dir() {
        return dir;
    }

    LogConfig config() {
        return config;
    }

    /** Under the lock. */
    void updateConfig(LogConfig newConfig) {
        this.config = newConfig;
    }

    LogSegments segments() {
        return segments;
    }

    LogSegment activeSegment() {
        return segments.activeSegment();
    }

    long logEndOffset() {
        return logEndOffset;
    }

    EndPosition endPosition() {
        return endPosition;
    }

    /** The fsyncs of this log and the recovery point they move. */
    LogFlusher flusher() {
        return flusher;
    }

    boolean isClosed() {
        return closed;
    }

    /** Under the lock: how many truncations this log has had. */
    long truncations() {
        return truncations;
    }

    // ---------------------------------------------------------------- appends and roll

    /** Publishes a new log end, once the bytes below it are in {@code active}. */
    void publishEnd(long newLogEndOffset, LogSegment active) {
        endPosition = new EndPosition(newLogEndOffset, active.baseOffset(), active.size());
        logEndOffset = newLogEndOffset;
    }

    /** Why an append of {@code messagesSize} bytes up to {@code lastOffset} rolls the active segment, or NONE. */
    RollReason rollReason(int messagesSize, long lastOffset, long maxTimestamp) {
        LogConfig cfg = config;
        return activeSegment().shouldRoll(new RollParams(cfg.segmentBytes(), cfg.segmentMs(), maxTimestamp,
                lastOffset, messagesSize, time.milliseconds()));
    }

    /**
     * Under the lock: closes the non-empty active segment and makes a new one at {@code newBaseOffset} the active
     * segment. An empty active segment is not closed: it is the new segment already, or is replaced by one at
     * {@code newBaseOffset}. The caller flushes the closed segment ({@link LogFlusher#scheduleFlush}).
     */
    LogSegment roll(long newBaseOffset) throws IOException {
        LogSegment active = activeSegment();
        if (active.size() == 0) {
            if (active.baseOffset() == newBaseOffset) {
                return active;
            }
            return replaceEmptyActiveSegment(newBaseOffset);
        }
        active.onBecomeInactiveSegment();
        LogSegment fresh = newSegment(newBaseOffset);
        segments.add(fresh);
        // Readers bound only the new active segment by a position from now on: a closed segment may be
        // rewritten by the log cleaner, and a position in its old bytes would cut its new ones short.
        endPosition = new EndPosition(logEndOffset, newBaseOffset, 0);
        return fresh;
    }

    /** Under the lock: the empty active segment gives way to an empty one at {@code newBaseOffset}. */
    LogSegment replaceEmptyActiveSegment(long newBaseOffset) {
        try {
            LogSegment active = activeSegment();
            segments.remove(active.baseOffset());
            active.closeAndDeleteFiles();
            LogSegment fresh = newSegment(newBaseOffset);
            segments.add(fresh);
            return fresh;
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Replacing the empty segment of " + topicPartition + " failed", e);
        }
    }

    /** Under the lock: a new, empty segment at {@code baseOffset}, added to the log. */
    LogSegment addNewSegment(long baseOffset) throws IOException {
        LogSegment fresh = newSegment(baseOffset);
        segments.add(fresh);
        return fresh;
    }

    private LogSegment newSegment(long baseOffset) throws IOException {
        LogConfig cfg = config;
        return LogSegment.open(dir, baseOffset, LogLoader.activeIndexBytes(cfg), cfg.indexIntervalBytes(),
                LogLoader.jitter(cfg, random), true, time, files);
    }

    // ---------------------------------------------------------------- reads

    /**
     * See {@link Log#read}: the bounds are read once per attempt, the log end first, then the start offset and the
     * high watermark, which {@code offsets} (the log above) keeps.
     */
    FetchDataInfo read(long startOffset, int maxBytes, long maxOffsetExclusive, boolean minOneMessage, Log offsets) {
        for (int attempt = 0; ; attempt++) {
            EndPosition endPos = endPosition;
            long start = offsets.logStartOffset();
            long end = endPos.offset();
            long hw = offsets.highWatermark();
            if (startOffset < start || startOffset > end) {
                throw new OffsetOutOfRangeException("Read from " + topicPartition, startOffset, start, end);
            }
            long bound = Math.min(maxOffsetExclusive, end);
            if (startOffset >= bound || maxBytes < 0) {
                return new FetchDataInfo(startOffset, RecordsSlice.empty(), start, hw, end);
            }
            try {
                RecordsSlice slice = readFromSegments(startOffset, maxBytes, bound, endPos, minOneMessage);
                return new FetchDataInfo(startOffset, slice, start, hw, end);
            } catch (IllegalStateException | TidelineException e) {
                // The segment was deleted and closed between lookup and read: the start offset moved,
                // so the next attempt answers out of range (or reads the surviving segment).
                if (attempt >= 2 || (e instanceof TidelineException te && te.error() != Errors.KAFKA_STORAGE_ERROR)) {
                    throw e;
                }
            } catch (IOException e) {
                throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Read from " + topicPartition + " failed", e);
            } catch (InternalError e) {
                throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Read from " + topicPartition
                        + " faulted on a mapped file: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Whole batches from the one holding {@code startOffset}, up to {@code maxBytes}, never at or past
     * {@code bound}; the active segment is read no further than {@code end}'s position in it.
     */
    private RecordsSlice readFromSegments(long startOffset, int maxBytes, long bound, EndPosition end,
                                          boolean minOneMessage) throws IOException {
        LogSegment segment = segments.floorSegment(startOffset);
        if (segment == null) {
            segment = segments.firstSegment();
        }
        while (segment != null && segment.baseOffset() < bound) {
            LogSegment next = segments.higherSegment(segment.baseOffset());
            int maxPosition = maxPositionFor(segment, next == null ? end.offset() : next.baseOffset(), bound);
            if (segment.baseOffset() == end.segmentBaseOffset()) {
                maxPosition = Math.min(maxPosition, end.position());
            }
            RecordsSlice slice = segment.read(Math.max(startOffset, segment.baseOffset()), maxBytes, maxPosition, minOneMessage);
            if (slice != null) {
                return slice;
            }
            segment = next;
        }
        return RecordsSlice.empty();
    }

    /**
     * Byte position in {@code segment} where data at or past {@code bound} begins; the segment's size
     * when the bound is at or past its end (the common case: no lookup).
     */
    private static int maxPositionFor(LogSegment segment, long nextSegmentBase, long bound) throws IOException {
        int size = segment.size();
        if (bound >= nextSegmentBase) {
            return size;
        }
        FileBatch boundBatch = segment.translateOffset(bound);
        return boundBatch == null ? size : Math.min(size, boundBatch.position());
    }

    /** The first record with timestamp >= {@code timestamp} at or above {@code startOffset}, in any segment. */
    Optional<TimestampAndOffset> findOffsetByTimestamp(long timestamp, long startOffset) throws IOException {
        for (LogSegment segment : segments.values()) {
            if (segment.maxTimestampSoFar() < timestamp && segment != activeSegment()) {
                continue;
            }
            Optional<TimestampAndOffset> found = segment.findOffsetByTimestamp(timestamp, startOffset);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    /** What retention decides on: each segment's offsets, size and largest timestamp, the active one last. */
    List<RetentionPlan.SegmentFacts> segmentFacts() {
        List<RetentionPlan.SegmentFacts> facts = new ArrayList<>(segments.size());
        LogSegment previous = null;
        for (LogSegment segment : segments.values()) {
            if (previous != null) {
                facts.add(new RetentionPlan.SegmentFacts(previous.baseOffset(), segment.baseOffset(), previous.size(),
                        previous.maxTimestampSoFar()));
            }
            previous = segment;
        }
        facts.add(new RetentionPlan.SegmentFacts(previous.baseOffset(), logEndOffset, previous.size(),
                previous.maxTimestampSoFar()));
        return facts;
    }

    // ---------------------------------------------------------------- deletion and truncation

    /**
     * Under the lock, for segments already out of the map: renames their files {@code .deleted}, runs
     * {@code beforeFsync}, fsyncs the directory once and counts them deleted for {@code reason}. Those renamed are
     * unlinked after file.delete.delay.ms (B17), even when a later step failed.
     */
    void deleteSegmentFiles(List<LogSegment> toDelete, DeletionReason reason, BeforeDirectoryFsync beforeFsync) {
        List<LogSegment> renamed = new ArrayList<>();
        try {
            for (LogSegment segment : toDelete) {
                segment.changeFileSuffixes("", LogFileNames.DELETED_SUFFIX, false);
                renamed.add(segment);
            }
            beforeFsync.run();
            // One directory fsync for the whole pass: per file it cost ~2 ms each, over a minute for
            // 10,000 segments (docs/performance.md).
            FileUtils.fsyncDirectory(dir);
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Renaming deleted segments of " + topicPartition + " failed", e);
        } finally {
            deleter.scheduleUnlink(renamed, config.fileDeleteDelayMs(), time.milliseconds());
        }
        deleter.countDeleted(reason, toDelete.size());
    }

    /**
     * Under the lock: the swap of {@link Log#replaceSegments} (docs/behaviours.md B187), once the log checked that
     * no truncation came between. False, changing nothing, when {@code old} is not a run of closed segments still
     * in the log that starts at {@code cleaned}'s base offset.
     */
    boolean replaceSegments(LogSegment cleaned, List<LogSegment> old, SegmentSwap.StepListener listener)
            throws IOException {
        if (old.isEmpty() || old.get(0).baseOffset() != cleaned.baseOffset()) {
            return false;
        }
        for (LogSegment segment : old) {
            if (!segments.contains(segment) || segment == activeSegment()) {
                return false;
            }
        }
        SegmentSwap.commit(cleaned, listener);
        segments.add(cleaned);
        for (LogSegment segment : old.subList(1, old.size())) {
            segments.remove(segment.baseOffset());
        }
        List<LogSegment> renamed = new ArrayList<>();
        try {
            for (LogSegment segment : old) {
                segment.changeFileSuffixes("", LogFileNames.DELETED_SUFFIX, false);
                renamed.add(segment);
                listener.reached(segment.baseOffset() + " old set -> .deleted");
            }
            FileUtils.fsyncDirectory(dir);
        } finally {
            deleter.scheduleUnlink(renamed, config.fileDeleteDelayMs(), time.milliseconds());
        }
        SegmentSwap.complete(cleaned, listener);
        return true;
    }

    /**
     * Under the lock, the first step of a truncation to {@code offset}: counts it (see {@link #truncations}) and
     * deletes the segments above it at once.
     */
    void removeSegmentsAbove(long offset) throws IOException {
        truncations++;
        for (LogSegment segment : segments.segmentsAbove(offset)) {
            if (segment.baseOffset() >= offset) {
                segments.remove(segment.baseOffset());
                segment.closeAndDeleteFiles();
                deleter.unlinkedNow(segment, time.milliseconds());
            }
        }
    }

    /** Under the lock: cuts the active segment at {@code offset} and publishes that as the log end. */
    void truncateActiveSegmentTo(long offset) throws IOException {
        LogSegment active = activeSegment();
        active.truncateTo(offset);
        active.resizeIndexes(config.segmentIndexBytes());
        publishEnd(active.readNextOffset(), active);
    }

    /**
     * Under the lock, the first step of a full truncation: counts it and takes every segment out, renamed
     * {@code .deleted} with one directory fsync and unlinked after file.delete.delay.ms. The log has no segment
     * until the caller adds one ({@link #addNewSegment}).
     */
    void removeAllSegments() throws IOException {
        truncations++;
        List<LogSegment> all = segments.snapshot();
        segments.clear();
        for (LogSegment segment : all) {
            segment.changeFileSuffixes("", LogFileNames.DELETED_SUFFIX, false);
        }
        FileUtils.fsyncDirectory(dir);
        deleter.scheduleUnlink(all, config.fileDeleteDelayMs(), time.milliseconds());
    }

    // ---------------------------------------------------------------- close

    /**
     * Under the lock: marks the log closed and releases every segment's files; a flush scheduled by a roll
     * finds the log closed and does nothing.
     */
    void closeSegments() {
        closed = true;
        for (LogSegment segment : segments.values()) {
            segment.close();
        }
    }

    /** Under the lock: releases every file without flushing or trimming, as a crash would. */
    void abandon() {
        closed = true;
        for (LogSegment segment : segments.values()) {
            segment.abandon();
        }
    }

    /** Under the lock: closes and unlinks every segment's files at once. */
    void closeAndDeleteSegments() throws IOException {
        closed = true;
        for (LogSegment segment : segments.values()) {
            segment.closeAndDeleteFiles();
            deleter.unlinkedNow(segment, time.milliseconds());
        }
        segments.clear();
    }

    /** KAFKA_STORAGE_ERROR when the log is closed or an asynchronous flush failed. */
    void ensureOpen() {
        if (closed) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Log " + topicPartition + " is closed");
        }
        flusher.ensureNoAsyncFlushFailure();
    }


}
