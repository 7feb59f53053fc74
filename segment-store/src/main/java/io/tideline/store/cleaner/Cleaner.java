package io.tideline.store.cleaner;

import io.tideline.common.time.Time;
import io.tideline.store.config.LogConfig;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.segment.FileBatch;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import io.tideline.store.segment.SegmentSwap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cleaning of one log (docs/behaviours.md B180-B189), as Kafka's Cleaner does it:
 * <ol>
 *   <li>the offset map is built over the dirty section, [first dirty offset, first uncleanable offset),
 *       until it reaches its load factor; the cleaning then covers up to the last offset it mapped;</li>
 *   <li>every closed segment from the log's start up to there is rewritten, in groups of at most one
 *       segment's size ({@link SegmentGroups}), each into a {@code .cleaned} segment that keeps what
 *       {@link BatchCleaner} keeps;</li>
 *   <li>each cleaned segment replaces its group through {@link Log#replaceSegments} ({@link SegmentSwap}'s
 *       crash-safe protocol).</li>
 * </ol>
 * The returned end offset is the next first dirty offset. The map and the buffers are the thread's and reused.
 * Not thread-safe: one per cleaner thread.
 */
public final class Cleaner {
    private static final Logger log = LoggerFactory.getLogger(Cleaner.class);

    private final OffsetMap map;
    private final double loadFactor;
    private final SegmentChunkReader reader;
    private final Throttler throttler;
    private final Time time;
    private final SegmentSwap.StepListener swapListener;

    /**
     * @param map          the thread's dedupe map (log.cleaner.dedupe.buffer.size / threads)
     * @param loadFactor   log.cleaner.io.buffer.load.factor: how full the map may get
     * @param ioBufferSize log.cleaner.io.buffer.size; reads use half of it, as in Kafka
     * @param swapListener told of every rename of a swap (tests stop there to play a crash)
     */
    public Cleaner(OffsetMap map, double loadFactor, int ioBufferSize, Throttler throttler, Time time,
                   SegmentSwap.StepListener swapListener) {
        this.map = map;
        this.loadFactor = loadFactor;
        this.reader = new SegmentChunkReader(ioBufferSize / 2);
        this.throttler = throttler;
        this.time = time;
        this.swapListener = swapListener;
    }

    /** What a cleaning did: the next first dirty offset and its stats. */
    public record Result(long endOffset, CleanerStats stats) {
    }

    /**
     * Cleans {@code cleanable}. {@code checkDone} throws {@link LogCleaningAbortedException} when the cleaning
     * must stop (B189); it is called before every chunk read.
     */
    public Result clean(LogToClean cleanable, Runnable checkDone) throws IOException {
        Log target = cleanable.log();
        Log.CleanerView view = cleanable.view();
        long now = time.milliseconds();
        CleanerStats stats = new CleanerStats(now);
        map.clear();
        long upperBound = cleanable.firstUncleanableOffset();
        buildOffsetMap(view, cleanable.firstDirtyOffset(), upperBound, stats, checkDone);
        long endOffset = map.latestOffset() + 1;
        stats.mapCompleteMs = time.milliseconds();
        if (endOffset <= 0) {
            stats.endMs = time.milliseconds();
            return new Result(cleanable.firstDirtyOffset(), stats);
        }
        List<LogSegment> toClean = new ArrayList<>();
        List<LogSegment> closed = view.closedSegments();
        long groupEnd = view.activeBaseOffset();
        for (int i = 0; i < closed.size(); i++) {
            if (closed.get(i).baseOffset() >= endOffset) {
                groupEnd = closed.get(i).baseOffset();
                break;
            }
            toClean.add(closed.get(i));
        }
        LogConfig config = view.config();
        BatchCleaner batches = new BatchCleaner(map, now, config.deleteRetentionMs(), view.lastOffsetByProducer(),
                upperBound, stats);
        for (List<LogSegment> group : SegmentGroups.bySize(toClean, groupEnd, config.segmentBytes(),
                config.segmentIndexBytes())) {
            cleanGroup(target, view, group, batches, checkDone);
        }
        stats.bufferUtilization = map.utilization();
        stats.endMs = time.milliseconds();
        log.info("Cleaned {} up to offset {}: {}", target.topicPartition(), endOffset, stats);
        return new Result(endOffset, stats);
    }

