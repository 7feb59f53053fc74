package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import io.tideline.replication.leader.IsrProposal;
import java.util.concurrent.CompletableFuture;

/**
 * How a leader asks the controller to change a partition's ISR (AlterPartition). The node implements it
 * over the metadata quorum; the ISR never changes any other way.
 */
@FunctionalInterface
public interface IsrChannel {

    /**
     * @return the controller's answer; the future may also complete exceptionally (treated as a refusal)
     */
    CompletableFuture<IsrChangeResult> alterPartition(TopicPartition tp, String topicId, int leaderEpoch,
                                                      IsrProposal proposal);
}
