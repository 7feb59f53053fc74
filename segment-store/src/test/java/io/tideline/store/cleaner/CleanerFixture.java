package io.tideline.store.cleaner;

import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.LogConfig;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.SegmentSwap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;

/**
 * Shared fixture of the cleaner tests: a mock clock and scheduler, logs of a compacted topic in a
 * temporary directory, one cleaning run by hand, and a reader that walks every batch (empty ones
 * included) up to the high watermark.
 */
final class CleanerFixture implements AutoCloseable {
    final Path root;
    final MockTime time = new MockTime();
    final MockScheduler scheduler = new MockScheduler(time);
    final SegmentDeleter deleter = new SegmentDeleter(scheduler);
    private final List<Log> opened = new ArrayList<>();

    CleanerFixture(Path root) {
        this.root = root;
    }

    static Map<String, Object> compactConfig(int segmentBytes) {
        Map<String, Object> config = new HashMap<>();
        config.put("cleanup.policy", "compact");
        config.put("segment.bytes", segmentBytes);
        config.put("min.cleanable.dirty.ratio", 0.01);
        config.put("file.delete.delay.ms", 1000L);
        return config;
    }

    Log open(String name, Map<String, ?> config) throws IOException {
        return open(root.resolve(name), config);
    }

    Log open(Path dir, Map<String, ?> config) throws IOException {
        Log log = Log.open(dir, LogConfig.fromMap(config), time, scheduler, new Random(3), deleter, 0L, 0L, -1L, true);
        opened.add(log);
        return log;
    }

    /** Opens a log from a directory a crash left behind: no clean-shutdown marker. */
    Log openAfterCrash(Path dir, Map<String, ?> config) throws IOException {
        Log log = Log.open(dir, LogConfig.fromMap(config), time, scheduler, new Random(3), deleter, 0L, 0L, -1L, false);
        opened.add(log);
        return log;
    }

    static Cleaner cleaner(MockTime time, SegmentSwap.StepListener listener) {
        return new Cleaner(new OffsetMap(1 << 20), 0.9, 64 * 1024, new Throttler(Double.MAX_VALUE, 300, time), time,
                listener);
    }

    /** One cleaning from {@code firstDirty}; returns the next first dirty offset. */
    Cleaner.Result clean(Log log, long firstDirty) throws IOException {
        return clean(log, firstDirty, SegmentSwap.StepListener.NONE);
    }

    Cleaner.Result clean(Log log, long firstDirty, SegmentSwap.StepListener listener) throws IOException {
        LogToClean cleanable = LogToClean.evaluate(log, log.cleanerView(), OptionalLong.of(firstDirty), time.milliseconds());
        return cleaner(time, listener).clean(cleanable, () -> { });
    }

    /** Every batch from the log start to the high watermark, in order, empty batches included. */
    static List<RecordBatch> readBatches(Log log) throws IOException {
        List<RecordBatch> batches = new ArrayList<>();
        long next = log.logStartOffset();
        long hw = log.highWatermark();
        while (next < hw) {
            try (FetchDataInfo fetch = log.read(next, Integer.MAX_VALUE, hw, true)) {
                List<RecordBatch> chunk = fetch.records().toMemoryRecords().batches();
                if (chunk.isEmpty()) {
                    break;
                }
                batches.addAll(chunk);
                next = chunk.get(chunk.size() - 1).nextOffset();
            }
        }
        return batches;
    }

    static List<Record> readRecords(Log log) throws IOException {
        List<Record> records = new ArrayList<>();
        for (RecordBatch batch : readBatches(log)) {
            records.addAll(batch.records());
        }
        return records;
    }

    static String string(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        for (Log log : opened) {
            if (!log.isClosed()) {
                log.close();
            }
        }
    }
}
