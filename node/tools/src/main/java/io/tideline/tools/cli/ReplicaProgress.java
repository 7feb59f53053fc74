package io.tideline.tools.cli;

import io.tideline.client.PartitionReplicas;
import io.tideline.client.ReplicaDescription;
import io.tideline.client.ReplicaState;
import io.tideline.common.errors.Errors;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * How far each replica a reassignment adds is from joining the ISR, for {@code reassign-partitions --verify}
 * (a Tideline addition below Kafka's "still in progress" line): offsets and bytes behind the leader, the
 * catch-up rate over the leader's recent window, and the estimated time left, as a duration and as the
 * instant it would end (ISO-8601). Stateless.
 */
final class ReplicaProgress {
    private ReplicaProgress() {
    }

    /** One adding replica as --output json shows it; -1 where the estimate is unknown. */
    record Json(int brokerId, String state, String reason, long lagOffsets, long lagBytes,
                double catchUpBytesPerSecond, long estimatedMillisLeft, long estimatedCompletionMs) {
    }

    /** The lines for the adding replicas of one partition in progress, in the order given. */
    static List<String> lines(PartitionReplicas partition, List<Integer> adding, long nowMs) {
        List<String> lines = new ArrayList<>();
        for (int broker : adding) {
            ReplicaDescription r = find(partition, broker);
            lines.add(r == null ? missing(partition, broker) : line(r, nowMs));
        }
        return lines;
    }

    static List<Json> json(PartitionReplicas partition, List<Integer> adding, long nowMs) {
        List<Json> out = new ArrayList<>();
        for (int broker : adding) {
            ReplicaDescription r = find(partition, broker);
            if (r == null) {
                out.add(new Json(broker, "UNKNOWN", missingReason(partition), -1, -1, 0, -1, -1));
                continue;
            }
            long left = stopped(r) ? -1 : r.estimatedMillisLeft();
            out.add(new Json(broker, r.state().name(), r.reason() == null ? "" : r.reason(), r.lagOffsets(),
                    r.lagBytes(), r.catchUpBytesPerSecond(), left, left < 0 ? -1 : nowMs + left));
        }
        return out;
    }

    static String line(ReplicaDescription r, long nowMs) {
        String head = "  Replica " + r.brokerId() + ": ";
        if (stopped(r)) {
            return head + r.state() + (r.reason() == null || r.reason().isEmpty() ? "" : " (" + r.reason() + ")")
                    + ", not catching up.";
        }
        if (r.lagOffsets() <= 0 && r.lagBytes() <= 0) {
            return head + "caught up (log end offset " + r.logEndOffset() + "), joining the ISR.";
        }
        String behind = head + r.lagOffsets() + " offsets (" + r.lagBytes() + " bytes) behind";
        long left = r.estimatedMillisLeft();
        if (left < 0) {
            return behind + ", not catching up (" + r.state() + ").";
        }
        return behind + ", catching up at " + Math.round(r.catchUpBytesPerSecond()) + " bytes/s, about "
                + HumanDuration.format(left) + " left (around " + Instant.ofEpochMilli(nowMs + left) + ").";
    }

    /** OFFLINE and FAILED replicas report no lag (nothing is known of their log), which is not "caught up". */
    private static boolean stopped(ReplicaDescription r) {
        return r.state() == ReplicaState.OFFLINE || r.state() == ReplicaState.FAILED;
    }

    private static ReplicaDescription find(PartitionReplicas partition, int broker) {
        if (partition == null) {
            return null;
        }
        return partition.replicas().stream().filter(r -> r.brokerId() == broker).findFirst().orElse(null);
    }

    private static String missing(PartitionReplicas partition, int broker) {
        return "  Replica " + broker + ": no progress reported (" + missingReason(partition) + ").";
    }

    private static String missingReason(PartitionReplicas partition) {
        if (partition == null) {
            return "the partition was not described";
        }
        return partition.error() == Errors.NONE ? "the leader does not list it"
                : partition.error() + (partition.message() == null || partition.message().isEmpty() ? ""
                : ": " + partition.message());
    }
}
