package io.tideline.store.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.RetentionExplanation;
import io.tideline.store.retention.RetentionReason;
import io.tideline.store.retention.RetentionReason.Kind;
import io.tideline.store.retention.SegmentRetention;
import io.tideline.store.retention.SegmentRetention.Status;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LogManager#explainRetention}: each reason a segment is still on disk (docs/behaviours.md B9-B19,
 * B59), reached with the mock clock, and what the next pass does with the segments it calls due.
 */
class RetentionExplanationTest {
    static final long HOUR_MS = 3_600_000L;
    static final long CHECK_INTERVAL_MS = 60_000L;
    static final long DELETE_DELAY_MS = 30_000L;

    @TempDir
    Path root;

    private final MockTime time = new MockTime(1_800_000_000_000L);
    private final MockScheduler scheduler = new MockScheduler(time);
    private LogManager manager;

    @BeforeEach
    void start() throws Exception {
        manager = startManager(root, time, scheduler);
    }

    @AfterEach
    void stop() {
        manager.close();
    }

    static LogManager startManager(Path root, MockTime time, MockScheduler scheduler) throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put("log.dirs", root.resolve("data").toString());
        props.put("log.retention.check.interval.ms", CHECK_INTERVAL_MS);
        props.put("log.segment.delete.delay.ms", DELETE_DELAY_MS);
        props.put("log.retention.ms", -1);
        LogManager m = new LogManager(StoreConfig.fromMap(props), "cluster", 1, time, scheduler, new MetricRegistry(),
                new Random(3));
        m.startup();
        return m;
    }

    /** Appends one batch of {@code records} records of {@code valueBytes} bytes, all stamped {@code timestamp}. */
    static void append(Log log, long timestamp, int records, int valueBytes) {
        RecordBatchBuilder b = new RecordBatchBuilder(0);
        for (int i = 0; i < records; i++) {
            b.append(timestamp, null, new byte[valueBytes]);
        }
        log.appendAsLeader(b.buildRecords(), 0);
    }

    /** A closed segment of one batch per timestamp, then an active segment with one fresh batch. */
    private Log logWithSegments(String topic, Map<String, Object> overrides, long... timestamps) {
        Log log = manager.getOrCreateLog(new TopicPartition(topic, 0), overrides);
        for (long ts : timestamps) {
            append(log, ts, 10, 10);
            log.roll(log.logEndOffset());
        }
        append(log, time.milliseconds(), 10, 10);
        return log;
    }

    private RetentionExplanation explain(String topic) {
        return manager.explainRetention(new TopicPartition(topic, 0)).orElseThrow();
    }

    private static SegmentRetention segment(RetentionExplanation e, long baseOffset, Status status) {
        return e.segments().stream().filter(s -> s.baseOffset() == baseOffset && s.status() == status).findFirst()
                .orElseThrow(() -> new AssertionError("no " + status + " segment at " + baseOffset + ": " + e.segments()));
    }

    private static List<Kind> kinds(SegmentRetention s) {
        return s.reasons().stream().map(RetentionReason::kind).toList();
    }

    @Test
    void timeReasonsActiveSegmentAndThePrefixRuleWithTheirDeadlines() {
        long now = time.milliseconds();
        Log log = logWithSegments("timed", Map.of("retention.ms", HOUR_MS), now - 2 * HOUR_MS, now - HOUR_MS / 6,
                now - 3 * HOUR_MS);
        RetentionExplanation e = explain("timed");
        long nextPass = now + CHECK_INTERVAL_MS;
        assertEquals(nextPass, e.nextRetentionPassMs());
        assertEquals(4, e.segments().size(), e.toString());

        SegmentRetention expired = segment(e, 0, Status.DUE);
        assertEquals(List.of(new RetentionReason(Kind.DUE_RETENTION_MS, nextPass, -1, -1)), expired.reasons());
        assertEquals(now - 2 * HOUR_MS, expired.largestTimestamp());

        SegmentRetention fresh = segment(e, 10, Status.KEPT);
        assertEquals(List.of(Kind.RETENTION_BYTES_DISABLED, Kind.WITHIN_RETENTION_MS), kinds(fresh));
        assertEquals(now - HOUR_MS / 6 + HOUR_MS + 1, fresh.reasons().get(1).atMs(),
                "the first instant at which now - largest timestamp > retention.ms");

        SegmentRetention blocked = segment(e, 20, Status.KEPT);
        assertEquals(new RetentionReason(Kind.BLOCKED_BY_OLDER_SEGMENT, -1, 10, -1), blocked.reasons().get(1),
                "expired, but the segment before it stays (B10)");

        assertEquals(List.of(Kind.ACTIVE_SEGMENT), kinds(segment(e, 30, Status.KEPT)));
    }

    @Test
    void aSegmentThatExpiresBeforeTheNextPassIsDueAtThatPass() {
        long now = time.milliseconds();
        // Its newest record leaves the hour 10 s from now, 50 s before the pass.
        logWithSegments("soon", Map.of("retention.ms", HOUR_MS), now - HOUR_MS + 10_000);
        RetentionExplanation e = explain("soon");
        assertEquals(List.of(new RetentionReason(Kind.DUE_RETENTION_MS, now + CHECK_INTERVAL_MS, -1, -1)),
                segment(e, 0, Status.DUE).reasons());
        time.advance(CHECK_INTERVAL_MS - 1);
        assertEquals(Status.DUE, segment(explain("soon"), 0, Status.DUE).status(), "not deleted before the pass");
        time.advance(1);
        assertEquals(Status.AWAITING_UNLINK, segment(explain("soon"), 0, Status.AWAITING_UNLINK).status());
    }

    @Test
    void aRenamedSegmentWaitsForItsUnlinkThenIsReportedHeldOpenWhileAReaderHoldsIt() throws Exception {
        long now = time.milliseconds();
        Log log = logWithSegments("held", Map.of("retention.ms", HOUR_MS), now - 2 * HOUR_MS);
        FetchDataInfo reading = log.read(0, 1 << 20, log.highWatermark(), true);
        long size = segment(explain("held"), 0, Status.DUE).sizeBytes();

        time.advance(CHECK_INTERVAL_MS); // the pass runs and renames segment 0
        long pass = time.milliseconds();
        RetentionExplanation renamed = explain("held");
        assertEquals(List.of(new RetentionReason(Kind.AWAITING_UNLINK, pass + DELETE_DELAY_MS, -1, size)),
                segment(renamed, 0, Status.AWAITING_UNLINK).reasons());
        assertEquals(1, manager.describeLogDirs(tp -> true).get(0).partitions().get(0).pendingUnlink().size());

        time.advance(DELETE_DELAY_MS); // unlinked, but the read still holds the file
        RetentionExplanation held = explain("held");
        assertEquals(List.of(new RetentionReason(Kind.DELETED_HELD_OPEN, -1, -1, size)),
                segment(held, 0, Status.DELETED_HELD_OPEN).reasons());
        LogDirDescription.Replica replica = manager.describeLogDirs(tp -> tp.topic().equals("held")).get(0)
                .partitions().get(0);
        assertEquals(0, replica.pendingUnlink().size());
        assertEquals(1, replica.deletedOpen().size());
        assertEquals(size, replica.deletedOpen().get(0).sizeBytes());

        reading.close();
        assertTrue(explain("held").segments().stream().noneMatch(s -> s.baseOffset() == 0), "the last reader closed it");
        assertEquals(0, manager.describeLogDirs(tp -> true).get(0).partitions().get(0).deletedOpen().size());
    }

    @Test
    void sizeReasonsNeededAndBlockedWithTheExcessLeft() {
        long now = time.milliseconds();
        Log log = manager.getOrCreateLog(new TopicPartition("sized", 0), Map.of());
        append(log, now, 10, 50);   // segment 0
        log.roll(log.logEndOffset());
        append(log, now, 10, 200);  // segment 10: large
        log.roll(log.logEndOffset());
        append(log, now, 1, 10);    // segment 20: small
        log.roll(log.logEndOffset());
        append(log, now, 1, 10);    // active 21
        List<Long> sizes = log.segments().stream().map(s -> (long) s.size()).toList();
        long total = sizes.stream().mapToLong(Long::longValue).sum();
        // Excess over retention.bytes: segment 0 plus the small segment's size; the large one does not fit.
        long excessAfter = sizes.get(2);
        manager.updateTopicConfig("sized", Map.of("retention.bytes", total - sizes.get(0) - excessAfter));

        RetentionExplanation e = explain("sized");
        assertEquals(List.of(new RetentionReason(Kind.DUE_RETENTION_BYTES, e.nextRetentionPassMs(), -1, -1)),
                segment(e, 0, Status.DUE).reasons());
        assertEquals(List.of(new RetentionReason(Kind.NEEDED_FOR_RETENTION_BYTES, -1, -1, excessAfter),
                new RetentionReason(Kind.RETENTION_MS_DISABLED, -1, -1, -1)), segment(e, 10, Status.KEPT).reasons());
        assertEquals(new RetentionReason(Kind.BLOCKED_BY_OLDER_SEGMENT, -1, 10, -1),
                segment(e, 20, Status.KEPT).reasons().get(0), "it would fit the excess, but segment 10 stays (B10)");
    }

    @Test
    void segmentsReachingTheHighWatermarkStayAndOnesWhollyBelowTheLogStartOffsetAreDue() {
        long old = time.milliseconds() - 10 * HOUR_MS;
        Log log = logWithSegments("fenced", Map.of("retention.ms", HOUR_MS), old, old, old);
        log.updateHighWatermark(15); // inside segment 10
        RetentionExplanation e = explain("fenced");
        assertEquals(Status.DUE, segment(e, 0, Status.DUE).status());
        assertEquals(List.of(new RetentionReason(Kind.NOT_BELOW_HIGH_WATERMARK, -1, 15, -1)),
                segment(e, 10, Status.KEPT).reasons());
        assertEquals(List.of(Kind.NOT_BELOW_HIGH_WATERMARK), kinds(segment(e, 20, Status.KEPT)));

        // DeleteRecords up to the log end, inside the active segment: nothing can go until it rolls (B28).
        Log moved = logWithSegments("moved", Map.of(), time.milliseconds());
        assertEquals(20, moved.deleteRecords(20).lowWatermark());
        assertEquals(List.of(Kind.ACTIVE_SEGMENT), kinds(segment(explain("moved"), 10, Status.KEPT)));
        moved.roll(moved.logEndOffset());
        RetentionExplanation rolled = explain("moved");
        assertEquals(List.of(new RetentionReason(Kind.DUE_BELOW_LOG_START_OFFSET, rolled.nextRetentionPassMs(), -1, -1)),
                segment(rolled, 10, Status.DUE).reasons());
        assertEquals(20, rolled.logStartOffset());

        time.advance(rolled.nextRetentionPassMs() - time.milliseconds());
        assertEquals(Status.AWAITING_UNLINK, segment(explain("moved"), 10, Status.AWAITING_UNLINK).status());
    }

    @Test
    void theNextPassIsCountedFromTheRetentionSchedule() {
        assertEquals(1_000 + 60_000, RetentionExplainer.nextPassMs(1_000, 60_000, 1_000));
        assertEquals(1_000 + 60_000, RetentionExplainer.nextPassMs(1_000, 60_000, 60_999));
        assertEquals(1_000 + 120_000, RetentionExplainer.nextPassMs(1_000, 60_000, 61_000),
                "a pass due now has already run");
        time.advance(CHECK_INTERVAL_MS * 3 + 5);
        assertEquals(time.milliseconds() - 5 + CHECK_INTERVAL_MS, manager.nextRetentionPassMs());
    }
}
