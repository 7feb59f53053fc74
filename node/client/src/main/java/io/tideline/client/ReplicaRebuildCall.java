package io.tideline.client;

import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.AdminServiceGrpc.AdminServiceStub;
import io.tideline.proto.admin.RebuildReplicaRequest;
import io.tideline.proto.admin.RebuildReplicaResponse;
import java.util.function.Function;

/**
 * {@link TidelineAdmin#rebuildReplica}: the request goes straight to the broker of the replica, which owns
 * the follower's log and fetch state (the controller has no say over a follower's log; it only learns that
 * the failure was cleared). That broker checks the partition, the replica and its state; here only what is
 * needed to reach it is checked.
 */
final class ReplicaRebuildCall {
    private ReplicaRebuildCall() {
    }

    /**
     * @param anyBroker sends the request to any broker that answers: when broker {@code brokerId} cannot be
     *                  reached, another one still says whether the partition exists and the broker is a replica
     *                  of it (its NOT_LEADER_OR_FOLLOWER, "not that broker", then means broker down)
     */
    static RebuildResult run(TopicPartition tp, int brokerId, ClusterSnapshot cluster, BrokerChannels channels,
                             long timeoutMs, long slackMs,
                             Function<RebuildReplicaRequest, RebuildReplicaResponse> anyBroker) {
        RebuildReplicaRequest request = RebuildReplicaRequest.newBuilder().setTopic(tp.topic())
                .setPartition(tp.partition()).setBrokerId(brokerId).build();
        BrokerAddress address = cluster.brokers().get(brokerId);
        String down = "broker " + brokerId + " is not registered with the cluster";
        RebuildReplicaResponse response = null;
        if (address != null) {
            String target = "RebuildReplica to broker " + brokerId;
            try {
                AdminServiceStub stub = channels.admin(address, timeoutMs);
                response = Rpc.await(Rpc.call(target, stub::rebuildReplica, request), timeoutMs + slackMs, target);
            } catch (TidelineClientException e) {
                down = "broker " + brokerId + " did not answer: " + e.getMessage();
            } catch (RuntimeException e) {
                down = "broker " + brokerId + " could not be reached: " + e.getMessage();
            }
        }
        if (response == null) {
            response = anyBroker.apply(request);
            if (Errors.forCode(response.getErrorCode()) == Errors.NOT_LEADER_OR_FOLLOWER) {
                return refused(tp, brokerId, Errors.BROKER_NOT_AVAILABLE, down);
            }
        }
        Errors error = Errors.forCode(response.getErrorCode());
        return new RebuildResult(tp, brokerId, error, AdminProtos.message(error, response.getErrorMessage()),
                error == Errors.NONE ? response.getStartOffset() : -1, error == Errors.NONE ? response.getTargetOffset() : -1);
    }

    private static RebuildResult refused(TopicPartition tp, int brokerId, Errors error, String message) {
        return new RebuildResult(tp, brokerId, error, message, -1, -1);
    }
}
