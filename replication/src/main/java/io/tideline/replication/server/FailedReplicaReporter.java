package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import io.tideline.replication.follower.FailureReason;
import java.util.Optional;

/**
 * Tells the controller that a local replica FAILED (policy halt) or recovered (rebuilt): operators see
 * it in the partition's metadata. The node implements it with ReportFailedReplicas.
 */
@FunctionalInterface
public interface FailedReplicaReporter {
    FailedReplicaReporter NONE = (tp, reason) -> { };

    /** @param reason present when the replica failed, empty when it is healthy again */
    void report(TopicPartition tp, Optional<FailureReason> reason);
}
