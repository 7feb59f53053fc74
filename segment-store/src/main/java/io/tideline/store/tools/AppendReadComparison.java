package io.tideline.store.tools;

import static io.tideline.store.tools.BenchmarkSupport.inTurn;

import io.tideline.common.io.FileUtils;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.ThreadPoolScheduler;
import io.tideline.common.time.Time;
import io.tideline.store.config.LogConfig;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.tools.BenchmarkSupport.Turn;
import io.tideline.store.tools.StorageBenchmark.Shape;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * bench-storage's append and read comparison of one shape: {@link Log#appendAsLeader} and {@link Log#read}
 * next to a plain {@link FileChannel} writing and reading the same serialized batches, over alternating
 * rounds, keeping the best time of each side.
 */
final class AppendReadComparison {
    /** Every random value of the run comes from this seed, so two runs write the same bytes. */
    static final long SEED = 42L;
    private static final int READ_BYTES = 1024 * 1024;

    private final int rounds;

    AppendReadComparison(int rounds) {
        this.rounds = rounds;
    }

    static long totalBytes(List<MemoryRecords> batches) {
        long bytes = 0;
        for (MemoryRecords batch : batches) {
            bytes += batch.sizeInBytes();
        }
        return bytes;
    }

    /** Best times of the store and of the plain file doing the same I/O; see {@link #compare}. */
    record Comparison(WriteTimes append, WriteTimes rawWrite, long readNs, long rawReadNs, int segments) {
    }

    /**
     * Runs {@code rounds} rounds; each appends the batches to a fresh log and writes them to a fresh
     * plain file, then reads both back, alternating which side goes first from round to round, and
     * keeps the best time of each side. Phases last a few hundred milliseconds, so a single one is at
     * the mercy of write-back from the previous phase or a neighbour on the shared disk; the best of
     * several alternating rounds gives both sides the same chances.
     */
    Comparison compare(Path base, Shape shape, List<MemoryRecords> batches, long expectedRecords,
                          long expectedBytes) throws IOException, InterruptedException {
        Files.createDirectories(base);
        WriteTimes bestAppend = null;
        WriteTimes bestRaw = null;
        long bestRead = Long.MAX_VALUE;
        long bestRawRead = Long.MAX_VALUE;
        int segments = 0;
        for (int round = 0; round < rounds; round++) {
            Path rawFile = base.resolve("raw-write-" + round + ".bin");
            // A real scheduler thread, as on a broker: the flush of each segment closed by a roll runs
            // on it while appends go on (SteppedClock would never run it: the final flush would do all).
            try (ThreadPoolScheduler scheduler = new ThreadPoolScheduler("bench-storage-scheduler", 1);
                 Log log = openLog(base.resolve("append-" + round), shape.segmentBytes(), Time.SYSTEM, scheduler)) {
                // The plain file writes first and the store reads first in even rounds, the reverse in odd ones.
                boolean rawFirst = round % 2 == 0;
                Turn<WriteTimes, WriteTimes> writes = inTurn(rawFirst, () -> appendAll(log, batches),
                        () -> rawWrite(rawFile, batches));
                Turn<Long, Long> reads = inTurn(!rawFirst, () -> readAll(log, expectedRecords, expectedBytes),
                        () -> rawRead(rawFile));
                WriteTimes append = writes.measurement();
                WriteTimes raw = writes.baseline();
                long read = reads.measurement();
                long rawRead = reads.baseline();
                bestAppend = bestAppend == null ? append : bestAppend.best(append);
                bestRaw = bestRaw == null ? raw : bestRaw.best(raw);
                bestRead = Math.min(bestRead, read);
                bestRawRead = Math.min(bestRawRead, rawRead);
                segments = log.numberOfSegments();
            }
            if (round < rounds - 1) {
                // Each round's files go before the next, so the page cache and the disk start alike;
                // the last round's stay for --keep.
                FileUtils.deleteRecursively(base.resolve("append-" + round));
                Files.deleteIfExists(rawFile);
            }
        }
        return new Comparison(bestAppend, bestRaw, bestRead, bestRawRead, segments);
    }

