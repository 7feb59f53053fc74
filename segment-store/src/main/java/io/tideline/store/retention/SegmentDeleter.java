package io.tideline.store.retention;

import io.tideline.common.TopicPartition;
import io.tideline.common.time.Scheduler;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second half of a deletion: segments already taken out of their log and renamed to
 * {@code .deleted} wait here for {@code file.delete.delay.ms}, then are unmapped, closed and unlinked.
 * The delay lets reads that started before the rename finish (docs/behaviours.md B17, B18);
 * reads that still hold a slice afterwards keep the file open (B19).
 *
 * <p>It also remembers the segments it (or a log, through {@link #unlinkedNow}) unlinked while a reader
 * still held their {@code .log} open. The store knows this exactly and cheaply from the file's reference
 * count ({@code FileRecords.isOpen()}), per partition and segment, without scanning /proc; an entry is
 * dropped once the last reader closed the file. The /proc scan of {@code DeletedOpenFilesScanner} stays
 * the ground truth for the gauges: it also sees what this bookkeeping cannot, such as a leaked mapping.
 *
 * <p>Thread-safe: logs hand segments in from their writer threads, the scheduler unlinks them.
 */
public final class SegmentDeleter {
    private static final Logger log = LoggerFactory.getLogger(SegmentDeleter.class);

    private final Scheduler scheduler;
    /** Segments renamed and waiting, with the time their unlink is due. */
    private final Map<LogSegment, Long> pending = new ConcurrentHashMap<>();
    /** Segments unlinked while a reader held their file, with the time of the unlink. */
    private final Map<LogSegment, Long> heldOpen = new ConcurrentHashMap<>();

    /** Segments logs took out by retention, per reason, since start (the store's deletion metrics). */
    private final Map<DeletionReason, LongAdder> deleted = new EnumMap<>(DeletionReason.class);

    public SegmentDeleter(Scheduler scheduler) {
        this.scheduler = scheduler;
        for (DeletionReason reason : DeletionReason.values()) {
            deleted.put(reason, new LongAdder());
        }
    }

    /** Counts {@code count} segments a log took out for {@code reason} (the map is filled once, so reads race nothing). */
    public void countDeleted(DeletionReason reason, int count) {
        deleted.get(reason).add(count);
    }

    /** Segments taken out for {@code reason} since start. */
    public long deletedSegments(DeletionReason reason) {
        return deleted.get(reason).sum();
    }

    /** A segment waiting for its unlink: its partition, base offset, bytes and when it goes. */
    public record PendingUnlink(TopicPartition topicPartition, long baseOffset, long sizeBytes, long largestTimestamp,
                                long unlinkAtMs, Path file) {
    }

    /** A segment unlinked while a reader held its {@code .log}: the bytes it still holds on disk. */
    public record HeldOpen(TopicPartition topicPartition, long baseOffset, long sizeBytes, long largestTimestamp,
                           long unlinkedAtMs, Path file) {
    }

    /**
     * Schedules the unlink of segments whose files are already renamed to {@code .deleted}, due at
     * {@code nowMs + delayMs}.
     */
    public void scheduleUnlink(List<LogSegment> segments, long delayMs, long nowMs) {
        long due = nowMs + Math.max(0, delayMs);
        for (LogSegment segment : segments) {
            pending.put(segment, due);
        }
        scheduler.scheduleOnce("delete-segment-files", () -> unlink(segments), delayMs);
    }

    private void unlink(List<LogSegment> segments) {
        for (LogSegment segment : segments) {
            Long due = pending.remove(segment);
            if (due == null) {
                continue; // already unlinked by unlinkAllNow
            }
            try {
                segment.closeAndDeleteFiles();
                trackIfHeld(segment, due);
                log.debug("Unlinked {}", segment);
            } catch (IOException | RuntimeException e) {
                log.error("Could not unlink the files of {}", segment, e);
            }
        }
    }

    /**
     * A log unlinked {@code segment} itself, without the delay (truncation, a deleted log): remembered
     * if a reader still holds its file.
     */
    public void unlinkedNow(LogSegment segment, long nowMs) {
        trackIfHeld(segment, nowMs);
    }

    private void trackIfHeld(LogSegment segment, long unlinkedAtMs) {
        heldOpen.keySet().removeIf(s -> !s.log().isOpen());
        if (segment.log().isOpen()) {
            heldOpen.put(segment, unlinkedAtMs);
        }
    }

    /** Unlinks everything still waiting (clean shutdown: nothing would read these files again). */
    public void unlinkAllNow() {
        unlink(new ArrayList<>(pending.keySet()));
    }

    public int pendingSegments() {
        return pending.size();
    }

    public long pendingBytes() {
        long bytes = 0;
        for (LogSegment segment : pending.keySet()) {
            bytes += segment.size();
        }
        return bytes;
    }

    /** The segments of {@code tp} waiting for their unlink, oldest first. */
    public List<PendingUnlink> pending(TopicPartition tp) {
        List<PendingUnlink> out = new ArrayList<>();
        pending.forEach((segment, due) -> {
            if (belongsTo(segment, tp)) {
                out.add(new PendingUnlink(tp, segment.baseOffset(), segment.size(), segment.maxTimestampSoFar(), due,
                        segment.log().file()));
            }
        });
        out.sort(Comparator.comparingLong(PendingUnlink::baseOffset));
        return out;
    }

    /** The segments of {@code tp} unlinked while a reader held them and still held, oldest first. */
    public List<HeldOpen> heldOpen(TopicPartition tp) {
        heldOpen.keySet().removeIf(s -> !s.log().isOpen());
        List<HeldOpen> out = new ArrayList<>();
        heldOpen.forEach((segment, at) -> {
            if (belongsTo(segment, tp)) {
                out.add(new HeldOpen(tp, segment.baseOffset(), segment.size(), segment.maxTimestampSoFar(), at,
                        segment.log().file()));
            }
        });
        out.sort(Comparator.comparingLong(HeldOpen::baseOffset));
        return out;
    }

    /** A segment's partition is its directory's name (docs/storage.md, On disk). */
    private static boolean belongsTo(LogSegment segment, TopicPartition tp) {
        return segment.dir().getFileName().toString().equals(tp.directoryName());
    }
}
