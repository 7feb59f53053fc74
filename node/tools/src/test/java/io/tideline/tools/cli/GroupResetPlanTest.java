package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupResetPlanTest {
    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);

    /** Partition a-0 holds offsets 10-99, a-1 holds 0-49; a record at or after t=1000 is offset 40 in a-0 only. */
    private static final GroupResetPlan.LogOffsets LOGS = new GroupResetPlan.LogOffsets() {
        @Override
        public Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions) {
            return pick(partitions, Map.of(A0, 10L, A1, 0L));
        }

        @Override
        public Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions) {
            return pick(partitions, Map.of(A0, 100L, A1, 50L));
        }

        @Override
        public Map<TopicPartition, Long> forTimestamp(Collection<TopicPartition> partitions, long timestampMs) {
            return pick(partitions, Map.of(A0, timestampMs <= 1000 ? 40L : -1L, A1, -1L));
        }
    };

    private static Map<TopicPartition, Long> pick(Collection<TopicPartition> partitions, Map<TopicPartition, Long> all) {
        Map<TopicPartition, Long> out = new HashMap<>();
        partitions.forEach(tp -> out.put(tp, all.get(tp)));
        return out;
    }

    private static Map<TopicPartition, Long> plan(GroupResetPlan.Kind kind, long value, Map<TopicPartition, Long> committed,
                                                  List<String> warnings) {
        return GroupResetPlan.plan(new GroupResetPlan.Scenario(kind, value), List.of(A0, A1), committed, LOGS, warnings::add);
    }

    @Test
    void earliestAndLatestAreTheLogStartAndEndOfEachPartition() {
        assertEquals(Map.of(A0, 10L, A1, 0L), plan(GroupResetPlan.Kind.EARLIEST, 0, Map.of(), new ArrayList<>()));
        assertEquals(Map.of(A0, 100L, A1, 50L), plan(GroupResetPlan.Kind.LATEST, 0, Map.of(), new ArrayList<>()));
    }

    @Test
    void toOffsetAndShiftByAreClampedIntoTheLogWithAWarning() {
        List<String> warnings = new ArrayList<>();
        assertEquals(Map.of(A0, 10L, A1, 5L), plan(GroupResetPlan.Kind.OFFSET, 5, Map.of(), warnings));
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).contains("lower than the earliest offset of a-0"), warnings.toString());
        warnings.clear();
        assertEquals(Map.of(A0, 100L, A1, 30L), plan(GroupResetPlan.Kind.SHIFT_BY, 20, Map.of(A0, 90L, A1, 10L), warnings));
        assertTrue(warnings.get(0).contains("(110) is higher than the latest offset of a-0"), warnings.toString());
    }

    @Test
    void shiftByNeedsACommittedOffset() {
        CliException e = assertThrows(CliException.class,
                () -> plan(GroupResetPlan.Kind.SHIFT_BY, -1, Map.of(A0, 50L), new ArrayList<>()));
        assertTrue(e.getMessage().contains("a-1: it has no committed offset"), e.getMessage());
    }

    @Test
    void toCurrentKeepsCommittedOffsetsAndTakesTheLogEndElsewhere() {
        assertEquals(Map.of(A0, 42L, A1, 50L), plan(GroupResetPlan.Kind.CURRENT, 0, Map.of(A0, 42L), new ArrayList<>()));
    }

    @Test
    void aTimeAfterEveryRecordFallsBackToTheLogEnd() {
        List<String> warnings = new ArrayList<>();
        assertEquals(Map.of(A0, 40L, A1, 50L), plan(GroupResetPlan.Kind.DATETIME, 1000, Map.of(), warnings));
        assertEquals(List.of("Partition 1 of topic a has no record at or after the time; falling back to its log end "
                + "offset."), warnings);
    }

    @Test
    void aPartitionWithoutLogOffsetsFailsThePlan() {
        TopicPartition gone = new TopicPartition("gone", 0);
        CliException e = assertThrows(CliException.class, () -> GroupResetPlan.plan(
                new GroupResetPlan.Scenario(GroupResetPlan.Kind.EARLIEST, 0), List.of(gone), Map.of(), LOGS, w -> { }));
        assertEquals("could not get the starting offset of gone-0", e.getMessage());
    }

    @Test
    void datetimesTakeAnOptionalZoneAndDurationsCountBackFromNow() {
        assertEquals(1_000L, GroupResetPlan.parseDateTime("1970-01-01T00:00:01.000Z", ZoneId.of("UTC")));
        assertEquals(3_600_000L + 1_000L, GroupResetPlan.parseDateTime("1970-01-01T00:00:01.000", ZoneId.of("-01:00")));
        assertEquals(2_000L, GroupResetPlan.parseDateTime("1970-01-01T01:00:02+01:00", ZoneId.of("UTC")));
        assertEquals(10_000L - 90_000L, GroupResetPlan.parseDuration("PT1M30S", 10_000L));
        assertEquals(Cli.EXIT_USAGE, assertThrows(CliException.class,
                () -> GroupResetPlan.parseDateTime("yesterday", ZoneId.of("UTC"))).exitCode());
        assertEquals(Cli.EXIT_USAGE, assertThrows(CliException.class,
                () -> GroupResetPlan.parseDuration("PT-5S", 0)).exitCode());
    }
}