    static List<MemoryRecords> buildBatches(Shape shape, int count, long timestamp) {
        Random random = new Random(SEED);
        List<MemoryRecords> batches = new ArrayList<>(count / shape.batchSize() + 1);
        for (int built = 0; built < count; ) {
            int n = Math.min(shape.batchSize(), count - built);
            RecordBatchBuilder builder = new RecordBatchBuilder(0L);
            for (int i = 0; i < n; i++) {
                byte[] value = new byte[shape.recordSize()];
                random.nextBytes(value);
                builder.append(timestamp, null, value);
            }
            batches.add(builder.buildRecords());
            built += n;
        }
        return batches;
    }

    static Log openLog(Path logDir, int segmentBytes, Time time, Scheduler scheduler) throws IOException {
        LogConfig config = LogConfig.fromMap(Map.of(
                LogConfig.SEGMENT_BYTES_CONFIG, segmentBytes,
                LogConfig.MAX_MESSAGE_BYTES_CONFIG, segmentBytes,
                LogConfig.RETENTION_MS_CONFIG, -1L));
        return Log.open(logDir, config, time, scheduler, new Random(SEED), new SegmentDeleter(scheduler), 0L, 0L, -1L, true);
    }

    /**
     * Appends every batch (one call each), then flushes; returns the time until the last append
     * returned (page cache) and until the flush returned (on disk).
     */
    private static WriteTimes appendAll(Log log, List<MemoryRecords> batches) {
        long start = System.nanoTime();
        for (MemoryRecords batch : batches) {
            log.appendAsLeader(batch, 0);
        }
        long written = System.nanoTime();
        log.flush();
        return new WriteTimes(written - start, System.nanoTime() - start);
    }

    /** Nanoseconds to write into the page cache, and to have the same bytes on disk (one fsync at the end). */
    record WriteTimes(long pageCacheNs, long durableNs) {
        WriteTimes best(WriteTimes other) {
            return new WriteTimes(Math.min(pageCacheNs, other.pageCacheNs), Math.min(durableNs, other.durableNs));
        }
    }

    /** Writes the same serialized batches to a plain file, one write per batch, then fsyncs it once. */
    private static WriteTimes rawWrite(Path file, List<MemoryRecords> batches) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long start = System.nanoTime();
            for (MemoryRecords batch : batches) {
                ByteBuffer buffer = batch.buffer();
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }
            long written = System.nanoTime();
            channel.force(true);
            return new WriteTimes(written - start, System.nanoTime() - start);
        }
    }

    /** Reads the whole log front to back, checking it saw everything; returns nanoseconds. */
    private static long readAll(Log log, long expectedRecords, long expectedBytes) throws IOException {
        long offset = log.logStartOffset();
        long end = log.logEndOffset();
        long records = 0;
        long bytes = 0;
        long start = System.nanoTime();
        while (offset < end) {
            try (FetchDataInfo fetch = log.read(offset, READ_BYTES, end, true)) {
                MemoryRecords data = fetch.records().toMemoryRecords();
                for (RecordBatch batch : data.batches()) {
                    if (batch.nextOffset() <= offset) {
                        continue; // only whole batches are read; never count one twice
                    }
                    records += batch.recordCount();
                    bytes += batch.sizeInBytes();
                    offset = batch.nextOffset();
                }
            }
        }
        long elapsed = System.nanoTime() - start;
        if (records != expectedRecords || bytes != expectedBytes) {
            throw new IllegalStateException("the read saw " + records + " records / " + bytes + " bytes, expected "
                    + expectedRecords + " / " + expectedBytes);
        }
        return elapsed;
    }

    /** Reads a file front to back in 1 MiB reads into one buffer; returns nanoseconds. */
    private static long rawRead(Path file) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(READ_BYTES);
        long sink = 0;
        long start = System.nanoTime();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (channel.read(buffer) > 0) {
                buffer.flip();
                sink += buffer.get(0);
                buffer.clear();
            }
        }
        long elapsed = System.nanoTime() - start;
        return sink == Long.MIN_VALUE ? elapsed + 1 : elapsed; // keeps the reads observable
    }
}
