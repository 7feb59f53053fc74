package io.tideline.cluster.history;

import io.tideline.cluster.history.HistoryEvent.FinalRead;
import io.tideline.cluster.history.HistoryEvent.ReplicaLog;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every replica's log is identical to the leader's (the final read) from the later of the two log start offsets
 * up to the high watermark, and after healing every replica has caught up to the leader's high watermark. One
 * violation per replica, at the first offset where it differs.
 */
final class ReplicaConsistencyCheck implements Check {

    @Override
    public void run(HistoryIndex history, CheckResult.Builder result) {
        for (HistoryEvent event : history.events()) {
            if (event instanceof ReplicaLog replica) {
                check(history, replica, result);
            }
        }
    }

    private static void check(HistoryIndex history, ReplicaLog replica, CheckResult.Builder result) {
        String who = "broker " + replica.broker() + "'s log of " + replica.partition();
        FinalRead leader = history.finalRead(replica.partition());
        if (leader == null) {
            result.violation(Violation.Kind.REPLICA_DIVERGES, who + " has no final read of the leader to compare to",
                List.of(replica));
            return;
        }
        if (replica.highWatermark() != leader.highWatermark()) {
            result.violation(Violation.Kind.REPLICA_DIVERGES, who + " has high watermark " + replica.highWatermark()
                + " but the leader's is " + leader.highWatermark(), List.of(leader, replica));
            return;
        }
        Map<Long, String> leaderValues = HistoryIndex.valuesByOffset(leader.entries());
        Map<Long, String> replicaValues = HistoryIndex.valuesByOffset(replica.entries());
        long from = Math.max(leader.logStartOffset(), replica.logStartOffset());
        for (long offset = from; offset < replica.highWatermark(); offset++) {
            String expected = leaderValues.get(offset);
            String actual = replicaValues.get(offset);
            if (!Objects.equals(expected, actual)) {
                result.violation(Violation.Kind.REPLICA_DIVERGES,
                    who + " diverges from the leader's at offset " + offset + ": leader has "
                        + (expected == null ? "no record" : expected) + ", replica has "
                        + (actual == null ? "no record" : actual),
                    List.of(leader, replica));
                return;
            }
        }
    }
}
