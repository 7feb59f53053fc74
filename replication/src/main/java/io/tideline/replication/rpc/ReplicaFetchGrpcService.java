package io.tideline.replication.rpc;

import io.grpc.stub.StreamObserver;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.replication.FetchPartition;
import io.tideline.proto.replication.FetchedPartition;
import io.tideline.proto.replication.ReplicaFetchRequest;
import io.tideline.proto.replication.ReplicaFetchResponse;
import io.tideline.proto.replication.ReplicaFetchServiceGrpc;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.server.ReplicaManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's replica fetch endpoint. Malformed partitions (negative offsets, a bad topic, repeats) are
 * answered INVALID_REQUEST each, without touching the log; the rest go to the {@link ReplicaManager}.
 * The wait is capped so a follower cannot park a request for longer than the leader allows.
 *
 * <p>Two ways in, answered alike: {@code Fetch}, one call per fetch, and {@code FetchStream}, one call per
 * follower link carrying many fetches, each answered with its correlation id as soon as it is ready (so a
 * parked fetch holds back no other). The stream saves each fetch a call's headers, trailers and set-up, which
 * the profile of an acks=all produce showed to be most of a leader's replication CPU (docs/performance.md).
 * A stream's answers are written one at a time (a stream observer is not thread-safe and answers complete on
 * whichever thread appended the records); what a follower has not read waits in gRPC's send buffer, bounded by
 * the fetches it sent, which it bounds (one, or two when pipelining, per fetcher thread).
 */
public final class ReplicaFetchGrpcService extends ReplicaFetchServiceGrpc.ReplicaFetchServiceImplBase {
    private static final Logger log = LoggerFactory.getLogger(ReplicaFetchGrpcService.class);
    /** A follower may ask for a longer wait than this; the leader answers by then anyway. */
    static final int MAX_WAIT_CAP_MS = 30_000;

    private final ReplicaManager replicaManager;

    public ReplicaFetchGrpcService(ReplicaManager replicaManager) {
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
    }

    @Override
    public void fetch(ReplicaFetchRequest request, StreamObserver<ReplicaFetchResponse> observer) {
        answer(request, response -> {
            try {
                observer.onNext(response);
                observer.onCompleted();
            } catch (RuntimeException e) {
                // The caller went away (cancelled, deadline passed): nothing to answer.
                log.debug("Could not answer a replica fetch: {}", e.toString());
            }
        });
    }

    @Override
    public StreamObserver<ReplicaFetchRequest> fetchStream(StreamObserver<ReplicaFetchResponse> observer) {
        return new StreamObserver<>() {
            /** Guards observer and closed: answers complete on many threads. */
            private final Object lock = new Object();
            private boolean closed;

            @Override
            public void onNext(ReplicaFetchRequest request) {
                answer(request, this::send);
            }

            private void send(ReplicaFetchResponse response) {
                synchronized (lock) {
                    if (closed) {
                        return;
                    }
                    try {
                        observer.onNext(response);
                    } catch (RuntimeException e) {
                        // The follower went away (cancelled the stream, the connection broke).
                        closed = true;
                        log.debug("Could not answer a replica fetch on its stream: {}", e.toString());
                    }
                }
            }

            @Override
            public void onError(Throwable t) {
                // Cancelled by the follower or the connection lost: fetches still parked answer into nothing.
                synchronized (lock) {
                    closed = true;
                }
            }

            @Override
            public void onCompleted() {
                // The follower is done with this link (it stops or moves to another leader).
                synchronized (lock) {
                    if (!closed) {
                        closed = true;
                        try {
                            observer.onCompleted();
                        } catch (RuntimeException e) {
                            log.debug("Could not close a replica fetch stream: {}", e.toString());
                        }
                    }
                }
            }
        };
    }

    /** Answers one fetch through {@code reply}, at once or when the parked fetch completes. */
    private void answer(ReplicaFetchRequest request, Consumer<ReplicaFetchResponse> reply) {
        List<FollowerFetch> valid = new ArrayList<>();
        List<FetchedPartition> invalid = new ArrayList<>();
        Set<TopicPartition> seen = new HashSet<>();
        boolean badRequest = request.getReplicaId() < 0 || request.getMaxBytes() <= 0 || request.getMinBytes() < 0
                || request.getMaxWaitMs() < 0;
        for (FetchPartition p : request.getPartitionsList()) {
            String problem = badRequest ? "replica_id, max_bytes, min_bytes and max_wait_ms must not be negative"
                    : validate(p, seen);
            if (problem != null) {
                invalid.add(FetchedPartition.newBuilder().setTopic(p.getTopic()).setPartition(p.getPartition())
                        .setErrorCode(Errors.INVALID_REQUEST.code()).setHighWatermark(-1).setLogStartOffset(-1)
                        .setLogEndOffset(-1).setErrorMessage(problem).build());
            } else {
                valid.add(ReplicationProtos.fromProto(p));
            }
        }
        long correlationId = request.getCorrelationId();
        if (valid.isEmpty()) {
            reply.accept(ReplicaFetchResponse.newBuilder().setCorrelationId(correlationId).addAllPartitions(invalid)
                    .build());
            return;
        }
        int maxWait = Math.min(request.getMaxWaitMs(), MAX_WAIT_CAP_MS);
        replicaManager.fetchForReplica(request.getReplicaId(), valid, request.getMinBytes(), request.getMaxBytes(), maxWait)
                .whenComplete((answer, error) -> reply.accept(response(correlationId, invalid, answer, error)));
    }

    private static ReplicaFetchResponse response(long correlationId, List<FetchedPartition> invalid,
                                                 Map<TopicPartition, FetchResponseData> answer, Throwable error) {
        ReplicaFetchResponse.Builder b = ReplicaFetchResponse.newBuilder().setCorrelationId(correlationId)
                .addAllPartitions(invalid);
        if (error != null) {
            log.error("Replica fetch failed", error);
            return b.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).build();
        }
        answer.forEach((tp, data) -> b.addPartitions(ReplicationProtos.toProto(tp, data)));
        return b.build();
    }

    private static String validate(FetchPartition p, Set<TopicPartition> seen) {
        if (p.getTopic().isEmpty() || p.getPartition() < 0) {
            return "a partition needs a topic and a non-negative partition number";
        }
        if (p.getFetchOffset() < 0 || p.getPartitionMaxBytes() <= 0) {
            return "fetch_offset must not be negative and partition_max_bytes must be positive";
        }
        if (p.hasLogEndOffset() && (p.getLogEndOffset() < 0 || p.getLogEndOffset() > p.getFetchOffset())) {
            return "log_end_offset must be between 0 and fetch_offset";
        }
        if (!seen.add(new TopicPartition(p.getTopic(), p.getPartition()))) {
            return "partition listed twice in one fetch";
        }
        return null;
    }
}
