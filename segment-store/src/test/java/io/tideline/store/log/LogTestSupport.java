package io.tideline.store.log;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.LogConfig;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Shared fixture of the log behaviour tests: one mock clock with its scheduler and a segment deleter
 * on it (advancing the clock runs delayed unlinks), logs opened in a temporary directory and closed at
 * the end, and builders for batches with chosen timestamps, sizes and offsets.
 */
final class LogTestSupport implements AutoCloseable {
    static final long HOUR_MS = 60 * 60 * 1000L;
    static final long DAY_MS = 24 * HOUR_MS;

    final Path root;
    final MockTime time = new MockTime();
    final MockScheduler scheduler = new MockScheduler(time);
    final SegmentDeleter deleter = new SegmentDeleter(scheduler);
    private final List<Log> opened = new ArrayList<>();
    private final List<LogManager> managers = new ArrayList<>();

    LogTestSupport(Path root) {
        this.root = root;
    }

    long now() {
        return time.milliseconds();
    }

    Log open(Map<String, ?> config) throws IOException {
        return open("orders-0", config, new Random(42));
    }

    Log open(String dirName, Map<String, ?> config, Random random) throws IOException {
        Log log = Log.open(root.resolve(dirName), LogConfig.fromMap(config), time, scheduler, random, deleter, 0L, 0L, -1L, true);
        opened.add(log);
        return log;
    }

    /** Closes {@code log} at the end with the others; for a log a test opened itself. */
    Log track(Log log) {
        opened.add(log);
        return log;
    }

    /** A started LogManager over {@code root/logs} on the mock clock and scheduler; closed at the end. */
    LogManager startManager(Map<String, ?> storeProps) throws IOException {
        Map<String, Object> props = new HashMap<>(storeProps);
        props.put("log.dirs", root.resolve("logs").toString());
        // No periodic checkpoint writes while a test jumps days ahead (0 disables them).
        props.putIfAbsent("log.flush.offset.checkpoint.interval.ms", 0);
        props.putIfAbsent("log.flush.start.offset.checkpoint.interval.ms", 0);
        LogManager manager = new LogManager(StoreConfig.fromMap(props), "cluster-a", 1, time, scheduler,
                new MetricRegistry(), new Random(5));
        manager.startup();
        managers.add(manager);
        return manager;
    }

    /** Reopens {@code log}'s directory after closing it, with its start offset as the checkpoint. */
    Log reopen(Log log, Map<String, ?> config) throws IOException {
        log.close();
        Log again = Log.open(log.dir(), LogConfig.fromMap(config), time, scheduler, new Random(7), deleter, log.logStartOffset(),
                log.recoveryPoint(), log.highWatermark(), true);
        opened.add(again);
        return again;
    }

    /**
     * Reopens {@code log} with {@code logStartOffset} as the checkpointed start offset: the way a log
     * holds closed segments wholly below its start offset (loading never deletes them; the next
     * retention pass does).
     */
    Log reopenWithStartOffset(Log log, Map<String, ?> config, long logStartOffset) throws IOException {
        log.close();
        Log again = Log.open(log.dir(), LogConfig.fromMap(config), time, scheduler, new Random(7), deleter, logStartOffset,
                log.recoveryPoint(), log.highWatermark(), true);
        opened.add(again);
        return again;
    }

    /** One batch of {@code count} records, all with {@code timestamp}, values of about 20 bytes. */
    static MemoryRecords batch(long timestamp, int count) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0);
        for (int i = 0; i < count; i++) {
            builder.append(timestamp, "key-" + i, "value-" + i + "-0123456789");
        }
        return builder.buildRecords();
    }

    /** One batch with one record per timestamp, in the order given. */
    static MemoryRecords batchWithTimestamps(long... timestamps) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0);
        for (int i = 0; i < timestamps.length; i++) {
            builder.append(timestamps[i], "key-" + i, "value-" + i);
        }
        return builder.buildRecords();
    }

    /** One record whose value has {@code valueBytes} bytes. */
    static MemoryRecords sizedBatch(long timestamp, int valueBytes) {
        return new RecordBatchBuilder(0).append(timestamp, new byte[] {1}, new byte[valueBytes]).buildRecords();
    }

    /** A batch as a leader wrote it: offsets from {@code baseOffset}, the leader's epoch. */
    static MemoryRecords followerBatch(long baseOffset, int leaderEpoch, long timestamp, int count) {
        RecordBatchBuilder builder = new RecordBatchBuilder(baseOffset).partitionLeaderEpoch(leaderEpoch);
        for (int i = 0; i < count; i++) {
            builder.append(timestamp, "key-" + i, "value-" + i);
        }
        return builder.buildRecords();
    }

    /**
     * A one-record batch at {@code baseOffset} whose last offset delta is {@code lastOffsetDelta}, as a
     * compacted batch can carry (offsets of removed records stay used); the CRC is recomputed.
     */
    static MemoryRecords sparseFollowerBatch(long baseOffset, int lastOffsetDelta, long timestamp) {
        RecordBatch batch = new RecordBatchBuilder(baseOffset).partitionLeaderEpoch(0)
                .append(timestamp, "key", "value").build();
        ByteBuffer buffer = batch.buffer();
        buffer.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, lastOffsetDelta);
        RecordBatch patched = RecordBatch.wrap(buffer);
        buffer.putInt(RecordBatch.CRC_OFFSET, (int) patched.computeChecksum());
        return MemoryRecords.of(RecordBatch.wrap(buffer));
    }

    /** Appends {@code count} batches of {@code recordsPerBatch} records with {@code timestamp}. */
    static void appendBatches(Log log, int count, int recordsPerBatch, long timestamp) {
        for (int i = 0; i < count; i++) {
            log.appendAsLeader(batch(timestamp, recordsPerBatch), 0);
        }
    }

    /** Every record from {@code from} up to the high watermark, read segment by segment. */
    static List<Record> readAll(Log log, long from) throws IOException {
        List<Record> records = new ArrayList<>();
        long next = from;
        long hw = log.highWatermark();
        while (next < hw) {
            try (FetchDataInfo fetch = log.read(next, Integer.MAX_VALUE, hw, true)) {
                List<Record> chunk = fetch.records().toMemoryRecords().records();
                if (chunk.isEmpty()) {
                    break;
                }
                for (Record r : chunk) {
                    if (r.offset() >= next) {
                        records.add(r);
                    }
                }
                next = chunk.get(chunk.size() - 1).offset() + 1;
            }
        }
        return records;
    }

    /** The names of the segment files in {@code dir} (the partition's checkpoint files left out), sorted. */
    static List<String> fileNames(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(name -> !name.equals(LogFileNames.LEADER_EPOCH_CHECKPOINT))
                    .filter(name -> !name.endsWith(".snapshot")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The segment file names of {@code baseOffset} for the given suffixes, e.g. ".log", ".index". */
    static List<String> segmentFiles(long baseOffset, String extraSuffix, String... suffixes) {
        List<String> names = new ArrayList<>();
        for (String suffix : suffixes) {
            names.add(LogFileNames.filenamePrefixFromOffset(baseOffset) + suffix + extraSuffix);
        }
        return names;
    }

    static List<Long> baseOffsets(Log log) {
        return log.segments().stream().map(LogSegment::baseOffset).toList();
    }

    @Override
    public void close() {
        for (LogManager manager : managers) {
            manager.close();
        }
        for (Log log : opened) {
            if (!log.isClosed()) {
                log.close();
            }
        }
    }
}
