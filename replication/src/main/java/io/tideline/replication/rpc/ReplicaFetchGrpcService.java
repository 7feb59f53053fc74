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
import io.tideline.replication.server.FollowerFetch;
import io.tideline.replication.server.ReplicaManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's replica fetch endpoint. Malformed partitions (negative offsets, a bad topic, repeats) are
 * answered INVALID_REQUEST each, without touching the log; the rest go to the {@link ReplicaManager}.
 * The wait is capped so a follower cannot park a request for longer than the leader allows.
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
        if (valid.isEmpty()) {
            observer.onNext(ReplicaFetchResponse.newBuilder().addAllPartitions(invalid).build());
            observer.onCompleted();
            return;
        }
        int maxWait = Math.min(request.getMaxWaitMs(), MAX_WAIT_CAP_MS);
        replicaManager.fetchForReplica(request.getReplicaId(), valid, request.getMinBytes(), request.getMaxBytes(), maxWait)
                .whenComplete((answer, error) -> respond(observer, invalid, answer, error));
    }

    private static void respond(StreamObserver<ReplicaFetchResponse> observer, List<FetchedPartition> invalid,
                                Map<TopicPartition, FetchResponseData> answer, Throwable error) {
        try {
            if (error != null) {
                log.error("Replica fetch failed", error);
                observer.onNext(ReplicaFetchResponse.newBuilder().setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                        .addAllPartitions(invalid).build());
            } else {
                ReplicaFetchResponse.Builder b = ReplicaFetchResponse.newBuilder().addAllPartitions(invalid);
                answer.forEach((tp, data) -> b.addPartitions(ReplicationProtos.toProto(tp, data)));
                observer.onNext(b.build());
            }
            observer.onCompleted();
        } catch (RuntimeException e) {
            // The caller went away (cancelled, deadline passed): nothing to answer.
            log.debug("Could not answer a replica fetch: {}", e.toString());
        }
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
