package io.tideline.node.controller;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The partitions the controller's periodic unclean election can bring back (docs/metadata.md, "Unclean
 * election"): no leader, {@code unclean.leader.election.enable} true for the topic (its own value, else the
 * cluster-wide dynamic default, else the controller's static setting), and a live replica to elect. A partition
 * whose replicas are all gone is left out, so a cluster with one dead broker's partitions does not submit the
 * same futile command every interval.
 */
public final class LeaderlessPartitions {
    private LeaderlessPartitions() {
    }

    /** At most {@code max} of them, in topic and partition order. */
    public static List<TopicPartitionRef> uncleanElectable(MetadataImage image, ControllerSettings settings, int max) {
        List<TopicPartitionRef> out = new ArrayList<>();
        for (TopicImage t : image.topics().values()) {
            if (!TopicHandlers.uncleanElection(image, t, settings)) {
                continue;
            }
            for (PartitionRecord p : t.partitions().values()) {
                if (out.size() >= max) {
                    return out;
                }
                if (p.getLeader() == LeaderElection.NO_LEADER
                        && LeaderElection.uncleanLeader(image, p.getReplicasList(), Set.of()) != LeaderElection.NO_LEADER) {
                    out.add(TopicPartitionRef.newBuilder().setTopic(t.name()).setPartition(p.getPartition()).build());
                }
            }
        }
        return out;
    }
}
