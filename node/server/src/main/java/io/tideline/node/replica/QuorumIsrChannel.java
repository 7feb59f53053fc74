package io.tideline.node.replica;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.replication.leader.IsrProposal;
import io.tideline.replication.server.IsrChangeResult;
import io.tideline.replication.server.IsrChannel;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/** ISR changes through the metadata quorum: an AlterPartition command, answered with the committed state. */
public final class QuorumIsrChannel implements IsrChannel {
    private final ControllerClient client;
    private final int brokerId;
    private final LongSupplier brokerEpoch;

    /** @param brokerEpoch the epoch of this broker's current registration */
    public QuorumIsrChannel(ControllerClient client, int brokerId, LongSupplier brokerEpoch) {
        this.client = Objects.requireNonNull(client, "client");
        this.brokerId = brokerId;
        this.brokerEpoch = Objects.requireNonNull(brokerEpoch, "brokerEpoch");
    }

    @Override
    public CompletableFuture<IsrChangeResult> alterPartition(TopicPartition tp, String topicId, int leaderEpoch,
                                                             IsrProposal proposal) {
        AlterPartition request = AlterPartition.newBuilder()
                .setBrokerId(brokerId)
                .setBrokerEpoch(brokerEpoch.getAsLong())
                .setTopicId(topicId)
                .setPartition(tp.partition())
                .setLeaderEpoch(leaderEpoch)
                .setPartitionEpoch(proposal.partitionEpoch())
                .addAllNewIsr(proposal.newIsr())
                .setReason(IsrProposal.LAGGING.equals(proposal.reason()) ? ChangeReason.LAGGING : ChangeReason.CAUGHT_UP)
                .build();
        return client.alterPartition(request).thenApply(response -> {
            if (response.getErrorCode() != Errors.NONE.code()) {
                return IsrChangeResult.refused(Errors.forCode(response.getErrorCode()));
            }
            if (!response.hasPartition()) {
                return IsrChangeResult.refused(Errors.UNKNOWN_SERVER_ERROR);
            }
            return IsrChangeResult.committed(response.getPartition().getIsrList(),
                    response.getPartition().getPartitionEpoch());
        });
    }
}
