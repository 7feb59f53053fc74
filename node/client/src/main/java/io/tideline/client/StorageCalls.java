package io.tideline.client;

import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.AdminServiceGrpc.AdminServiceStub;
import io.tideline.proto.admin.CompactionState;
import io.tideline.proto.admin.DeletedOpenFileInfo;
import io.tideline.proto.admin.DescribeLogDirsRequest;
import io.tideline.proto.admin.DescribeLogDirsResponse;
import io.tideline.proto.admin.ExplainRetentionRequest;
import io.tideline.proto.admin.ExplainRetentionResponse;
import io.tideline.proto.admin.LogDirInfo;
import io.tideline.proto.admin.LogDirReplica;
import io.tideline.proto.admin.LogDirSegmentFile;
import io.tideline.proto.admin.RetentionReasonInfo;
import io.tideline.proto.admin.SegmentRetentionInfo;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The admin calls about brokers' own storage. Unlike the topic calls, each goes to a named broker, since
 * only that broker knows its disks: describeLogDirs asks every broker it is given at once (Kafka's admin
 * client does the same), and explainRetention asks one. A broker that does not answer within
 * request.timeout.ms is a result with its error, never a hang or an exception for the whole call.
 * Thread-safe.
 */
final class StorageCalls {
    private static final long RPC_SLACK_MS = 5_000;

    private final AdminConfig config;
    private final BrokerChannels channels;
    private final MetadataManager metadata;
    private final Supplier<ClusterDescription> cluster;

    StorageCalls(AdminConfig config, BrokerChannels channels, MetadataManager metadata,
                 Supplier<ClusterDescription> cluster) {
        this.config = config;
        this.channels = channels;
        this.metadata = metadata;
        this.cluster = cluster;
    }

    Map<Integer, BrokerLogDirs> describeLogDirs(Collection<Integer> brokerIds, Collection<String> topics) {
        Map<Integer, ClusterDescription.Broker> known = brokers();
        Collection<Integer> asked = brokerIds.isEmpty() ? known.keySet() : brokerIds;
        DescribeLogDirsRequest request = DescribeLogDirsRequest.newBuilder().addAllTopics(topics).build();
        Map<Integer, CompletableFuture<DescribeLogDirsResponse>> calls = new TreeMap<>();
        Map<Integer, BrokerLogDirs> results = new TreeMap<>();
        for (int id : asked) {
            ClusterDescription.Broker b = known.get(id);
            if (b == null || b.host() == null || b.host().isEmpty()) {
                results.put(id, new BrokerLogDirs(id, Errors.BROKER_NOT_AVAILABLE, "broker " + id + " is not registered",
                        List.of()));
                continue;
            }
            String target = "DescribeLogDirs to broker " + id + " (" + b.host() + ":" + b.port() + ")";
            calls.put(id, call(target, new BrokerAddress(b.host(), b.port()),
                    (stub, observer) -> stub.describeLogDirs(request, observer)));
        }
        calls.forEach((id, future) -> {
            String target = "DescribeLogDirs to broker " + id;
            try {
                results.put(id, fromProto(id, Rpc.await(future, config.requestTimeoutMs() + 2 * RPC_SLACK_MS, target)));
            } catch (TidelineClientException e) {
                results.put(id, new BrokerLogDirs(id, e.error(), e.getMessage(), List.of()));
            }
        });
        return results;
    }

    /**
     * At {@code brokerId}, or at the partition's leader when it is -1. An unknown partition is
     * UNKNOWN_TOPIC_OR_PARTITION, a partition without a leader LEADER_NOT_AVAILABLE, a broker that holds no
     * replica of it NOT_LEADER_OR_FOLLOWER.
     */
    ReplicaRetention explainRetention(TopicPartition tp, int brokerId) {
        BrokerAddress address;
        int target = brokerId;
        if (brokerId < 0) {
            ClusterSnapshot snapshot = metadata.refresh(List.of(tp.topic()));
            if (snapshot.topic(tp.topic()).map(t -> t.error() != Errors.NONE).orElse(true)
                    || snapshot.partition(tp).isEmpty()) {
                return failed(tp, -1, Errors.UNKNOWN_TOPIC_OR_PARTITION, "unknown topic or partition " + tp);
            }
            ClusterSnapshot.Leader leader = snapshot.leader(tp).orElse(null);
            if (leader == null) {
                return failed(tp, -1, Errors.LEADER_NOT_AVAILABLE, tp + " has no leader; name a broker with --broker");
            }
            address = leader.address();
            target = leader.id();
        } else {
            ClusterDescription.Broker b = brokers().get(brokerId);
            if (b == null || b.host() == null || b.host().isEmpty()) {
                return failed(tp, brokerId, Errors.BROKER_NOT_AVAILABLE, "broker " + brokerId + " is not registered");
            }
            address = new BrokerAddress(b.host(), b.port());
        }
        ExplainRetentionRequest request = ExplainRetentionRequest.newBuilder().setTopic(tp.topic())
                .setPartition(tp.partition()).build();
        String name = "ExplainRetention to broker " + target;
        try {
            return fromProto(tp, Rpc.await(call(name, address, (stub, observer) -> stub.explainRetention(request, observer)),
                    config.requestTimeoutMs() + 2 * RPC_SLACK_MS, name));
        } catch (TidelineClientException e) {
            return failed(tp, target, e.error(), e.getMessage());
        }
    }

