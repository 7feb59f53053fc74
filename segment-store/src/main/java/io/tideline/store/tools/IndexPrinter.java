package io.tideline.store.tools;

import io.tideline.store.index.OffsetIndex;
import io.tideline.store.index.TimeIndex;
import io.tideline.store.index.TxnIndex;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints the entries of .index, .timeindex and .txnindex files, or with {@code --verify-index} checks the
 * first two against the .log next to them, in the form {@link DumpLogCommand} shows. Each mismatch, partial
 * entry or corrupt entry counts as a problem.
 */
final class IndexPrinter {
    private final PrintStream out;
    private final TimestampFormat timestamps;
    /** Check .index and .timeindex entries against their .log instead of listing them. */
    private final boolean verify;
    private int problems;

    IndexPrinter(PrintStream out, TimestampFormat timestamps, boolean verify) {
        this.out = out;
        this.timestamps = timestamps;
        this.verify = verify;
    }

    /** Mismatches and damaged entries found so far. */
    int problems() {
        return problems;
    }

    void printOffsetIndex(Path file) throws IOException {
        reportPartialEntry(file, OffsetIndex.ENTRY_SIZE);
        if (verify) {
            verifyOffsetIndex(file);
        } else {
            dumpOffsetIndex(file);
        }
    }

    void printTimeIndex(Path file) throws IOException {
        reportPartialEntry(file, TimeIndex.ENTRY_SIZE);
        if (verify) {
            verifyTimeIndex(file);
        } else {
            dumpTimeIndex(file);
        }
    }

    void printTxnIndex(Path file) throws IOException {
        reportPartialEntry(file, TxnIndex.ENTRY_SIZE);
        dumpTxnIndex(file);
    }

    /** Index files hold whole entries; bytes past the last whole one mean damage (they are ignored). */
    private void reportPartialEntry(Path file, int entrySize) throws IOException {
        long size = Files.size(file);
        long rest = size % entrySize;
        if (rest > 0) {
            problems++;
            out.println("Corrupt tail: " + rest + " bytes at position " + (size - rest) + " are not a whole "
                    + entrySize + "-byte entry and are ignored");
        }
    }

    private void dumpOffsetIndex(Path file) throws IOException {
        for (IndexEntry e : offsetIndexEntries(file)) {
            out.println("offset: " + e.offset() + " position: " + e.position());
        }
    }

    private void dumpTimeIndex(Path file) throws IOException {
        for (TimeEntry e : timeIndexEntries(file)) {
            out.println("timestamp: " + timestamps.format(e.timestamp()) + " offset: " + e.offset());
        }
    }

    private void verifyOffsetIndex(Path file) throws IOException {
        List<IndexEntry> entries = offsetIndexEntries(file);
        Path logFile = siblingLog(file);
        LogSummary log = LogSummary.scan(logFile);
        int mismatches = 0;
        IndexEntry previous = null;
        for (int i = 0; i < entries.size(); i++) {
            IndexEntry e = entries.get(i);
            List<String> reasons = new ArrayList<>();
            if (previous != null && e.offset() <= previous.offset()) {
                reasons.add("offset is not above the previous entry's (" + previous.offset() + ")");
            }
            if (previous != null && e.position() <= previous.position()) {
                reasons.add("position is not above the previous entry's (" + previous.position() + ")");
            }
            LogSummary.BatchSummary batch = log.batchAt(e.position());
            if (batch == null) {
                reasons.add("no batch of " + logFile.getFileName() + " starts at position " + e.position()
                        + " (the log has " + log.validBytes() + " valid bytes)");
            } else if (batch.lastOffset() != e.offset()) {
                reasons.add("the batch at that position ends at offset " + batch.lastOffset() + ", not " + e.offset());
            }
            for (String reason : reasons) {
                mismatches++;
                out.println("Mismatch in " + file.getFileName() + " entry " + i + " (offset: " + e.offset()
                        + " position: " + e.position() + "): " + reason);
            }
            previous = e;
        }
        summarize(file, logFile, entries.size(), mismatches, log);
    }

