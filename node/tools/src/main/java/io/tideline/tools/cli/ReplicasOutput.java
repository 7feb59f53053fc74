package io.tideline.tools.cli;

import io.tideline.client.PartitionReplicas;
import io.tideline.client.RebuildResult;
import io.tideline.client.ReplicaDescription;
import io.tideline.client.ReplicaState;
import io.tideline.common.errors.Errors;
import java.io.PrintStream;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What {@code replicas --describe} and {@code --rebuild} print: text with ISO-8601 times, or JSON documents
 * (the records below; times in epoch milliseconds, fields only ever added at the end; docs/cli.md).
 */
final class ReplicasOutput {
    private ReplicasOutput() {
    }

    /** One partition: a header, a line per replica, then the ISR history, oldest first. */
    static void print(PrintStream out, PartitionReplicas p) {
        out.println("Topic: " + p.partition().topic() + "\tPartition: " + p.partition().partition() + "\tLeader: "
                + p.leader() + "\tLeaderEpoch: " + p.leaderEpoch() + "\tLogStartOffset: " + p.logStartOffset()
                + "\tHighWatermark: " + p.highWatermark() + "\tLogEndOffset: " + p.logEndOffset());
        if (p.error() != Errors.NONE) {
            out.println("\tError: " + p.error() + ": " + p.message());
        }
        for (ReplicaDescription r : p.replicas()) {
            out.println(replicaLine(r));
        }
        if (!p.isrHistory().isEmpty()) {
            out.println("\tIsrHistory:");
        }
        for (PartitionReplicas.IsrChange c : p.isrHistory()) {
            out.println("\t\t" + time(c.timestampMs()) + "\tLeader: " + c.leader() + "\tLeaderEpoch: " + c.leaderEpoch()
                    + "\tIsr: " + ids(c.isr()) + "\tReason: " + c.reason());
        }
    }

    static String replicaLine(ReplicaDescription r) {
        StringBuilder b = new StringBuilder("\tReplica: ").append(r.brokerId()).append("\tState: ").append(r.state())
                .append("\tSince: ").append(time(r.sinceMs())).append("\tLogEndOffset: ").append(r.logEndOffset());
        if (r.state() == ReplicaState.LAGGING || r.state() == ReplicaState.REBUILDING) {
            b.append("\tLag: ").append(r.lagOffsets()).append(" offsets, ").append(r.lagBytes()).append(" bytes")
                    .append(String.format(Locale.ROOT, "\tCatchUp: %.0f B/s, %.1f offsets/s", r.catchUpBytesPerSecond(),
                            r.catchUpOffsetsPerSecond()));
        }
        r.rebuild().ifPresent(g -> b.append(String.format(Locale.ROOT, "\tProgress: start %d, target %d, current %d "
                + "(%.1f%%)", g.startOffset(), g.targetOffset(), g.currentOffset(), g.percent())));
        if (!r.reason().isEmpty()) {
            b.append("\tReason: ").append(r.reason());
        }
        return b.toString();
    }

    /** ISO-8601 (Instant's form), "-" when unknown. */
    static String time(long epochMs) {
        return epochMs < 0 ? "-" : Instant.ofEpochMilli(epochMs).toString();
    }

    private static String ids(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** {@code replicas --describe}. */
    record Described(List<Partition> partitions) {
        static Described of(Collection<PartitionReplicas> all) {
            return new Described(all.stream().map(Partition::of).toList());
        }
    }

    /**
     * {@code underReplicated}: some replica is not IN_SYNC. Offsets are -1 when the leader did not answer.
     */
    record Partition(String topic, int partition, String error, String message, int leader, int leaderEpoch,
                     long logStartOffset, long highWatermark, long logEndOffset, boolean underReplicated,
                     List<Replica> replicas, List<IsrChange> isrHistory) {
        static Partition of(PartitionReplicas p) {
            return new Partition(p.partition().topic(), p.partition().partition(), p.error().name(),
                    p.message() == null ? "" : p.message(), p.leader(), p.leaderEpoch(), p.logStartOffset(),
                    p.highWatermark(), p.logEndOffset(),
                    p.replicas().stream().anyMatch(r -> r.state() != ReplicaState.IN_SYNC),
                    p.replicas().stream().map(Replica::of).toList(),
                    p.isrHistory().stream().map(c -> new IsrChange(c.timestampMs(), c.leader(), c.leaderEpoch(), c.isr(),
                            c.reason())).toList());
        }
    }

    /** {@code failure} is set for FAILED as its broker reported it, {@code rebuild} for REBUILDING; else null. */
    record Replica(int brokerId, String state, String reason, long sinceMs, long logEndOffset, long lagOffsets,
                   long lagBytes, double catchUpBytesPerSecond, double catchUpOffsetsPerSecond, Failure failure,
                   Rebuild rebuild) {
        static Replica of(ReplicaDescription r) {
            return new Replica(r.brokerId(), r.state().name(), r.reason(), r.sinceMs(), r.logEndOffset(), r.lagOffsets(),
                    r.lagBytes(), r.catchUpBytesPerSecond(), r.catchUpOffsetsPerSecond(),
                    r.failure().map(f -> new Failure(f.fetchOffset(), f.leaderLogStartOffset(), f.leaderLogEndOffset()))
                            .orElse(null),
                    r.rebuild().map(g -> new Rebuild(g.startOffset(), g.targetOffset(), g.currentOffset(), g.percent()))
                            .orElse(null));
        }
    }

    record Failure(long fetchOffset, long leaderLogStartOffset, long leaderLogEndOffset) {
    }

    record Rebuild(long startOffset, long targetOffset, long currentOffset, double percent) {
    }

    record IsrChange(long timestampMs, int leader, int leaderEpoch, List<Integer> isr, String reason) {
    }

    /** {@code replicas --rebuild}: offsets are -1 when refused. */
    record Rebuilt(String topic, int partition, int brokerId, String error, String message, long startOffset,
                   long targetOffset) {
        static Rebuilt of(RebuildResult r) {
            return new Rebuilt(r.partition().topic(), r.partition().partition(), r.brokerId(), r.error().name(),
                    r.message() == null ? "" : r.message(), r.startOffset(), r.targetOffset());
        }
    }
}
