package io.tideline.store.log;

import io.tideline.store.checkpoint.CorruptCheckpointException;
import io.tideline.store.checkpoint.LeaderEpochCheckpointFile;
import io.tideline.store.config.LogConfig;
import io.tideline.store.epoch.LeaderEpochCache;
import io.tideline.common.time.Time;
import io.tideline.store.segment.FileBatch;
import io.tideline.store.segment.FileLayer;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import io.tideline.store.segment.SegmentSwap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a partition directory: removes leftovers, loads segments, recovers what an unclean stop may
 * have damaged, and works out the log's offsets.
 *
 * <ul>
 *   <li>A cleaning the stop interrupted is completed or rolled back first ({@link SegmentSwap#recover}).</li>
 *   <li>{@code *.deleted} and {@code *.tmp} files are leftovers of a deletion or a checkpoint write that
 *       a stop interrupted: removed. Index files whose {@code .log} is gone are removed too.</li>
 *   <li>After an unclean stop, every segment from the one holding the recovery point on is validated
 *       batch by batch; the first invalid batch and everything after it are dropped, and segments
 *       after a truncated one are deleted (they follow data that no longer exists).</li>
 *   <li>After a clean stop, indexes are trusted unless missing or visibly damaged, in which case they
 *       are rebuilt from the log.</li>
 *   <li>log start offset = max(checkpoint, first segment's base offset); a log whose end falls below
 *       the checkpointed start offset restarts empty at that offset.</li>
 * </ul>
 */
final class LogLoader {
    private static final Logger log = LoggerFactory.getLogger(LogLoader.class);

    record LoadedLog(TreeMap<Long, LogSegment> segments, long logStartOffset, long logEndOffset, long recoveryPoint,
                     int recoveredSegments, long truncatedBytes, LeaderEpochCache epochCache) {
    }

    private LogLoader() {
    }

    static LoadedLog load(Path dir, LogConfig config, Time time, Random random, long logStartOffsetCheckpoint,
                          long recoveryPointCheckpoint, boolean hadCleanShutdown, FileLayer files) throws IOException {
        Files.createDirectories(dir);
        // Before anything is listed: an interrupted cleaning's swap decides which segments exist (B187).
        SegmentSwap.recover(dir);
        removeLeftovers(dir);
        TreeMap<Long, LogSegment> segments = new TreeMap<>();
        int recovered = 0;
        long truncatedBytes = 0;
        try {
            List<Long> baseOffsets = segmentBaseOffsets(dir);
            boolean truncatedEarlier = false;
            for (int i = 0; i < baseOffsets.size(); i++) {
                long base = baseOffsets.get(i);
                if (truncatedEarlier) {
                    deleteSegmentFiles(dir, base);
                    continue;
                }
                boolean indexMissing = !Files.exists(LogFileNames.offsetIndexFile(dir, base))
                        || !Files.exists(LogFileNames.timeIndexFile(dir, base));
                boolean last = i == baseOffsets.size() - 1;
                LogSegment segment = LogSegment.open(dir, base, config.segmentIndexBytes(), config.indexIntervalBytes(),
                        last ? jitter(config, random) : 0, false, time, files);
                segments.put(base, segment);
                long nextBase = last ? Long.MAX_VALUE : baseOffsets.get(i + 1);
                boolean unflushed = !hadCleanShutdown && nextBase > recoveryPointCheckpoint;
                boolean rebuild = indexMissing || !indexesLookSane(segment, last, nextBase);
                if (unflushed || rebuild) {
                    int truncated = segment.recover();
                    recovered++;
                    if (truncated > 0) {
                        log.warn("Truncated {} invalid bytes at the end of {} in {}", truncated, segment, dir);
                        truncatedBytes += truncated;
                        truncatedEarlier = !last;
                    } else if (rebuild && !unflushed) {
                        log.warn("Rebuilt the {} indexes of {} in {}", indexMissing ? "missing" : "damaged", segment, dir);
                    }
                }
            }
            if (segments.isEmpty()) {
                segments.put(logStartOffsetCheckpoint, LogSegment.open(dir, logStartOffsetCheckpoint,
                        activeIndexBytes(config), config.indexIntervalBytes(), jitter(config, random), true, time, files));
            }
            LogSegment active = segments.lastEntry().getValue();
            // An active segment that already holds data may have been indexed under other settings: it keeps
            // every entry and gets a new segment's room on top, at most segment.index.bytes. Not the whole
            // segment.index.bytes: index space is written at open (docs/behaviours.md B142), and 10 MiB each for
            // two indexes of every partition would be written at every start.
            int inUse = Math.max(active.offsetIndex().sizeInBytes(), active.timeIndex().sizeInBytes());
            active.resizeIndexes((int) Math.min(config.segmentIndexBytes(), (long) inUse + activeIndexBytes(config)));
            long logEndOffset = active.readNextOffset();
            if (logEndOffset < logStartOffsetCheckpoint) {
                // Everything on disk is below the start offset (e.g. DeleteRecords moved it past the end of
                // what survived a crash): start over, empty, at the start offset.
                log.warn("Log end offset {} of {} is below its start offset {}: restarting the log empty there",
                        logEndOffset, dir, logStartOffsetCheckpoint);
                for (LogSegment segment : segments.values()) {
                    segment.closeAndDeleteFiles();
                }
                segments.clear();
                segments.put(logStartOffsetCheckpoint, LogSegment.open(dir, logStartOffsetCheckpoint,
                        activeIndexBytes(config), config.indexIntervalBytes(), jitter(config, random), true, time, files));
                logEndOffset = logStartOffsetCheckpoint;
            }
            long logStartOffset = Math.max(logStartOffsetCheckpoint, segments.firstKey());
            if (recovered > 0) {
                for (LogSegment segment : segments.values()) {
                    segment.flush();
                }
            }
            // The epoch cache must describe exactly the offsets the log holds after recovery.
            LeaderEpochCache epochCache = loadEpochCache(dir, segments);
            epochCache.truncateFromEnd(logEndOffset);
            epochCache.truncateFromStart(logStartOffset);
            return new LoadedLog(segments, logStartOffset, logEndOffset, logEndOffset, recovered, truncatedBytes, epochCache);
        } catch (IOException | RuntimeException e) {
            for (LogSegment segment : segments.values()) {
                segment.close();
            }
            throw e;
        }
    }

    /**
     * The leader-epoch-checkpoint, or, if it is damaged, the same entries rebuilt from the batch
     * headers (each batch carries the epoch of the leader that wrote it): recovered, never guessed.
     */
    private static LeaderEpochCache loadEpochCache(Path dir, TreeMap<Long, LogSegment> segments) throws IOException {
        LeaderEpochCheckpointFile file = new LeaderEpochCheckpointFile(dir.resolve(LogFileNames.LEADER_EPOCH_CHECKPOINT));
        try {
            return LeaderEpochCache.load(file);
        } catch (CorruptCheckpointException e) {
            log.warn("{}; rebuilding the leader epochs of {} from its batches", e.getMessage(), dir);
            Files.deleteIfExists(file.file());
            LeaderEpochCache cache = LeaderEpochCache.load(file);
            for (LogSegment segment : segments.values()) {
                int position = 0;
                FileBatch batch;
                while ((batch = segment.log().batchAt(position, segment.size())) != null) {
                    int epoch = batch.partitionLeaderEpoch();
                    if (epoch >= 0 && cache.latestEpoch().map(latest -> epoch > latest).orElse(true)) {
                        cache.assign(epoch, batch.baseOffset());
                    }
                    position += batch.sizeInBytes();
                }
            }
            return cache;
        }
    }

    private static boolean indexesLookSane(LogSegment segment, boolean last, long nextBase) {
        try {
            return segment.indexesLookSane(last ? segment.readNextOffset() : nextBase);
        } catch (IOException | RuntimeException e) {
            return false; // a damaged index can point anywhere; rebuilding is the answer either way
        }
    }

    /** What the indexes of a new, empty active segment are preallocated to (see LogSegment.activeIndexBytes). */
    static int activeIndexBytes(LogConfig config) {
        return LogSegment.activeIndexBytes(config.segmentBytes(), config.indexIntervalBytes(), config.segmentIndexBytes());
    }

    static long jitter(LogConfig config, Random random) {
        long bound = Math.min(config.segmentJitterMs(), config.segmentMs());
        return bound <= 0 ? 0 : Math.floorMod(random.nextLong(), bound);
    }

    private static List<Long> segmentBaseOffsets(Path dir) throws IOException {
        List<Long> offsets = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                if (LogFileNames.isSegmentFileName(name, LogFileNames.LOG_SUFFIX)) {
                    offsets.add(LogFileNames.offsetFromFileName(name));
                }
            }
        }
        offsets.sort(null);
        return offsets;
    }

    private static void removeLeftovers(Path dir) throws IOException {
        List<Path> toDelete = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                if (name.endsWith(LogFileNames.DELETED_SUFFIX) || name.endsWith(LogFileNames.TMP_SUFFIX)) {
                    toDelete.add(p);
                } else if (isIndexFile(name) && !Files.exists(dir.resolve(name.substring(0, 20) + LogFileNames.LOG_SUFFIX))) {
                    log.info("Removing orphan index file {} (its .log is gone)", p);
                    toDelete.add(p);
                }
            }
        }
        for (Path p : toDelete) {
            Files.deleteIfExists(p);
        }
    }

    private static boolean isIndexFile(String name) {
        return LogFileNames.isSegmentFileName(name, LogFileNames.INDEX_SUFFIX)
                || LogFileNames.isSegmentFileName(name, LogFileNames.TIME_INDEX_SUFFIX)
                || LogFileNames.isSegmentFileName(name, LogFileNames.TXN_INDEX_SUFFIX);
    }

    private static void deleteSegmentFiles(Path dir, long base) throws IOException {
        log.warn("Deleting segment {} of {}: it follows a truncated segment", base, dir);
        Files.deleteIfExists(LogFileNames.logFile(dir, base));
        Files.deleteIfExists(LogFileNames.offsetIndexFile(dir, base));
        Files.deleteIfExists(LogFileNames.timeIndexFile(dir, base));
        Files.deleteIfExists(LogFileNames.txnIndexFile(dir, base));
    }
}
