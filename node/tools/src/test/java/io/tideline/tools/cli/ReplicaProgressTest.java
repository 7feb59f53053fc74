package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.client.PartitionReplicas;
import io.tideline.client.ReplicaDescription;
import io.tideline.client.ReplicaState;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicaProgressTest {
    private static final long NOW = Instant.parse("2026-12-01T14:05:31.123Z").toEpochMilli();

    private static ReplicaDescription replica(int id, ReplicaState state, String reason, long leo, long lagOffsets,
                                              long lagBytes, double bytesPerSec) {
        return new ReplicaDescription(id, state, reason, NOW - 1_000, leo, lagOffsets, lagBytes, bytesPerSec, 0);
    }

    @Test
    void aCatchingUpReplicaShowsItsLagRateAndTheTimeLeftAsDurationAndInstant() {
        // 1 MiB behind at 512 KiB/s: 2 s left.
        ReplicaDescription r = replica(4, ReplicaState.LAGGING, "", 800, 1200, 1_048_576, 524_288);
        assertEquals("  Replica 4: 1200 offsets (1048576 bytes) behind, catching up at 524288 bytes/s, about 2 s "
                + "left (around 2026-12-01T14:05:33.123Z).", ReplicaProgress.line(r, NOW));
        ReplicaProgress.Json json = ReplicaProgress.json(partition(r), List.of(4), NOW).get(0);
        assertEquals(new ReplicaProgress.Json(4, "LAGGING", "", 1200, 1_048_576, 524_288.0, 2_000, NOW + 2_000), json);
    }

    @Test
    void aReplicaNotClosingInHasNoEstimate() {
        ReplicaDescription stalled = replica(4, ReplicaState.LAGGING, "", 800, 1200, 4096, 0);
        assertEquals("  Replica 4: 1200 offsets (4096 bytes) behind, not catching up (LAGGING).",
                ReplicaProgress.line(stalled, NOW));
        assertEquals(-1, ReplicaProgress.json(partition(stalled), List.of(4), NOW).get(0).estimatedCompletionMs());
    }

    @Test
    void anOfflineReplicaSaysWhy() {
        ReplicaDescription offline = replica(4, ReplicaState.OFFLINE, "broker 4 is fenced", -1, 0, 0, 0);
        assertEquals("  Replica 4: OFFLINE (broker 4 is fenced), not catching up.", ReplicaProgress.line(offline, NOW));
        // No lag is known of it, which must not read as caught up.
        ReplicaProgress.Json json = ReplicaProgress.json(partition(offline), List.of(4), NOW).get(0);
        assertEquals(-1, json.estimatedMillisLeft());
        assertEquals(-1, json.estimatedCompletionMs());
    }

    @Test
    void aCaughtUpReplicaIsJoiningTheIsr() {
        ReplicaDescription done = replica(4, ReplicaState.LAGGING, "", 2000, 0, 0, 0);
        assertEquals("  Replica 4: caught up (log end offset 2000), joining the ISR.", ReplicaProgress.line(done, NOW));
    }

    @Test
    void aReplicaTheLeaderDoesNotListIsNamedWithTheReason() {
        PartitionReplicas unknown = new PartitionReplicas(new TopicPartition("t", 0), Errors.LEADER_NOT_AVAILABLE,
                "no leader", -1, 0, 0, 0, 0, List.of(), List.of());
        assertEquals(List.of("  Replica 4: no progress reported (LEADER_NOT_AVAILABLE: no leader)."),
                ReplicaProgress.lines(unknown, List.of(4), NOW));
    }

    private static PartitionReplicas partition(ReplicaDescription r) {
        return new PartitionReplicas(new TopicPartition("t", 0), Errors.NONE, "", 1, 3, 0, 2000, 2000, List.of(r),
                List.of());
    }
}
