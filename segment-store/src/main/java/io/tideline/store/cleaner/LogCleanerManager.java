package io.tideline.store.cleaner;

import io.tideline.common.TopicPartition;
import io.tideline.store.checkpoint.OffsetCheckpointFile;
import io.tideline.store.log.Log;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which compacted log is cleaned next, which are being cleaned, and where each one's dirty section starts
 * (docs/behaviours.md B180, B189, B190): the {@code cleaner-offset-checkpoint} of every log dir (Kafka's name
 * and format, written tmp + fsync + rename), and the in-progress states that keep a cleaning and a deletion
 * or truncation of the same log apart. A log is IN_PROGRESS while a cleaner thread has it, ABORTED when a
 * deletion or truncation asked it to stop, PAUSED (counted) while deletions or truncations hold it.
 *
 * <p>Thread-safety: every method takes the manager's monitor; an abort waits on it, bounded by the real
 * clock, for the cleaning to stop.
 */
public final class LogCleanerManager {
    private static final Logger log = LoggerFactory.getLogger(LogCleanerManager.class);
    private static final long ABORT_WAIT_MS = 60_000L;

    enum State { IN_PROGRESS, ABORTED, PAUSED }

    private final Supplier<Collection<Log>> logs;
    private final Map<TopicPartition, State> states = new HashMap<>();
    private final Map<TopicPartition, Integer> pauses = new HashMap<>();
    private final Set<TopicPartition> uncleanable = new HashSet<>();
    private final Map<TopicPartition, Long> lastCleaningMs = new HashMap<>();
    /** Per log, the highest offset of a removed tombstone that was its key's latest record (B194). */
    private final Map<TopicPartition, Long> removedTombstoneOffsets = new HashMap<>();
    private double dirtiestRatio;
    private long maxCompactionDelayMs;

    public LogCleanerManager(Supplier<Collection<Log>> logs) {
        this.logs = logs;
    }

    /**
     * The compacted log with the highest dirty ratio among those the cleaner takes now (B180), marked
     * IN_PROGRESS; empty when none is due.
     */
    public synchronized Optional<LogToClean> grabFilthiestCompactedLog(long nowMs) {
        LogToClean filthiest = null;
        double highest = 0;
        long maxDelay = 0;
        for (Log candidate : logs.get()) {
            TopicPartition tp = candidate.topicPartition();
            if (!candidate.config().compact() || states.containsKey(tp) || uncleanable.contains(tp) || candidate.isClosed()) {
                continue;
            }
            LogToClean evaluated;
            try {
                evaluated = evaluate(candidate, nowMs);
            } catch (IOException | RuntimeException e) {
                log.warn("Cannot evaluate {} for cleaning: {}", tp, e.toString());
                continue;
            }
            if (evaluated.totalBytes() == 0) {
                continue;
            }
            highest = Math.max(highest, evaluated.cleanableRatio());
            maxDelay = Math.max(maxDelay, evaluated.compactionDelayMs());
            if (evaluated.cleanable() && (filthiest == null || rank(evaluated) > rank(filthiest))) {
                filthiest = evaluated;
            }
        }
        dirtiestRatio = highest;
        maxCompactionDelayMs = maxDelay;
        if (filthiest == null) {
            return Optional.empty();
        }
        states.put(filthiest.log().topicPartition(), State.IN_PROGRESS);
        return Optional.of(filthiest);
    }

    /** Logs past max.compaction.lag.ms come first, then the highest dirty ratio (Kafka's order). */
    private static double rank(LogToClean ltc) {
        return ltc.cleanableRatio() + (ltc.needCompactionNow() ? 1.0 : 0.0);
    }

    private LogToClean evaluate(Log candidate, long nowMs) throws IOException {
        Log.CleanerView view = candidate.cleanerView();
        Long checkpointed = checkpointFile(candidate).read().get(candidate.topicPartition());
        LogToClean evaluated = LogToClean.evaluate(candidate, view,
                checkpointed == null ? OptionalLong.empty() : OptionalLong.of(checkpointed), nowMs);
        if (evaluated.checkpointReset() && checkpointed != null) {
            log.warn("Resetting the first dirty offset of {} from {} to {}: the checkpointed offset is outside the log",
                    candidate.topicPartition(), checkpointed, evaluated.firstDirtyOffset());
            writeCheckpoint(candidate, evaluated.firstDirtyOffset());
        }
        return evaluated;
    }

    /**
     * The highest offset of a tombstone that this store's cleaner removed from {@code tp} since it started, where
     * the tombstone was its key's latest record; empty when none (B194). A reader whose position is at or below it
     * never sees that delete.
     */
    public synchronized Optional<Long> removedTombstoneOffset(TopicPartition tp) {
        return Optional.ofNullable(removedTombstoneOffsets.get(tp));
    }

    /** The operator's view of one log (B193); empty for a log that is not compacted. */
    public synchronized Optional<CleanerLogState> describe(Log target, long nowMs) throws IOException {
        if (!target.config().compact()) {
            return Optional.empty();
        }
        TopicPartition tp = target.topicPartition();
        LogToClean e = evaluate(target, nowMs);
        String state = uncleanable.contains(tp) ? "UNCLEANABLE" : states.containsKey(tp) ? states.get(tp).name() : "IDLE";
        return Optional.of(new CleanerLogState(tp, e.cleanableRatio(), e.firstDirtyOffset(), e.firstUncleanableOffset(),
                e.cleanableBytes(), e.compactionDelayMs(), e.cleanable(), state, lastCleaningMs.getOrDefault(tp, -1L),
                e.explain()));
    }

