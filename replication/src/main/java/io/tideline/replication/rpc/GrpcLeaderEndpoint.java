package io.tideline.replication.rpc;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.replication.FetchedPartition;
import io.tideline.proto.replication.ReplicaFetchRequest;
import io.tideline.proto.replication.ReplicaFetchResponse;
import io.tideline.proto.replication.ReplicaFetchServiceGrpc;
import io.tideline.replication.fetcher.LeaderEndpoint;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.server.FollowerFetch;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A follower's link to one leader over gRPC. The channel is owned by the caller (shared by the broker's
 * clients of that leader); each fetch carries a deadline of its wait plus {@link #DEADLINE_SLACK_MS}.
 * Responses are read with {@link FetchResponseMarshaller}: the records arrive as read-only views of the
 * one array the message was received into.
 */
public final class GrpcLeaderEndpoint implements LeaderEndpoint {
    static final long DEADLINE_SLACK_MS = 15_000L;

    /** The generated Fetch method, with the response read by {@link FetchResponseMarshaller}. */
    static final MethodDescriptor<ReplicaFetchRequest, ReplicaFetchResponse> FETCH_METHOD =
            ReplicaFetchServiceGrpc.getFetchMethod().toBuilder(ReplicaFetchServiceGrpc.getFetchMethod()
                    .getRequestMarshaller(), FetchResponseMarshaller.INSTANCE).build();

    private final Channel channel;
    private final long brokerEpoch;

    public GrpcLeaderEndpoint(Channel channel, long brokerEpoch) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.brokerEpoch = brokerEpoch;
    }

    @Override
    public CompletableFuture<Map<TopicPartition, FetchResponseData>> fetch(int replicaId, List<FollowerFetch> partitions,
                                                                           int minBytes, int maxBytes, int maxWaitMs) {
        ReplicaFetchRequest.Builder request = ReplicaFetchRequest.newBuilder()
                .setReplicaId(replicaId).setBrokerEpoch(brokerEpoch)
                .setMinBytes(minBytes).setMaxBytes(maxBytes).setMaxWaitMs(maxWaitMs);
        partitions.forEach(p -> request.addPartitions(ReplicationProtos.toProto(p)));
        ListenableFuture<ReplicaFetchResponse> call = ClientCalls.futureUnaryCall(channel.newCall(FETCH_METHOD,
                CallOptions.DEFAULT.withDeadlineAfter(maxWaitMs + DEADLINE_SLACK_MS, TimeUnit.MILLISECONDS)),
                request.build());
        CompletableFuture<Map<TopicPartition, FetchResponseData>> result = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                call.cancel(false);
                return super.cancel(mayInterruptIfRunning);
            }
        };
        Futures.addCallback(call, new FutureCallback<>() {
            @Override
            public void onSuccess(ReplicaFetchResponse response) {
                if (response.getErrorCode() != 0) {
                    result.completeExceptionally(new IllegalStateException("Leader answered "
                            + Errors.forCode(response.getErrorCode())));
                    return;
                }
                Map<TopicPartition, FetchResponseData> answer = new LinkedHashMap<>();
                for (FetchedPartition p : response.getPartitionsList()) {
                    answer.put(ReplicationProtos.topicPartition(p), ReplicationProtos.fromProto(p));
                }
                result.complete(answer);
            }

            @Override
            public void onFailure(Throwable t) {
                result.completeExceptionally(t);
            }
        }, MoreExecutors.directExecutor());
        return result;
    }
}
