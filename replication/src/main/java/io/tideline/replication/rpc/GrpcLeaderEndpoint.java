package io.tideline.replication.rpc;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.replication.FetchedPartition;
import io.tideline.proto.replication.ReplicaFetchRequest;
import io.tideline.proto.replication.ReplicaFetchResponse;
import io.tideline.proto.replication.ReplicaFetchServiceGrpc;
import io.tideline.replication.fetcher.LeaderEndpoint;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A follower's link to one leader over gRPC. The channel is owned by the caller (shared by the broker's
 * clients of that leader). Fetches go out on one long-lived {@code FetchStream} call ({@link FetchStream}),
 * opened on the first fetch and again after it ends; a leader that does not know that method (a node of an
 * older release, answering UNIMPLEMENTED) is fetched from with one {@code Fetch} call per fetch from then on,
 * each with a deadline of its wait plus {@link #DEADLINE_SLACK_MS}. On the stream there is no per-call
 * deadline: the fetcher thread gives up on a fetch after its own timeout and cancels it, which cancels the
 * stream (see {@link FetchStream#abandon}).
 *
 * <p>Keep one endpoint per leader and channel: each holds its stream. Responses are read with
 * {@link FetchResponseMarshaller}: the records arrive as read-only views of the one array the message was
 * received into. Thread-safe.
 */
public final class GrpcLeaderEndpoint implements LeaderEndpoint, AutoCloseable {
    static final long DEADLINE_SLACK_MS = 15_000L;

    /** The generated Fetch method, with the response read by {@link FetchResponseMarshaller}. */
    static final MethodDescriptor<ReplicaFetchRequest, ReplicaFetchResponse> FETCH_METHOD =
            ReplicaFetchServiceGrpc.getFetchMethod().toBuilder(ReplicaFetchServiceGrpc.getFetchMethod()
                    .getRequestMarshaller(), FetchResponseMarshaller.INSTANCE).build();

    /** The generated FetchStream method, with the responses read by {@link FetchResponseMarshaller}. */
    static final MethodDescriptor<ReplicaFetchRequest, ReplicaFetchResponse> FETCH_STREAM_METHOD =
            ReplicaFetchServiceGrpc.getFetchStreamMethod().toBuilder(ReplicaFetchServiceGrpc.getFetchStreamMethod()
                    .getRequestMarshaller(), FetchResponseMarshaller.INSTANCE).build();

    private final Channel channel;
    private final long brokerEpoch;
    private final AtomicLong correlationIds = new AtomicLong();
    /** Guarded by this; null before the first fetch. */
    private FetchStream stream;
    /** Set once the leader answered the stream UNIMPLEMENTED: unary calls from then on. */
    private volatile boolean unaryOnly;
    private volatile boolean closed;

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
        CompletableFuture<ReplicaFetchResponse> answer = unaryOnly ? unary(request, maxWaitMs) : streamed(request, maxWaitMs);
        CompletableFuture<Map<TopicPartition, FetchResponseData>> result = cancelling(() -> answer.cancel(false));
        answer.whenComplete((response, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else if (response.getErrorCode() != 0) {
                result.completeExceptionally(new IllegalStateException("Leader answered "
                        + Errors.forCode(response.getErrorCode())));
            } else {
                Map<TopicPartition, FetchResponseData> data = new LinkedHashMap<>();
                for (FetchedPartition p : response.getPartitionsList()) {
                    data.put(ReplicationProtos.topicPartition(p), ReplicationProtos.fromProto(p));
                }
                result.complete(data);
            }
        });
        return result;
    }

    /** Sends on the stream, opening one when there is none; falls back to a unary call where the stream is unknown. */
    private CompletableFuture<ReplicaFetchResponse> streamed(ReplicaFetchRequest.Builder request, int maxWaitMs) {
        if (closed) {
            return CompletableFuture.failedFuture(Status.CANCELLED.withDescription("the leader endpoint is closed")
                    .asRuntimeException());
        }
        long id = correlationIds.incrementAndGet();
        ReplicaFetchRequest message = request.setCorrelationId(id).build();
        CompletableFuture<ReplicaFetchResponse> answer = new CompletableFuture<>();
        FetchStream on = openStream();
        Status refused = on.send(id, message, answer);
        if (refused != null && refused.getCode() != Status.Code.UNIMPLEMENTED) {
            // It ended a moment ago; once more on a new one (a second failure is the fetcher's to back off from).
            on = openStream();
            refused = on.send(id, message, answer);
        }
        if (refused != null) {
            answer.completeExceptionally(refused.asRuntimeException());
        }
        FetchStream sentOn = on;
        CompletableFuture<ReplicaFetchResponse> out = cancelling(() -> sentOn.abandon(id));
        answer.whenComplete((response, failure) -> {
            if (failure != null && Status.fromThrowable(failure).getCode() == Status.Code.UNIMPLEMENTED) {
                // A leader of an older release: this fetch, and every later one, as a unary call.
                unaryOnly = true;
                unary(request, maxWaitMs).whenComplete((r, f) -> complete(out, r, f));
            } else {
                complete(out, response, failure);
            }
        });
        return out;
    }

    /** A future whose cancellation (the fetcher giving up) also runs {@code onCancel}, passing it down the layers. */
    private static <T> CompletableFuture<T> cancelling(Runnable onCancel) {
        return new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                onCancel.run();
                return super.cancel(mayInterruptIfRunning);
            }
        };
    }

    private static <T> void complete(CompletableFuture<T> future, T value, Throwable failure) {
        if (failure != null) {
            future.completeExceptionally(failure);
        } else {
            future.complete(value);
        }
    }

    private synchronized FetchStream openStream() {
        if (stream == null || !stream.isOpen()) {
            stream = new FetchStream(channel);
        }
        return stream;
    }

    /** Cancels the stream; later fetches fail. The channel stays the caller's. */
    @Override
    public synchronized void close() {
        closed = true;
        if (stream != null) {
            stream.close();
        }
    }

    private CompletableFuture<ReplicaFetchResponse> unary(ReplicaFetchRequest.Builder request, int maxWaitMs) {
        ListenableFuture<ReplicaFetchResponse> call = ClientCalls.futureUnaryCall(channel.newCall(FETCH_METHOD,
                CallOptions.DEFAULT.withDeadlineAfter(maxWaitMs + DEADLINE_SLACK_MS, TimeUnit.MILLISECONDS)),
                request.setCorrelationId(0).build());
        CompletableFuture<ReplicaFetchResponse> result = cancelling(() -> call.cancel(false));
        Futures.addCallback(call, new FutureCallback<>() {
            @Override
            public void onSuccess(ReplicaFetchResponse response) {
                result.complete(response);
            }

            @Override
            public void onFailure(Throwable t) {
                result.completeExceptionally(t);
            }
        }, MoreExecutors.directExecutor());
        return result;
    }
}
