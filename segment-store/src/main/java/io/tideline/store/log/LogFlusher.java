package io.tideline.store.log;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.io.FileUtils;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fsyncs of one {@link LocalLog} and the recovery point they move.
 *
 * <p>Durability: the recovery point is the offset below which everything is known to be on disk;
 * after an unclean stop the loader validates batch by batch from the segment holding it. It moves
 * only after an fsync of everything below it completed: in {@link #flush()}, and in the flush a
 * roll schedules on the {@link Scheduler} (Kafka's "flush-log" task) instead of fsyncing on the
 * append path. See {@link #flushUptoOffsetExclusive}. flush.messages and flush.ms add fsyncs to the log
 * end, after an append and from the log flusher (docs/behaviours.md B170-B172).
 *
 * <p>Thread-safety: the fsyncs run without the log's lock (it is {@link Log}'s, shared); the recovery point
 * moves under it.
 */
final class LogFlusher {
    /** Under {@link Log}'s name: one logger per partition log, whichever layer writes the line. */
    private static final Logger log = LoggerFactory.getLogger(Log.class);

    private final LocalLog local;
    private final TopicPartition topicPartition;
    private final Time time;
    private final Scheduler scheduler;
    private final ReentrantLock lock;
    private volatile long recoveryPoint;
    /** When an fsync last moved the recovery point (or the log was opened): what flush.ms measures (B171). */
    private volatile long lastFlushTimeMs;
    /**
     * An asynchronous flush failed with an I/O error: the data below the recovery point may never
     * reach the disk (after a failed fsync the kernel may drop the dirty pages). Appends, rolls and
     * flushes fail with KAFKA_STORAGE_ERROR from then on, as the failed fsync would have on the
     * append path, so the broker takes the log dir offline.
     */
    private volatile IOException asyncFlushFailure;

    LogFlusher(LocalLog local, TopicPartition topicPartition, Time time, Scheduler scheduler, ReentrantLock lock,
               long recoveryPoint) {
        this.local = local;
        this.topicPartition = topicPartition;
        this.time = time;
        this.scheduler = scheduler;
        this.lock = lock;
        this.recoveryPoint = recoveryPoint;
        this.lastFlushTimeMs = time.milliseconds();
    }

    /**
     * Under the lock, after a roll to {@code newBaseOffset}: the closed segment is fsynced on the scheduler, not
     * here: an fsync of a full segment takes milliseconds to seconds and every append of this log would wait
     * behind the lock. The recovery point stays until that flush completed ({@link #flushUptoOffsetExclusive}).
     */
    void scheduleFlush(long newBaseOffset) {
        long truncationsAtRoll = local.truncations();
        try {
            scheduler.scheduleOnce("flush-log", () -> flushUptoOffsetExclusive(newBaseOffset, truncationsAtRoll), 0L);
        } catch (RejectedExecutionException e) {
            // The scheduler is shutting down while this log still takes appends: flush here instead.
            flushUptoOffsetExclusive(newBaseOffset, truncationsAtRoll);
        }
    }

    /**
     * flush.messages (B170): once the messages past the recovery point reach it, the append fsyncs the log
     * to its end before it returns, so the caller answers only for records on disk. The fsync runs after the
     * append released the lock (appends of other producers go on meanwhile); a failed fsync fails this append
     * with KAFKA_STORAGE_ERROR and every later one, as a failed fsync after a roll does.
     */
    void maybeFlushAfterAppend() {
        if (local.logEndOffset() - recoveryPoint >= local.config().flushMessages()) {
            flushToEndWithoutLock();
        }
    }

    /**
     * Fsyncs up to the log end read under the lock, with the fsyncs outside it: every byte below that end
     * was written before they start. Throws KAFKA_STORAGE_ERROR if this or an earlier flush failed.
     */
    private void flushToEndWithoutLock() {
        long end;
        long truncationsNow;
        lock.lock();
        try {
            if (local.isClosed()) {
                return;
            }
            end = local.logEndOffset();
            truncationsNow = local.truncations();
        } finally {
            lock.unlock();
        }
        flushUptoOffsetExclusive(end, truncationsNow);
        ensureNoAsyncFlushFailure();
    }

    /** See {@link Log#flushIfDue}. */
    boolean flushIfDue(long nowMs) {
        if (local.isClosed() || nowMs - lastFlushTimeMs < local.config().flushMs()) {
            return false;
        }
        flushToEndWithoutLock();
        return true;
    }

    /** Fsyncs every segment holding offsets below the log end and moves the recovery point there. */
    void flush() {
        lock.lock();
        try {
            if (local.isClosed()) {
                return;
            }
            ensureNoAsyncFlushFailure();
            long end = local.logEndOffset();
            flushSegments(recoveryPoint, Long.MAX_VALUE);
            recoveryPoint = end;
            lastFlushTimeMs = time.milliseconds();
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Flush of " + topicPartition + " failed", e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The flush a roll schedules (Kafka's UnifiedLog.flushUptoOffsetExclusive): fsyncs the segments
     * holding offsets from the recovery point up to {@code offset} (the new segment's base), then
     * moves the recovery point to it. The fsyncs run without the log's lock, so appends go on.
     *
     * <p>Why this is safe:
     * <ul>
     *   <li>The recovery point (and so recovery-point-offset-checkpoint) moves only after the fsyncs
     *       returned, and only forwards. A crash before that leaves it where it was, and the loader
     *       validates batch by batch from the segment holding it, the closed segment included.</li>
     *   <li>Everything below {@code offset} lies in closed segments, which take no more appends, or, when an
     *       append or the log flusher calls this (B170, B171), below the log end it read under the lock, so
     *       every byte below it was written before the fsync starts. Only a truncation can change them,
     *       and a truncation since the roll (counted in {@link LocalLog#truncations}) voids this flush: it keeps
     *       the recovery point where the truncation put it.</li>
     *   <li>A segment deleted meanwhile (retention, DeleteRecords, truncation) is skipped or flushed
     *       harmlessly: its offsets are below the new log start offset or gone, and its files were
     *       renamed with a directory fsync or unlinked. A log closed meanwhile flushed itself in
     *       {@link Log#close()}; this task then does nothing.</li>
     *   <li>Segments created since the last flush also need their directory entries on disk, so the
     *       directory is fsynced with them (as Kafka's LocalLog.flush does).</li>
     * </ul>
     */
    void flushUptoOffsetExclusive(long offset, long truncationsAtRoll) {
        if (local.isClosed() || offset <= recoveryPoint || asyncFlushFailure != null) {
            // Closed (close() flushed everything), or a later flush already covered it, or an fsync failed:
            // after that a later fsync can succeed without the lost pages, so the recovery point stays.
            return;
        }
        try {
            flushSegments(recoveryPoint, offset);
        } catch (IOException | UncheckedIOException e) {
            if (local.isClosed()) {
                // Deleted or closed under the flush (its directory may be gone): nothing left to flush.
                log.debug("Flush of {} up to {} stopped: the log was closed", topicPartition, offset);
                return;
            }
            asyncFlushFailure = e instanceof UncheckedIOException u ? u.getCause() : (IOException) e;
            log.error("Flush of {} up to offset {} failed; the log takes no more writes", topicPartition, offset, e);
            return;
        }
        lock.lock();
        try {
            if (!local.isClosed() && local.truncations() == truncationsAtRoll && offset > recoveryPoint) {
                recoveryPoint = offset;
                lastFlushTimeMs = time.milliseconds();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Fsyncs the segments holding offsets in [from, to), and the directory if one of them was created
     * at or after {@code from} (a new file's directory entry is not durable with its data). Runs with or
     * without the lock: segments deleted meanwhile are skipped by {@link LogSegment#flush()}.
     */
    private void flushSegments(long from, long to) throws IOException {
        boolean created = false;
        for (LogSegment segment : local.segments().holding(from, to)) {
            if (segment.flush() && segment.baseOffset() >= from) {
                created = true;
            }
        }
        if (created) {
            try {
                FileUtils.fsyncDirectory(local.dir());
            } catch (NoSuchFileException e) {
                if (!local.isClosed()) {
                    throw e;
                }
            }
        }
    }

    long recoveryPoint() {
        return recoveryPoint;
    }

    /** Under the lock. */
    void setRecoveryPoint(long offset) {
        recoveryPoint = offset;
    }

    long lastFlushTimeMs() {
        return lastFlushTimeMs;
    }

    void ensureNoAsyncFlushFailure() {
        IOException failure = asyncFlushFailure;
        if (failure != null) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "A flush of " + topicPartition + " failed: "
                    + failure.getMessage(), failure);
        }
    }
}