    /** A cleaning ended: its end offset is checkpointed as the next first dirty offset. */
    public synchronized void doneCleaning(Log cleaned, long endOffset, long nowMs) throws IOException {
        doneCleaning(cleaned, endOffset, nowMs, -1L);
    }

    /** As {@link #doneCleaning(Log, long, long)}, noting the highest removed tombstone offset (-1 none, B194). */
    public synchronized void doneCleaning(Log cleaned, long endOffset, long nowMs, long removedTombstoneOffset)
            throws IOException {
        TopicPartition tp = cleaned.topicPartition();
        try {
            if (states.get(tp) == State.IN_PROGRESS) {
                writeCheckpoint(cleaned, endOffset);
                lastCleaningMs.put(tp, nowMs);
                if (removedTombstoneOffset >= 0) {
                    removedTombstoneOffsets.merge(tp, removedTombstoneOffset, Math::max);
                }
            }
        } finally {
            release(tp);
        }
    }

    /** A cleaning stopped (aborted, or failed: then the log is left alone until the store restarts, as Kafka does). */
    public synchronized void cleaningStopped(TopicPartition tp, boolean failed) {
        if (failed) {
            uncleanable.add(tp);
        }
        release(tp);
    }

    private void release(TopicPartition tp) {
        if (states.get(tp) == State.ABORTED) {
            states.put(tp, State.PAUSED);
            pauses.merge(tp, 1, Integer::sum);
        } else if (states.get(tp) == State.IN_PROGRESS) {
            states.remove(tp);
        }
        notifyAll();
    }

    /** Throws when the log's cleaning must stop (B189); the cleaner calls it between chunks. */
    public synchronized void checkCleaningAborted(TopicPartition tp) {
        if (states.get(tp) == State.ABORTED) {
            throw new LogCleaningAbortedException("the cleaning of " + tp + " was aborted");
        }
    }

    /**
     * Stops any cleaning of {@code tp} and keeps the cleaner away until {@link #resumeCleaning}: a truncation
     * or a deletion of the log runs in between (B189). Waits, at most a minute of real time, for a cleaning
     * in progress to stop.
     */
    public synchronized void abortAndPauseCleaning(TopicPartition tp) {
        State state = states.get(tp);
        if (state == null) {
            states.put(tp, State.PAUSED);
            pauses.put(tp, 1);
            return;
        }
        if (state == State.PAUSED) {
            pauses.merge(tp, 1, Integer::sum);
            return;
        }
        states.put(tp, State.ABORTED);
        long deadline = System.currentTimeMillis() + ABORT_WAIT_MS;
        while (states.get(tp) == State.ABORTED) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new IllegalStateException("the cleaning of " + tp + " did not stop within " + ABORT_WAIT_MS + " ms");
            }
            try {
                wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while aborting the cleaning of " + tp, e);
            }
        }
    }

    public synchronized void resumeCleaning(TopicPartition tp) {
        if (states.get(tp) != State.PAUSED) {
            return;
        }
        int left = pauses.merge(tp, -1, Integer::sum);
        if (left <= 0) {
            states.remove(tp);
            pauses.remove(tp);
        }
    }

    /** A log is gone (deleted or moved): its cleaning stops and its checkpoint entry goes. */
    public synchronized void forget(Log removed) throws IOException {
        TopicPartition tp = removed.topicPartition();
        abortAndPauseCleaning(tp);
        states.remove(tp);
        pauses.remove(tp);
        uncleanable.remove(tp);
        lastCleaningMs.remove(tp);
        removedTombstoneOffsets.remove(tp);
        OffsetCheckpointFile file = checkpointFile(removed);
        Map<TopicPartition, Long> offsets = new HashMap<>(file.read());
        if (offsets.remove(tp) != null) {
            file.write(offsets);
        }
    }

    /** After a truncation below the checkpointed first dirty offset, the checkpoint follows it down. */
    public synchronized void maybeTruncateCheckpoint(Log truncated, long offset) throws IOException {
        OffsetCheckpointFile file = checkpointFile(truncated);
        Long current = file.read().get(truncated.topicPartition());
        if (current != null && current > offset) {
            writeCheckpoint(truncated, offset);
        }
    }

    public synchronized double dirtiestRatio() {
        return dirtiestRatio;
    }

    public synchronized long maxCompactionDelayMs() {
        return maxCompactionDelayMs;
    }

    public synchronized Set<TopicPartition> uncleanablePartitions() {
        return Set.copyOf(uncleanable);
    }

    private void writeCheckpoint(Log target, long offset) throws IOException {
        OffsetCheckpointFile file = checkpointFile(target);
        Map<TopicPartition, Long> offsets = new HashMap<>(file.read());
        offsets.put(target.topicPartition(), offset);
        file.write(offsets);
    }

    private static OffsetCheckpointFile checkpointFile(Log target) {
        Path logDir = target.dir().toAbsolutePath().getParent();
        return new OffsetCheckpointFile(logDir.resolve(LogFileNames.CLEANER_OFFSET_CHECKPOINT));
    }
}
