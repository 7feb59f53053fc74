package io.tideline.store.retention;

import io.tideline.common.time.Scheduler;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second half of a deletion: segments already taken out of their log and renamed to
 * {@code .deleted} wait here for {@code file.delete.delay.ms}, then are unmapped, closed and unlinked.
 * The delay lets reads that started before the rename finish (docs/behaviours.md B17, B18);
 * reads that still hold a slice afterwards keep the file open, and the store reports such files.
 *
 * <p>Thread-safe: logs hand segments in from their writer threads, the scheduler unlinks them.
 */
public final class SegmentDeleter {
    private static final Logger log = LoggerFactory.getLogger(SegmentDeleter.class);

    private final Scheduler scheduler;
    private final Set<LogSegment> pending = ConcurrentHashMap.newKeySet();

    public SegmentDeleter(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Schedules the unlink of segments whose files are already renamed to {@code .deleted}. */
    public void scheduleUnlink(List<LogSegment> segments, long delayMs) {
        pending.addAll(segments);
        scheduler.scheduleOnce("delete-segment-files", () -> unlink(segments), delayMs);
    }

    private void unlink(List<LogSegment> segments) {
        for (LogSegment segment : segments) {
            if (!pending.remove(segment)) {
                continue; // already unlinked by unlinkAllNow
            }
            try {
                segment.closeAndDeleteFiles();
                log.debug("Unlinked {}", segment);
            } catch (IOException | RuntimeException e) {
                log.error("Could not unlink the files of {}", segment, e);
            }
        }
    }

    /** Unlinks everything still waiting (clean shutdown: nothing would read these files again). */
    public void unlinkAllNow() {
        unlink(new ArrayList<>(pending));
    }

    public int pendingSegments() {
        return pending.size();
    }

    public long pendingBytes() {
        long bytes = 0;
        for (LogSegment segment : pending) {
            bytes += segment.size();
        }
        return bytes;
    }
}
