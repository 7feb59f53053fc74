package io.tideline.tools.cli;

import io.tideline.client.LogCompaction;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Optional;

/**
 * What {@code log-dirs --describe} and {@code explain-retention} print of the log cleaner's view of a replica
 * (docs/behaviours.md B193). Stateless.
 */
final class CompactionText {
    private CompactionText() {
    }

    /** The DIRTY_RATIO column: "0.42", or "-" for a log that is not compacted or not evaluated. */
    static String dirtyRatio(Optional<LogCompaction> c) {
        return c.filter(LogCompaction::compacted).filter(x -> x.dirtyRatio() >= 0)
                .map(x -> ratio(x.dirtyRatio())).orElse("-");
    }

    /** The LAST_CLEANED column: when the last cleaning ended, or "-" (none since the broker started, not compacted). */
    static String lastCleaned(Optional<LogCompaction> c) {
        return c.filter(LogCompaction::compacted).map(x -> TextTable.time(x.lastCleaningMs())).orElse("-");
    }

    /** explain-retention's Compaction section, printed after the retention table. */
    static void section(Optional<LogCompaction> found, PrintStream out) {
        if (found.isEmpty()) {
            out.println("Compaction: the broker could not describe the cleaning of this log");
            return;
        }
        LogCompaction c = found.get();
        if (!c.compacted()) {
            // Retention alone governs such a log (B220); the cleaner never takes it (B180).
            out.println("Compaction: does not apply (cleanup.policy=" + c.cleanupPolicy() + ")");
            return;
        }
        out.println("Compaction: cleanup.policy=" + c.cleanupPolicy() + "\tState: " + c.state() + "\tLast cleaning: "
                + TextTable.time(c.lastCleaningMs()));
        if ("NO_CLEANER".equals(c.state())) {
            out.println("this broker runs no cleaner (log.cleaner.threads=0): the log is not compacted (B180)");
            return;
        }
        out.println("Dirty ratio: " + ratio(c.dirtyRatio()) + " vs min.cleanable.dirty.ratio="
                + ratio(c.minCleanableDirtyRatio()) + "\tCleanable bytes: " + c.cleanableBytes() + "\t"
                + due(c)
                + (c.compactionDelayMs() > 0 ? " (" + c.compactionDelayMs() + " ms past max.compaction.lag.ms)" : ""));
        out.println("FirstDirtyOffset: " + c.firstDirtyOffset() + "\tFirstUncleanableOffset: "
                + c.firstUncleanableOffset());
        TextTable table = new TextTable("BASE_OFFSET", "SIZE", "CLEANER");
        for (LogCompaction.SegmentVerdict v : c.segments()) {
            table.row(v.baseOffset(), v.sizeBytes() < 0 ? "-" : v.sizeBytes(), v.verdict());
        }
        table.print(out);
    }

    /** The evaluation says due (B180), but a paused, aborted or uncleanable log still waits for its state to change. */
    private static String due(LogCompaction c) {
        if (!c.cleanable()) {
            return "not due";
        }
        return "IDLE".equals(c.state()) ? "due: the cleaner takes it when a thread is free"
                : "due, but the cleaner leaves it while " + c.state();
    }

    private static String ratio(double r) {
        return String.format(Locale.ROOT, "%.2f", r);
    }
}
