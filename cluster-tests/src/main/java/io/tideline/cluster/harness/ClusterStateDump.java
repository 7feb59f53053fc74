package io.tideline.cluster.harness;

import io.tideline.common.TopicPartition;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.server.TidelineNode;
import io.tideline.proto.metadata.FailedReplicaRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.server.Partition;
import io.tideline.store.log.Log;
import java.util.Comparator;
import java.util.Map;

/**
 * The text a failing cluster test prints: per running node, the metadata image it applied (brokers, each
 * partition's leader, epoch, replicas and ISR, the FAILED replica records), then its own replicas (role, log
 * bounds, and for a follower the fetcher's state and failure); killed or stopped nodes are named as such.
 */
final class ClusterStateDump {
    private ClusterStateDump() {
    }

    static String render(Map<Integer, TidelineNode> running, Iterable<Integer> allIds, String network) {
        StringBuilder out = new StringBuilder("cluster state\n");
        for (int id : allIds) {
            TidelineNode node = running.get(id);
            if (node == null) {
                out.append("node ").append(id).append(": DOWN (killed or stopped)\n");
                continue;
            }
            try {
                node(out, node);
            } catch (RuntimeException e) {
                // a half-stopped node must not hide the state of the others
                out.append("  (dump failed: ").append(e).append(")\n");
            }
        }
        out.append("network\n").append(network).append('\n');
        return out.toString();
    }

    private static void node(StringBuilder out, TidelineNode node) {
        MetadataImage image = node.image();
        out.append("node ").append(node.nodeId()).append(": broker epoch ").append(node.brokerEpoch())
                .append(node.isFenced() ? " FENCED" : " unfenced").append(", quorum leader ")
                .append(node.quorum().flatMap(q -> q.leaderId()).map(String::valueOf).orElse("-"))
                .append(", image offset ").append(image.offset()).append('\n');
        out.append("  brokers ").append(image.brokers().keySet().stream()
                .map(b -> b + (image.isBrokerUnfenced(b) ? "" : "(fenced)")).toList()).append('\n');
        image.topics().forEach((name, topic) -> topic.partitions().forEach((p, record) ->
                out.append("  image ").append(name).append('-').append(p).append(": ").append(partition(record))
                        .append('\n')));
        for (FailedReplicaRecord f : image.failedReplicas().values()) {
            out.append("  failed-replica record: topic id ").append(f.getTopicId()).append('-').append(f.getPartition())
                    .append(" broker ").append(f.getBrokerId()).append(f.getCleared() ? " (cleared)" : "")
                    .append(": ").append(f.getReason()).append('\n');
        }
        node.replicaManager().partitions().stream()
                .sorted(Comparator.comparing(p -> p.topicPartition().toString()))
                .forEach(p -> out.append("  replica ").append(replica(node, p)).append('\n'));
    }

    private static String partition(PartitionRecord r) {
        String text = "leader " + r.getLeader() + " epoch " + r.getLeaderEpoch() + " replicas " + r.getReplicasList()
                + " isr " + r.getIsrList();
        if (r.getAddingReplicasCount() > 0 || r.getRemovingReplicasCount() > 0) {
            text += " adding " + r.getAddingReplicasList() + " removing " + r.getRemovingReplicasList();
        }
        return text;
    }

    private static String replica(TidelineNode node, Partition p) {
        TopicPartition tp = p.topicPartition();
        Log log = p.log();
        StringBuilder s = new StringBuilder(tp.toString()).append(p.isLeader() ? " LEADER" : " follower")
                .append(" isr ").append(p.isr()).append(" log [").append(log.logStartOffset()).append(", ")
                .append(log.logEndOffset()).append(") hw ").append(log.highWatermark())
                .append(" segments ").append(log.numberOfSegments());
        node.replicaManager().followerStatus(tp).ifPresent(f -> {
            s.append(" fetcher: ").append(f.status()).append(" from leader ").append(f.leaderId()).append(" epoch ")
                    .append(f.leaderEpoch()).append(" lag ").append(f.lag());
            f.failure().ifPresent(r -> s.append(" failure: fetch offset ").append(r.fetchOffset()).append(" outside [")
                    .append(r.leaderLogStartOffset()).append(", ").append(r.leaderLogEndOffset()).append(") ")
                    .append(r.message()));
        });
        return s.toString();
    }
}
