package io.tideline.store.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.common.TopicPartition;
import io.tideline.common.io.FileUtils;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.log.Log;
import io.tideline.store.retention.RetentionExplanation;
import io.tideline.store.retention.SegmentRetention;
import io.tideline.store.retention.SegmentRetention.Status;
import io.tideline.store.segment.LogSegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The explanation and the retention pass cannot drift: over random logs, limits, high watermarks and
 * DeleteRecords, the segments {@link LogManager#explainRetention} calls due are exactly those the next
 * scheduled pass deletes, and every segment it calls kept is still in the log after that pass.
 */
class RetentionPassAgreementPropertyTest {
    private static final long HOUR_MS = RetentionExplanationTest.HOUR_MS;

    /** One closed segment: its records' age at the start, how many, and how large. */
    record SegmentSpec(long ageMs, int records, int valueBytes) {
    }

    record Scenario(List<SegmentSpec> segments, long retentionMs, int retentionBytesPercent, int highWatermarkPercent,
                    int deleteRecordsPercent, long waitMs) {
        // waitMs: how long after the appends the explanation is asked for, before the first pass
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        // Ages close to a retention.ms limit too, so that segments expire between the explanation and the pass.
        long interval = RetentionExplanationTest.CHECK_INTERVAL_MS;
        Arbitrary<Long> age = Arbitraries.oneOf(Arbitraries.longs().between(0, 6 * HOUR_MS),
                Arbitraries.longs().between(HOUR_MS - interval, HOUR_MS),
                Arbitraries.longs().between(3 * HOUR_MS - interval, 3 * HOUR_MS));
        Arbitrary<SegmentSpec> segment = Combinators.combine(age,
                Arbitraries.integers().between(1, 20), Arbitraries.integers().between(0, 300)).as(SegmentSpec::new);
        return Combinators.combine(segment.list().ofMinSize(0).ofMaxSize(8),
                Arbitraries.of(-1L, HOUR_MS, 3 * HOUR_MS),
                Arbitraries.integers().between(-1, 110),   // retention.bytes as a percentage of the log, -1: off
                Arbitraries.integers().between(0, 100),    // the high watermark, as a percentage of the log end
                Arbitraries.integers().between(0, 100),    // DeleteRecords, as a percentage of the high watermark
                Arbitraries.longs().between(0, interval - 1)).as(Scenario::new);
    }

    @Property(tries = 60)
    void theSegmentsCalledDueAreExactlyThoseTheNextPassDeletes(@ForAll("scenarios") Scenario s) throws Exception {
        Path root = Files.createTempDirectory("retention-agreement");
        MockTime time = new MockTime(1_800_000_000_000L);
        MockScheduler scheduler = new MockScheduler(time);
        LogManager manager = RetentionExplanationTest.startManager(root, time, scheduler);
        try {
            TopicPartition tp = new TopicPartition("agree", 0);
            Log log = manager.getOrCreateLog(tp, Map.of());
            for (SegmentSpec spec : s.segments()) {
                RetentionExplanationTest.append(log, time.milliseconds() - spec.ageMs(), spec.records(), spec.valueBytes());
                log.roll(log.logEndOffset());
            }
            RetentionExplanationTest.append(log, time.milliseconds(), 1, 10);
            log.updateHighWatermark(log.logEndOffset() * s.highWatermarkPercent() / 100);
            long target = log.highWatermark() * s.deleteRecordsPercent() / 100;
            if (target > 0) {
                log.deleteRecords(target);
            }
            Map<String, Object> limits = new HashMap<>();
            limits.put("retention.ms", s.retentionMs());
            limits.put("retention.bytes", s.retentionBytesPercent() < 0 ? -1L : log.size() * s.retentionBytesPercent() / 100);
            manager.updateTopicConfig(tp.topic(), limits);
            time.advance(s.waitMs()); // somewhere before the first pass

            RetentionExplanation e = manager.explainRetention(tp).orElseThrow();
            Set<Long> due = bases(e, Status.DUE);
            Set<Long> kept = bases(e, Status.KEPT);
            Set<Long> before = log.segments().stream().map(LogSegment::baseOffset).collect(Collectors.toSet());

            time.advance(e.nextRetentionPassMs() - time.milliseconds()); // the scheduled pass runs, nothing else
            Set<Long> after = log.segments().stream().map(LogSegment::baseOffset).collect(Collectors.toSet());
            Set<Long> deleted = before.stream().filter(b -> !after.contains(b)).collect(Collectors.toSet());
            assertEquals(due, deleted, () -> "explained " + e.segments());
            assertEquals(kept, after, () -> "explained " + e.segments());
        } finally {
            manager.close();
            FileUtils.deleteRecursively(root);
        }
    }

    private static Set<Long> bases(RetentionExplanation e, Status status) {
        return e.segments().stream().filter(x -> x.status() == status).map(SegmentRetention::baseOffset)
                .collect(Collectors.toSet());
    }
}
