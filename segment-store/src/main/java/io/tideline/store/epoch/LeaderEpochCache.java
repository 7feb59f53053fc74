package io.tideline.store.epoch;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.checkpoint.EpochEntry;
import io.tideline.store.checkpoint.LeaderEpochCheckpointFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which leader epoch wrote which offsets: (epoch, first offset) pairs, increasing in both, persisted
 * in the partition's {@code leader-epoch-checkpoint} on every change. A follower that changes leader
 * asks for the end offset of its last epoch to find where its log diverges (Kafka's
 * OffsetsForLeaderEpoch), so the cache must follow the log exactly: appends add epochs, deleting the
 * log's head trims it from the start, truncating the tail trims it from the end.
 *
 * <p>Thread-safety: synchronized; the log's writer changes it, fetch handlers read it.
 */
public final class LeaderEpochCache {
    /** Kafka's answers when an epoch is older than anything the log holds. */
    public static final int UNDEFINED_EPOCH = -1;
    public static final long UNDEFINED_OFFSET = -1L;

    private final LeaderEpochCheckpointFile file;
    private final List<EpochEntry> entries = new ArrayList<>();

    private LeaderEpochCache(LeaderEpochCheckpointFile file, List<EpochEntry> loaded) {
        this.file = file;
        this.entries.addAll(loaded);
    }

    /** Loads the checkpoint (missing file: empty cache). */
    public static LeaderEpochCache load(LeaderEpochCheckpointFile file) throws IOException {
        return new LeaderEpochCache(file, file.read());
    }

    /**
     * Records that {@code epoch} starts at {@code startOffset}. Entries that would break monotonicity
     * (an epoch at or above this one, or a start offset at or after this one) come from a tail the log
     * no longer has and are dropped first. Re-assigning the latest epoch is a no-op.
     */
    public synchronized void assign(int epoch, long startOffset) {
        if (epoch < 0 || startOffset < 0) {
            throw new IllegalArgumentException("epoch " + epoch + " at offset " + startOffset);
        }
        if (!entries.isEmpty() && latest().epoch() == epoch && latest().startOffset() <= startOffset) {
            return;
        }
        entries.removeIf(e -> e.epoch() >= epoch || e.startOffset() >= startOffset);
        entries.add(new EpochEntry(epoch, startOffset));
        flush();
    }

    public synchronized Optional<Integer> latestEpoch() {
        return entries.isEmpty() ? Optional.empty() : Optional.of(latest().epoch());
    }

    public synchronized List<EpochEntry> entries() {
        return List.copyOf(entries);
    }

    /**
     * The largest epoch <= {@code requestedEpoch} and the offset where it ends: the log end offset for
     * the latest epoch, otherwise the start of the next epoch. (UNDEFINED_EPOCH, UNDEFINED_OFFSET) when
     * the requested epoch is older than every entry.
     */
    public synchronized EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
        if (entries.isEmpty() || requestedEpoch < entries.get(0).epoch()) {
            return EpochEndOffset.UNDEFINED;
        }
        EpochEntry floor = entries.get(0);
        for (EpochEntry e : entries) {
            if (e.epoch() > requestedEpoch) {
                return new EpochEndOffset(floor.epoch(), e.startOffset());
            }
            floor = e;
        }
        return new EpochEndOffset(latest().epoch(), logEndOffset);
    }

    /** The log's tail from {@code endOffset} is gone: epochs that start there or later go too. */
    public synchronized void truncateFromEnd(long endOffset) {
        if (entries.removeIf(e -> e.startOffset() >= endOffset)) {
            flush();
        }
    }

    /**
     * The log's head below {@code startOffset} is gone: epochs that ended before it go, and the epoch
     * in force at it now starts there.
     */
    public synchronized void truncateFromStart(long startOffset) {
        int lastBelow = -1;
        for (int i = 0; i < entries.size() && entries.get(i).startOffset() <= startOffset; i++) {
            lastBelow = i;
        }
        if (lastBelow < 0 || (lastBelow == 0 && entries.get(0).startOffset() == startOffset)) {
            return;
        }
        EpochEntry inForce = entries.get(lastBelow);
        entries.subList(0, lastBelow + 1).clear();
        entries.add(0, new EpochEntry(inForce.epoch(), startOffset));
        flush();
    }

    /** Forgets everything (a follower rebuilding from the leader's start offset). */
    public synchronized void clear() {
        if (!entries.isEmpty()) {
            entries.clear();
            flush();
        }
    }

    private EpochEntry latest() {
        return entries.get(entries.size() - 1);
    }

    private void flush() {
        try {
            file.write(entries);
        } catch (IOException e) {
            throw new TidelineException(Errors.KAFKA_STORAGE_ERROR, "Writing " + file + " failed", e);
        }
    }
}
