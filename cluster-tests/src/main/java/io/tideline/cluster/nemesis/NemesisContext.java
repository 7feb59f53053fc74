package io.tideline.cluster.nemesis;

import io.tideline.client.TidelineAdmin;
import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.common.TopicPartition;
import io.tideline.store.log.Log;
import java.util.Optional;

/** What the operations act on: the cluster, an admin client of it, and the partition of the round. */
public record NemesisContext(ClusterHarness cluster, TidelineAdmin admin, TopicPartition partition) {

    /** The partition's leader as the first running node's image has it, if that leader is running. */
    public Optional<Integer> runningLeader() {
        for (int viewer : cluster.nodeIds()) {
            if (cluster.isRunning(viewer)) {
                int leader = cluster.node(viewer).image().partition(partition.topic(), partition.partition())
                        .map(p -> p.getLeader()).orElse(-1);
                return leader >= 0 && cluster.isRunning(leader) ? Optional.of(leader) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Broker {@code broker}'s local log of the partition, if it is running and has one. */
    public Optional<Log> log(int broker) {
        return cluster.isRunning(broker) ? cluster.node(broker).replicaManager().log(partition) : Optional.empty();
    }
}
