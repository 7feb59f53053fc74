package io.tideline.replication.rpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.tideline.proto.replication.ReplicaFetchRequest;
import io.tideline.proto.replication.ReplicaFetchResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One {@code FetchStream} call from a follower to a leader: fetches go out as messages of it, each with a
 * correlation id, and each answer completes the fetch of its id, in whatever order the leader answers.
 *
 * <p>When the call ends (the leader stops, the connection breaks, the leader does not know the method) every
 * fetch still waiting fails with that status and the stream is dead; {@link GrpcLeaderEndpoint} opens a new one
 * for the next fetch. Registering a fetch and failing the waiting ones happen under one lock, so no fetch is
 * registered on a stream that has already failed its waiters (it would wait for the fetcher's timeout).
 *
 * <p>Thread-safe.
 */
final class FetchStream {
    private final Object lock = new Object();
    private final ClientCall<ReplicaFetchRequest, ReplicaFetchResponse> call;
    private final StreamObserver<ReplicaFetchRequest> requests;
    /** Fetches sent and not answered, by correlation id. Guarded by lock. */
    private final Map<Long, CompletableFuture<ReplicaFetchResponse>> waiting = new HashMap<>();
    /** Why the stream ended; null while it is open. Guarded by lock. */
    private Status ended;

    FetchStream(Channel channel) {
        call = channel.newCall(GrpcLeaderEndpoint.FETCH_STREAM_METHOD, CallOptions.DEFAULT);
        requests = ClientCalls.asyncBidiStreamingCall(call, new StreamObserver<>() {
            @Override
            public void onNext(ReplicaFetchResponse response) {
                CompletableFuture<ReplicaFetchResponse> fetch;
                synchronized (lock) {
                    fetch = waiting.remove(response.getCorrelationId());
                }
                // Null: a fetch given up on (cancelled), whose answer came anyway.
                if (fetch != null) {
                    fetch.complete(response);
                }
            }

            @Override
            public void onError(Throwable t) {
                end(Status.fromThrowable(t));
            }

            @Override
            public void onCompleted() {
                end(Status.UNAVAILABLE.withDescription("the leader closed the replica fetch stream"));
            }
        });
    }

    /** False once the stream has ended: the caller opens another. */
    boolean isOpen() {
        synchronized (lock) {
            return ended == null;
        }
    }

    /**
     * Sends {@code request} (which carries {@code correlationId}); null when sent, else the status the stream
     * had already ended with (nothing sent; the leader may have refused the method at once, UNIMPLEMENTED).
     */
    Status send(long correlationId, ReplicaFetchRequest request, CompletableFuture<ReplicaFetchResponse> answer) {
        synchronized (lock) {
            if (ended != null) {
                return ended;
            }
            waiting.put(correlationId, answer);
            try {
                // Under the lock too: a call's messages must not be sent from two threads at once.
                requests.onNext(request);
            } catch (RuntimeException e) {
                // The call was cancelled a moment ago: the stream is over.
                waiting.remove(correlationId);
                ended = Status.CANCELLED.withDescription("the replica fetch stream was cancelled").withCause(e);
                return ended;
            }
        }
        return null;
    }

    /**
     * Gives up on the fetch of {@code correlationId}, which the fetcher no longer waits for (its timeout passed,
     * or it stops). The whole stream is cancelled: a fetch that timed out says the link may be dead, and the next
     * fetch should go out on a fresh call rather than behind it.
     */
    void abandon(long correlationId) {
        synchronized (lock) {
            waiting.remove(correlationId);
        }
        call.cancel("a replica fetch was given up on", null);
    }

    /** Ends the stream from the follower's side: it no longer fetches from this leader over this channel. */
    void close() {
        call.cancel("the follower closed the replica fetch stream", null);
    }

    private void end(Status status) {
        List<CompletableFuture<ReplicaFetchResponse>> failed;
        synchronized (lock) {
            if (ended == null) {
                ended = status;
            }
            failed = new ArrayList<>(waiting.values());
            waiting.clear();
        }
        failed.forEach(f -> f.completeExceptionally(status.asRuntimeException()));
    }
}