    private interface StubCall<A> {
        void call(AdminServiceStub stub, io.grpc.stub.StreamObserver<A> observer);
    }

    private <A> CompletableFuture<A> call(String target, BrokerAddress address, StubCall<A> method) {
        try {
            AdminServiceStub stub = channels.admin(address, config.requestTimeoutMs());
            return Rpc.call(target, (Object ignored, io.grpc.stub.StreamObserver<A> o) -> method.call(stub, o), null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(Rpc.transportError(target, e));
        }
    }

    private Map<Integer, ClusterDescription.Broker> brokers() {
        Map<Integer, ClusterDescription.Broker> byId = new TreeMap<>();
        cluster.get().brokers().forEach(b -> byId.put(b.id(), b));
        return byId;
    }

    private static ReplicaRetention failed(TopicPartition tp, int brokerId, Errors error, String message) {
        return new ReplicaRetention(tp, brokerId, error, message, "", -1, -1, -1, -1, -1, -1, -1, -1, -1, List.of(),
                Optional.empty());
    }

    private static BrokerLogDirs fromProto(int id, DescribeLogDirsResponse r) {
        List<BrokerLogDirs.LogDir> dirs = new ArrayList<>();
        for (LogDirInfo d : r.getLogDirsList()) {
            List<BrokerLogDirs.Replica> replicas = new ArrayList<>();
            for (LogDirReplica p : d.getReplicasList()) {
                replicas.add(new BrokerLogDirs.Replica(new TopicPartition(p.getTopic(), p.getPartition()), p.getSizeBytes(),
                        p.getOffsetLag(), p.getIsFuture(), p.getSegmentCount(), p.getLogStartOffset(), p.getLogEndOffset(),
                        p.getHighWatermark(), files(p.getPendingUnlinkList()), files(p.getDeletedOpenList()),
                        p.hasCompaction() ? Optional.of(compaction(p.getCompaction())) : Optional.empty()));
            }
            List<BrokerLogDirs.DeletedFile> deleted = new ArrayList<>();
            for (DeletedOpenFileInfo f : d.getDeletedOpenFilesList()) {
                deleted.add(new BrokerLogDirs.DeletedFile(f.getPath(), f.getBytes(), f.getHolder()));
            }
            Errors error = Errors.forCode(d.getErrorCode());
            dirs.add(new BrokerLogDirs.LogDir(d.getLogDir(), error, AdminProtos.message(error, d.getErrorMessage()),
                    replicas, deleted));
        }
        return new BrokerLogDirs(id, Errors.NONE, "", dirs);
    }

    private static List<BrokerLogDirs.SegmentFile> files(List<LogDirSegmentFile> files) {
        return files.stream().map(f -> new BrokerLogDirs.SegmentFile(f.getBaseOffset(), f.getSizeBytes(), f.getAtMs(),
                f.getFile())).toList();
    }

    private static ReplicaRetention fromProto(TopicPartition tp, ExplainRetentionResponse r) {
        Errors error = Errors.forCode(r.getErrorCode());
        if (error != Errors.NONE) {
            return failed(tp, r.getBrokerId(), error, AdminProtos.message(error, r.getErrorMessage()));
        }
        List<ReplicaRetention.Segment> segments = new ArrayList<>();
        for (SegmentRetentionInfo s : r.getSegmentsList()) {
            List<ReplicaRetention.Reason> reasons = new ArrayList<>();
            for (RetentionReasonInfo x : s.getReasonsList()) {
                reasons.add(new ReplicaRetention.Reason(x.getKind(), x.getRule(), x.getAtMs(), x.getOffset(), x.getBytes()));
            }
            segments.add(new ReplicaRetention.Segment(s.getBaseOffset(), s.getEndOffset(), s.getSizeBytes(),
                    s.getLargestTimestamp(), s.getStatus(), reasons));
        }
        return new ReplicaRetention(tp, r.getBrokerId(), Errors.NONE, "", r.getLogDir(), r.getNowMs(),
                r.getNextRetentionPassMs(), r.getRetentionCheckIntervalMs(), r.getLogStartOffset(), r.getHighWatermark(),
                r.getLogEndOffset(), r.getRetentionMs(), r.getRetentionBytes(), r.getFileDeleteDelayMs(), segments,
                r.hasCompaction() ? Optional.of(compaction(r.getCompaction())) : Optional.empty());
    }

    private static LogCompaction compaction(CompactionState c) {
        return new LogCompaction(c.getCompacted(), c.getCleanupPolicy(), c.getDirtyRatio(),
                c.getMinCleanableDirtyRatio(), c.getFirstDirtyOffset(), c.getFirstUncleanableOffset(),
                c.getCleanableBytes(), c.getCleanable(), c.getState(), c.getLastCleaningMs(), c.getCompactionDelayMs(),
                c.getSegmentsList().stream().map(v -> new LogCompaction.SegmentVerdict(v.getBaseOffset(),
                        v.getSizeBytes(), v.getVerdict())).toList());
    }
}