    /** Maps the latest offset of every key in [from, upperBound), until the map reaches its load factor. */
    private void buildOffsetMap(Log.CleanerView view, long from, long upperBound, CleanerStats stats,
                                Runnable checkDone) throws IOException {
        int maxEntries = (int) Math.max(1, Math.min(map.slots(), (long) (map.slots() * loadFactor)));
        int maxBatch = view.config().maxMessageBytes();
        List<LogSegment> closed = view.closedSegments();
        boolean[] full = {false};
        for (int i = 0; i < closed.size() && !full[0]; i++) {
            LogSegment segment = closed.get(i);
            long end = i + 1 < closed.size() ? closed.get(i + 1).baseOffset() : view.activeBaseOffset();
            if (end <= from) {
                continue;
            }
            if (segment.baseOffset() >= upperBound) {
                break;
            }
            FileBatch first = from > segment.baseOffset() ? segment.translateOffset(from) : null;
            int start = first == null ? 0 : first.position();
            reader.read(segment.log(), start, maxBatch, throttler, checkDone, chunk -> {
                for (RecordBatch batch : chunk) {
                    if (full[0] || batch.baseOffset() >= upperBound) {
                        full[0] = true;
                        return;
                    }
                    stats.mapBytesRead += batch.sizeInBytes();
                    if (batch.isControlBatch()) {
                        continue;
                    }
                    for (Record record : batch.records()) {
                        stats.mapMessagesRead++;
                        if (record.key() == null || record.offset() < from || record.offset() >= upperBound) {
                            continue;
                        }
                        if (map.size() >= maxEntries && map.get(record.key()) < 0) {
                            full[0] = true; // the cleaning covers up to the last offset mapped (B182)
                            return;
                        }
                        map.put(record.key(), record.offset());
                    }
                }
            });
        }
    }

    private void cleanGroup(Log target, Log.CleanerView view, List<LogSegment> group, BatchCleaner batches,
                            Runnable checkDone) throws IOException {
        LogConfig config = view.config();
        long groupBytes = 0;
        for (LogSegment segment : group) {
            groupBytes += segment.size();
        }
        int indexBytes = LogSegment.activeIndexBytes((int) Math.max(1, Math.min(groupBytes, Integer.MAX_VALUE)),
                config.indexIntervalBytes(), config.segmentIndexBytes());
        LogSegment cleaned = LogSegment.createWithSuffix(target.dir(), group.get(0).baseOffset(),
                LogFileNames.CLEANED_SUFFIX, indexBytes, config.indexIntervalBytes(), time);
        boolean swapped = false;
        try {
            for (LogSegment segment : group) {
                reader.read(segment.log(), 0, config.maxMessageBytes(), throttler, checkDone, chunk -> {
                    List<RecordBatch> kept = new ArrayList<>(chunk.size());
                    for (RecordBatch batch : chunk) {
                        RecordBatch out = batches.clean(batch);
                        if (out != null) {
                            kept.add(out);
                        }
                    }
                    if (!kept.isEmpty()) {
                        MemoryRecords records = MemoryRecords.of(kept.toArray(new RecordBatch[0]));
                        cleaned.append(records, kept);
                        throttler.maybeThrottle(records.sizeInBytes());
                    }
                });
            }
            cleaned.onBecomeInactiveSegment();
            cleaned.flush();
            swapListener.reached(LogFileNames.filenamePrefixFromOffset(cleaned.baseOffset()) + " .cleaned written");
            checkDone.run();
            swapped = target.replaceSegments(view, cleaned, group, swapListener);
            if (!swapped) {
                throw new LogCleaningAbortedException("a segment of " + target.topicPartition()
                        + " left the log, or the log was truncated, while it was cleaned");
            }
        } finally {
            // Only a set still named .cleaned is dropped: once any file of it is .swap, the swap is the log's
            // (a failure there takes the log dir offline, and the next open completes it, B187).
            if (!swapped && cleaned.hasSuffix(LogFileNames.CLEANED_SUFFIX)) {
                cleaned.closeAndDeleteFiles();
            }
        }
    }
}
