package io.tideline.cluster.scenarios;

import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.cluster.history.History;
import io.tideline.common.TopicPartition;
import io.tideline.store.log.Log;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Samples every running broker's high watermark and log start offset of one partition into a {@link History},
 * and tells the history when a broker's replica was deleted and created again (a reassignment moved it away and
 * back, which starts it empty), so that only a replica's own samples are compared. It tells them apart by the
 * {@link Log} object: a broker that shows another one without a restart in between, or one after having none,
 * has a new replica; after a {@link #restarted restart} the reopened log is the same replica. Sample often
 * enough that a replica is not removed and re-added between two samples unseen; one thread.
 */
final class ReplicaSampler {
    private final ClusterHarness cluster;
    private final TopicPartition tp;
    private final History history;
    /** Per broker, the log of its last sample; null once a sample found none. */
    private final Map<Integer, Log> seen = new HashMap<>();
    private final Set<Integer> restartedSinceSample = new HashSet<>();

    ReplicaSampler(ClusterHarness cluster, TopicPartition tp, History history) {
        this.cluster = cluster;
        this.tp = tp;
        this.history = history;
    }

    /** Marks {@code broker}'s restart in the history; its next log is the same replica reopened. */
    void restarted(int broker, boolean afterCrash) {
        if (afterCrash) {
            history.brokerRestartedAfterCrash(broker);
        } else {
            history.brokerRestarted(broker);
        }
        restartedSinceSample.add(broker);
    }

    void sample() {
        for (int broker : cluster.nodeIds()) {
            if (!cluster.isRunning(broker)) {
                continue;
            }
            // The LogManager's log, not the replica manager's: a restarted node has reopened its logs when it
            // starts, before its image makes them replicas again, so the first sample after a restart tells a
            // reopened replica (same one) from none (a later log is a new one).
            Optional<Log> current = cluster.node(broker).logManager().getLog(tp);
            boolean reopened = restartedSinceSample.remove(broker);
            if (current.isEmpty()) {
                if (seen.containsKey(broker)) {
                    seen.put(broker, null);
                }
                continue;
            }
            Log log = current.get();
            if (seen.containsKey(broker) && seen.get(broker) != log && !(reopened && seen.get(broker) != null)) {
                history.replicaRecreated(broker, tp);
            }
            seen.put(broker, log);
            history.replicaSample(broker, tp, log.highWatermark(), log.logStartOffset());
        }
    }
}