    private void verifyTimeIndex(Path file) throws IOException {
        List<TimeEntry> entries = timeIndexEntries(file);
        Path logFile = siblingLog(file);
        LogSummary log = LogSummary.scan(logFile);
        long base = SegmentFileKind.baseOffsetOf(file);
        int mismatches = 0;
        TimeEntry previous = null;
        for (int i = 0; i < entries.size(); i++) {
            TimeEntry e = entries.get(i);
            List<String> reasons = new ArrayList<>();
            if (previous != null && e.timestamp() <= previous.timestamp()) {
                reasons.add("timestamp is not above the previous entry's (" + timestamps.format(previous.timestamp()) + ")");
            }
            if (previous != null && e.offset() < previous.offset()) {
                reasons.add("offset is below the previous entry's (" + previous.offset() + ")");
            }
            if (log.batches().isEmpty()) {
                reasons.add("offset " + e.offset() + " is outside the segment: " + logFile.getFileName() + " holds no batch");
            } else if (e.offset() < base || e.offset() > log.lastOffset()) {
                reasons.add("offset " + e.offset() + " is outside the segment [" + base + ", " + log.lastOffset() + "]");
            } else {
                long max = log.maxTimestampUpTo(e.offset());
                if (e.timestamp() > max) {
                    reasons.add("no batch up to offset " + e.offset() + " has a timestamp that high (largest: " + timestamps.format(max) + ")");
                }
            }
            for (String reason : reasons) {
                mismatches++;
                out.println("Mismatch in " + file.getFileName() + " entry " + i + " (timestamp: " + timestamps.format(e.timestamp())
                        + " offset: " + e.offset() + "): " + reason);
            }
            previous = e;
        }
        summarize(file, logFile, entries.size(), mismatches, log);
    }

    private void summarize(Path index, Path logFile, int entries, int mismatches, LogSummary log) {
        problems += mismatches;
        if (log.problem() != null) {
            out.println("Note: " + logFile.getFileName() + " is corrupt at position " + log.validBytes() + " ("
                    + log.problem() + "); entries past it cannot match");
        }
        out.println((mismatches == 0 ? "Verified " : "Verification failed: ") + index.getFileName() + " against "
                + logFile.getFileName() + ": " + entries + " entries, " + mismatches + " mismatches");
    }

    private static Path siblingLog(Path index) {
        String name = index.getFileName().toString();
        String deleted = name.endsWith(LogFileNames.DELETED_SUFFIX) ? LogFileNames.DELETED_SUFFIX : "";
        String prefix = name.substring(0, name.indexOf('.'));
        Path log = index.resolveSibling(prefix + LogFileNames.LOG_SUFFIX + deleted);
        if (!Files.isReadable(log)) {
            throw new DumpLogCommand.UnusableFileException("cannot verify " + index + ": its log " + log + " is missing or unreadable");
        }
        return log;
    }

    private static List<IndexEntry> offsetIndexEntries(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        long base = SegmentFileKind.baseOffsetOf(file);
        int used = usedEntries(bytes, OffsetIndex.ENTRY_SIZE);
        List<IndexEntry> entries = new ArrayList<>(used);
        for (int i = 0; i < used; i++) {
            int at = i * OffsetIndex.ENTRY_SIZE;
            entries.add(new IndexEntry(base + bytes.getInt(at), bytes.getInt(at + 4)));
        }
        return entries;
    }

    private static List<TimeEntry> timeIndexEntries(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        long base = SegmentFileKind.baseOffsetOf(file);
        int used = usedEntries(bytes, TimeIndex.ENTRY_SIZE);
        List<TimeEntry> entries = new ArrayList<>(used);
        for (int i = 0; i < used; i++) {
            int at = i * TimeIndex.ENTRY_SIZE;
            entries.add(new TimeEntry(bytes.getLong(at), base + bytes.getInt(at + 8)));
        }
        return entries;
    }

    /**
     * Entries up to the last one holding a non-zero byte: the all-zero tail is the unused part of a
     * preallocated (active or uncleanly closed) index. Neither index ever writes an all-zero entry,
     * since no entry is added for the batch at position 0.
     */
    private static int usedEntries(ByteBuffer bytes, int entrySize) {
        int whole = bytes.limit() / entrySize;
        for (int i = whole * entrySize - 1; i >= 0; i--) {
            if (bytes.get(i) != 0) {
                return i / entrySize + 1;
            }
        }
        return 0;
    }

    private void dumpTxnIndex(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        int whole = bytes.limit() / TxnIndex.ENTRY_SIZE;
        for (int i = 0; i < whole; i++) {
            int at = i * TxnIndex.ENTRY_SIZE;
            short version = bytes.getShort(at);
            if (version != 0) {
                problems++;
                out.println("Corrupt entry " + i + " at position " + at + ": version " + version
                        + " is not 0. The dump of this file stops here.");
                return;
            }
            out.println("version: " + version + " producerId: " + bytes.getLong(at + 2) + " firstOffset: "
                    + bytes.getLong(at + 10) + " lastOffset: " + bytes.getLong(at + 18) + " lastStableOffset: "
                    + bytes.getLong(at + 26));
        }
    }

    private record IndexEntry(long offset, int position) {
    }

    private record TimeEntry(long timestamp, long offset) {
    }
}
