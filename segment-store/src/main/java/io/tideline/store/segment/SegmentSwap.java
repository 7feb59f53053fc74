package io.tideline.store.segment;

import io.tideline.common.io.FileUtils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The crash-safe replacement of closed segments by one cleaned segment (docs/storage.md "Compaction",
 * docs/behaviours.md B187), and its completion when a log is opened. The protocol, as Kafka's:
 * <ol>
 *   <li>the cleaned segment is written as {@code <base>.log.cleaned} (and {@code .index.cleaned},
 *       {@code .timeindex.cleaned}) and fsynced;</li>
 *   <li>each of its files is renamed {@code .cleaned -> .swap}; the swap is committed once no
 *       {@code .cleaned} file of it is left;</li>
 *   <li>every replaced segment's files are renamed {@code .deleted} (unlinked after file.delete.delay.ms);</li>
 *   <li>each {@code .swap} file is renamed to its final name.</li>
 * </ol>
 * {@link #recover} finishes whatever a crash interrupted: {@code .cleaned} files are deleted, and so is
 * a {@code .swap} file at or above the lowest {@code .cleaned} base offset (its set was not yet
 * committed); the remaining {@code .swap} sets replace every segment whose base offset they cover and
 * take their final names. Each step leaves the directory in a state that loads to either the old
 * segments or the cleaned one, never to neither.
 */
public final class SegmentSwap {
    private static final Logger log = LoggerFactory.getLogger(SegmentSwap.class);
    private static final String[] SEGMENT_SUFFIXES = {LogFileNames.LOG_SUFFIX, LogFileNames.INDEX_SUFFIX,
            LogFileNames.TIME_INDEX_SUFFIX, LogFileNames.TXN_INDEX_SUFFIX};

    /** Called after every rename of the protocol; a test stops there to play a crash. */
    @FunctionalInterface
    public interface StepListener {
        StepListener NONE = step -> { };

        void reached(String step) throws IOException;
    }

    private SegmentSwap() {
    }

    /** Step 2: renames every file of {@code cleaned} from {@code .cleaned} to {@code .swap}, then fsyncs the dir. */
    public static void commit(LogSegment cleaned, StepListener listener) throws IOException {
        renameEach(cleaned, LogFileNames.CLEANED_SUFFIX, LogFileNames.SWAP_SUFFIX, listener);
    }

    /** Step 4: renames every file of {@code swapped} from {@code .swap} to its final name, then fsyncs the dir. */
    public static void complete(LogSegment swapped, StepListener listener) throws IOException {
        renameEach(swapped, LogFileNames.SWAP_SUFFIX, "", listener);
    }

    private static void renameEach(LogSegment segment, String from, String to, StepListener listener) throws IOException {
        String base = LogFileNames.filenamePrefixFromOffset(segment.baseOffset());
        segment.log().renameTo(LogFileNames.withSuffix(segment.log().file(), from, to));
        listener.reached(base + LogFileNames.LOG_SUFFIX + from + " -> " + to);
        segment.offsetIndex().renameTo(LogFileNames.withSuffix(segment.offsetIndex().file(), from, to));
        listener.reached(base + LogFileNames.INDEX_SUFFIX + from + " -> " + to);
        segment.timeIndex().renameTo(LogFileNames.withSuffix(segment.timeIndex().file(), from, to));
        listener.reached(base + LogFileNames.TIME_INDEX_SUFFIX + from + " -> " + to);
        segment.txnIndex().renameTo(LogFileNames.withSuffix(segment.txnIndex().file(), from, to));
        FileUtils.fsyncDirectory(segment.dir());
        listener.reached(base + " set" + from + " -> " + to + " fsynced");
    }

    /**
     * Completes or rolls back an interrupted swap in {@code dir}; run before the segments are loaded.
     * Returns how many swapped segments were completed.
     */
    public static int recover(Path dir) throws IOException {
        List<Path> cleaned = new ArrayList<>();
        List<Path> swaps = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                if (name.endsWith(LogFileNames.CLEANED_SUFFIX)) {
                    cleaned.add(p);
                } else if (name.endsWith(LogFileNames.SWAP_SUFFIX)) {
                    swaps.add(p);
                }
            }
        }
        if (cleaned.isEmpty() && swaps.isEmpty()) {
            return 0;
        }
        long minCleaned = Long.MAX_VALUE;
        for (Path p : cleaned) {
            minCleaned = Math.min(minCleaned, baseOffsetOf(p));
        }
        List<Path> valid = new ArrayList<>();
        for (Path p : swaps) {
            if (baseOffsetOf(p) >= minCleaned) {
                log.info("Deleting {}: its cleaned set was not committed to a swap", p);
                Files.deleteIfExists(p);
            } else {
                valid.add(p);
            }
        }
        for (Path p : cleaned) {
            Files.deleteIfExists(p);
        }
        long minSwap = Long.MAX_VALUE;
        long maxSwapEnd = Long.MIN_VALUE;
        int completed = 0;
        for (Path p : valid) {
            if (!p.getFileName().toString().endsWith(LogFileNames.LOG_SUFFIX + LogFileNames.SWAP_SUFFIX)) {
                continue;
            }
            long base = baseOffsetOf(p);
            minSwap = Math.min(minSwap, base);
            // An empty swapped segment still replaces the segment at its own base offset.
            maxSwapEnd = Math.max(maxSwapEnd, Math.max(nextOffset(p, base), base + 1));
            completed++;
        }
        if (completed > 0) {
            for (long base : finalSegmentBases(dir)) {
                if (base >= minSwap && base < maxSwapEnd) {
                    log.info("Deleting segment {} of {}: an interrupted cleaning's swap replaces it", base, dir);
                    for (String suffix : SEGMENT_SUFFIXES) {
                        Files.deleteIfExists(dir.resolve(LogFileNames.filenamePrefixFromOffset(base) + suffix));
                    }
                }
            }
        }
        // Index files of a set whose .log already has its final name are renamed too: the old set at that
        // base was renamed .deleted before the first .swap file was renamed.
        for (Path p : valid) {
            FileUtils.atomicMoveWithoutDirectoryFsync(p, LogFileNames.withSuffix(p, LogFileNames.SWAP_SUFFIX, ""));
        }
        FileUtils.fsyncDirectory(dir);
        if (!valid.isEmpty()) {
            log.info("Completed an interrupted swap of {} cleaned segment(s) in {}", completed, dir);
        }
        return completed;
    }

    private static long baseOffsetOf(Path file) {
        return LogFileNames.offsetFromFileName(file.getFileName().toString());
    }

    private static List<Long> finalSegmentBases(Path dir) throws IOException {
        List<Long> bases = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                if (LogFileNames.isSegmentFileName(name, LogFileNames.LOG_SUFFIX)) {
                    bases.add(LogFileNames.offsetFromFileName(name));
                }
            }
        }
        return bases;
    }

    /** The offset after the last whole batch of a swap file (its base offset when it holds none). */
    private static long nextOffset(Path logFile, long base) throws IOException {
        try (FileRecords records = FileRecords.open(logFile)) {
            long next = base;
            int position = 0;
            int end = records.sizeInBytes();
            FileBatch batch;
            while ((batch = records.batchAt(position, end)) != null) {
                next = batch.lastOffset() + 1;
                position += batch.sizeInBytes();
            }
            return next;
        }
    }
}
