package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.LogConfig;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogSmokeTest {
    @TempDir
    Path tmp;

    @Test
    void appendReadRollRetainReopen() throws Exception {
        MockTime time = new MockTime();
        MockScheduler scheduler = new MockScheduler(time);
        SegmentDeleter deleter = new SegmentDeleter(scheduler);
        LogConfig config = LogConfig.fromMap(Map.of("segment.bytes", 1024, "retention.ms", 60_000, "index.interval.bytes", 100));
        Path dir = tmp.resolve("orders-0");
        Log log = Log.open(dir, config, time, scheduler, new Random(1), deleter, 0, 0, -1, true);
        for (int i = 0; i < 100; i++) {
            MemoryRecords r = new RecordBatchBuilder(0).append(time.milliseconds(), "k" + i, "value-" + i).buildRecords();
            LogAppendInfo info = log.appendAsLeader(r, 3);
            assertEquals(i, info.firstOffset());
        }
        assertEquals(100, log.logEndOffset());
        assertTrue(log.numberOfSegments() > 3, "segments: " + log.numberOfSegments());
        try (FetchDataInfo fetch = log.read(37, 10_000, log.highWatermark(), true)) {
            List<Record> records = fetch.records().toMemoryRecords().records();
            assertTrue(records.get(0).offset() <= 37);
            for (int i = 1; i < records.size(); i++) {
                assertEquals(records.get(i - 1).offset() + 1, records.get(i).offset());
            }
            // One read returns data of one segment, as Kafka's does: it ends where the next segment starts.
            long nextSegmentBase = log.segments().stream().mapToLong(s -> s.baseOffset()).filter(b -> b > 37).min().orElseThrow();
            assertEquals(nextSegmentBase - 1, records.get(records.size() - 1).offset());
        }
        time.advance(120_000);
        log.appendAsLeader(new RecordBatchBuilder(0).append(time.milliseconds(), "k", "fresh").buildRecords(), 3);
        int deleted = log.deleteOldSegments();
        assertTrue(deleted > 0);
        assertEquals(log.segments().get(0).baseOffset(), log.logStartOffset());
        log.close();
        Log reopened = Log.open(dir, config, time, scheduler, new Random(1), deleter, log.logStartOffset(), log.recoveryPoint(), -1, true);
        assertEquals(101, reopened.logEndOffset());
        reopened.close();
    }
}
