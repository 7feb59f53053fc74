package io.tideline.node.api;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.config.TopicConfigs;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.proto.admin.AdminServiceGrpc;
import io.tideline.proto.admin.AlterGroupOffsetsRequest;
import io.tideline.proto.admin.AlterGroupOffsetsResponse;
import io.tideline.proto.admin.DeleteGroupsRequest;
import io.tideline.proto.admin.DeleteGroupsResponse;
import io.tideline.proto.admin.DescribeGroupsRequest;
import io.tideline.proto.admin.DescribeGroupsResponse;
import io.tideline.proto.admin.ListGroupsRequest;
import io.tideline.proto.admin.ListGroupsResponse;
import io.tideline.proto.admin.AlterBrokerConfigsRequest;
import io.tideline.proto.admin.AlterBrokerConfigsResponse;
import io.tideline.proto.admin.AlterPartitionReassignmentsRequest;
import io.tideline.proto.admin.AlterPartitionReassignmentsResponse;
import io.tideline.proto.admin.AlterTopicConfigsRequest;
import io.tideline.proto.admin.AlterTopicConfigsResponse;
import io.tideline.proto.admin.Assignment;
import io.tideline.proto.admin.ConfigValue;
import io.tideline.proto.admin.CreatePartitionsRequest;
import io.tideline.proto.admin.CreatePartitionsResponse;
import io.tideline.proto.admin.CreatePartitionsTopic;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.DeleteRecordsPartition;
import io.tideline.proto.admin.DeleteRecordsPartitionResult;
import io.tideline.proto.admin.DeleteRecordsRequest;
import io.tideline.proto.admin.DeleteRecordsResponse;
import io.tideline.proto.admin.DeleteTopicsRequest;
import io.tideline.proto.admin.DeleteTopicsResponse;
import io.tideline.proto.admin.DescribeBrokerConfigsRequest;
import io.tideline.proto.admin.DescribeBrokerConfigsResponse;
import io.tideline.proto.admin.DescribeClusterRequest;
import io.tideline.proto.admin.DescribeClusterResponse;
import io.tideline.proto.admin.DescribeLogDirsRequest;
import io.tideline.proto.admin.DescribeLogDirsResponse;
import io.tideline.proto.admin.DescribeReplicasRequest;
import io.tideline.proto.admin.DescribeReplicasResponse;
import io.tideline.proto.admin.DescribeTopicsRequest;
import io.tideline.proto.admin.DescribeTopicsResponse;
import io.tideline.proto.admin.ElectLeadersRequest;
import io.tideline.proto.admin.ElectLeadersResponse;
import io.tideline.proto.admin.ElectLeadersResult;
import io.tideline.proto.admin.ExplainRetentionRequest;
import io.tideline.proto.admin.ExplainRetentionResponse;
import io.tideline.proto.admin.FailedReplicaInfo;
import io.tideline.proto.admin.ListPartitionReassignmentsRequest;
import io.tideline.proto.admin.ListPartitionReassignmentsResponse;
import io.tideline.proto.admin.ListTopicsRequest;
import io.tideline.proto.admin.ListTopicsResponse;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.admin.PartitionDescription;
import io.tideline.proto.admin.RebuildReplicaRequest;
import io.tideline.proto.admin.RebuildReplicaResponse;
import io.tideline.proto.admin.TopicDescription;
import io.tideline.proto.admin.TopicResult;
import io.tideline.proto.metadata.AlterConfigs;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.CreatePartitionsItem;
import io.tideline.proto.metadata.FailedReplicaRecord;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.ReplicaAssignment;
import io.tideline.proto.metadata.TopicPartitionRef;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API on a broker: topic changes go to the metadata quorum (which validates them: names,
 * counts, configs); reads come from this broker's metadata image; DeleteRecords runs on the partitions this
 * broker leads (clients send each partition to its leader, as Kafka's admin client does).
 */
public final class AdminApiService extends AdminServiceGrpc.AdminServiceImplBase {
    private static final Logger log = LoggerFactory.getLogger(AdminApiService.class);
    static final int DEFAULT_TIMEOUT_MS = 30_000;

    /** The broker's min.insync.replicas (dynamic, B56): what a topic without its own override has. */
    private final IntSupplier defaultMinInsyncReplicas;
    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final ReplicaManager replicaManager;
    private final ControllerClient controller;
    private final ReassignmentsApi reassignments;
    private final BrokerConfigsApi brokerConfigs;
    private final LogDirsAdmin logDirs;
    private final ClusterDescriber cluster;
    private final ReplicaDescriber replicaDescriber;
    private final ReplicaRebuilder replicaRebuilder;
    private final GroupsAdminApi groups;
    private final int defaultNumPartitions;
    private final int defaultReplicationFactor;

    /**
     * @param voters                   the metadata quorum's voters (controller.quorum.voters), for DescribeCluster
     * @param defaultNumPartitions     num.partitions: CreateTopics' num_partitions -1 without assignments
     * @param defaultReplicationFactor default.replication.factor: CreateTopics' replication_factor -1 without
     *                                 assignments
     */
    public AdminApiService(int brokerId, Supplier<MetadataImage> image, ReplicaManager replicaManager,
                           ControllerClient controller, IntSupplier defaultMinInsyncReplicas,
                           BrokerConfigResolver brokerConfigResolver, LogManager logManager, String clusterId,
                           Map<Integer, InetSocketAddress> voters, Supplier<GroupCoordinator> groupCoordinator,
                           int defaultNumPartitions, int defaultReplicationFactor) {
        this.defaultNumPartitions = defaultNumPartitions;
        this.defaultReplicationFactor = defaultReplicationFactor;
        this.cluster = new ClusterDescriber(brokerId, clusterId, voters, image, controller);
        this.brokerId = brokerId;
        this.defaultMinInsyncReplicas = Objects.requireNonNull(defaultMinInsyncReplicas, "defaultMinInsyncReplicas");
        this.image = Objects.requireNonNull(image, "image");
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
        this.controller = Objects.requireNonNull(controller, "controller");
        this.reassignments = new ReassignmentsApi(image, controller);
        this.brokerConfigs = new BrokerConfigsApi(brokerId, image, controller, brokerConfigResolver);
        this.logDirs = new LogDirsAdmin(brokerId, image, logManager);
        this.replicaDescriber = new ReplicaDescriber(brokerId, image, replicaManager, controller);
        this.replicaRebuilder = new ReplicaRebuilder(brokerId, image, replicaManager);
        this.groups = new GroupsAdminApi(groupCoordinator, image);
    }

    @Override
    public void listGroups(ListGroupsRequest request, StreamObserver<ListGroupsResponse> observer) {
        groups.list(request, observer);
    }

    @Override
    public void describeGroups(DescribeGroupsRequest request, StreamObserver<DescribeGroupsResponse> observer) {
        groups.describe(request, observer);
    }

    @Override
    public void alterGroupOffsets(AlterGroupOffsetsRequest request, StreamObserver<AlterGroupOffsetsResponse> observer) {
        groups.alterOffsets(request, observer);
    }

    @Override
    public void deleteGroups(DeleteGroupsRequest request, StreamObserver<DeleteGroupsResponse> observer) {
        groups.delete(request, observer);
    }

    @Override
    public void createTopics(CreateTopicsRequest request, StreamObserver<CreateTopicsResponse> observer) {
        List<CreatableTopic> topics = new ArrayList<>();
        for (NewTopic t : request.getTopicsList()) {
            // -1 without assignments is "unset", as in Kafka's CreateTopics: this broker's defaults apply
            // (docs/behaviours.md B242).
            boolean assigned = t.getAssignmentsCount() > 0;
            CreatableTopic.Builder c = CreatableTopic.newBuilder().setName(t.getName())
                    .setNumPartitions(t.getNumPartitions() == -1 && !assigned ? defaultNumPartitions : t.getNumPartitions())
                    .setReplicationFactor(t.getReplicationFactor() == -1 && !assigned ? defaultReplicationFactor
                            : t.getReplicationFactor());
            for (ConfigValue v : t.getConfigsList()) {
                c.addConfigs(ConfigEntry.newBuilder().setKey(v.getKey()).setValue(v.getValue()));
            }
            for (Assignment a : t.getAssignmentsList()) {
                c.addAssignments(ReplicaAssignment.newBuilder().setPartition(a.getPartition())
                        .addAllReplicas(a.getReplicasList()));
            }
            topics.add(c.build());
        }
        controller.createTopics(topics, request.getValidateOnly()).whenComplete((r, e) ->
                ClientApiService.respond(observer, CreateTopicsResponse.newBuilder()
                        .addAllResults(topicResults(request.getTopicsList().stream().map(NewTopic::getName).toList(), r, e))
                        .build()));
    }

    @Override
    public void deleteTopics(DeleteTopicsRequest request, StreamObserver<DeleteTopicsResponse> observer) {
        controller.deleteTopics(request.getNamesList()).whenComplete((r, e) ->
                ClientApiService.respond(observer, DeleteTopicsResponse.newBuilder()
                        .addAllResults(topicResults(request.getNamesList(), r, e)).build()));
    }

    @Override
    public void createPartitions(CreatePartitionsRequest request, StreamObserver<CreatePartitionsResponse> observer) {
        List<CreatePartitionsItem> items = request.getTopicsList().stream().map(t -> CreatePartitionsItem.newBuilder()
                .setName(t.getName()).setTotalCount(t.getTotalCount()).build()).toList();
        controller.createPartitions(items).whenComplete((r, e) -> ClientApiService.respond(observer,
                CreatePartitionsResponse.newBuilder().addAllResults(topicResults(
                        request.getTopicsList().stream().map(CreatePartitionsTopic::getName).toList(), r, e)).build()));
    }

    @Override
    public void alterTopicConfigs(AlterTopicConfigsRequest request, StreamObserver<AlterTopicConfigsResponse> observer) {
        AlterConfigs.Builder command = AlterConfigs.newBuilder().setTopic(request.getTopic())
                .addAllDelete(request.getDeleteList());
        request.getSetList().forEach(v -> command.addSet(ConfigEntry.newBuilder().setKey(v.getKey()).setValue(v.getValue())));
        controller.alterConfigs(command.build()).whenComplete((r, e) -> ClientApiService.respond(observer,
                AlterTopicConfigsResponse.newBuilder()
                        .setErrorCode(e != null ? Errors.UNKNOWN_SERVER_ERROR.code() : r.getErrorCode())
                        .setErrorMessage(e != null ? String.valueOf(e.getMessage()) : r.getErrorMessage()).build()));
    }

    @Override
    public void describeBrokerConfigs(DescribeBrokerConfigsRequest request,
                                      StreamObserver<DescribeBrokerConfigsResponse> observer) {
        brokerConfigs.describe(request, observer);
    }

    @Override
    public void alterBrokerConfigs(AlterBrokerConfigsRequest request, StreamObserver<AlterBrokerConfigsResponse> observer) {
        brokerConfigs.alter(request, observer);
    }

    @Override
    public void electLeaders(ElectLeadersRequest request, StreamObserver<ElectLeadersResponse> observer) {
        if (request.getElectionType() != 0 && request.getElectionType() != 1) {
            ClientApiService.respond(observer, ElectLeadersResponse.newBuilder()
                    .setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("election_type must be 0 (preferred) or 1 (unclean), got " + request.getElectionType())
                    .build());
            return;
        }
        List<TopicPartitionRef> refs = request.getPartitionsList().stream().map(p -> TopicPartitionRef.newBuilder()
                .setTopic(p.getTopic()).setPartition(p.getPartition()).build()).toList();
        controller.electLeaders(refs, request.getElectionType()).whenComplete((r, e) -> {
            ElectLeadersResponse.Builder b = ElectLeadersResponse.newBuilder();
            if (e != null || r.getErrorCode() != Errors.NONE.code()) {
                b.setErrorCode(e != null ? Errors.UNKNOWN_SERVER_ERROR.code() : r.getErrorCode())
                        .setErrorMessage(e != null ? String.valueOf(e.getMessage()) : r.getErrorMessage());
            } else {
                for (ItemResult item : r.getResultsList()) {
                    // The controller names an item "topic-partition"; topic names may contain '-'.
                    int dash = item.getName().lastIndexOf('-');
                    b.addResults(ElectLeadersResult.newBuilder().setTopic(item.getName().substring(0, dash))
                            .setPartition(Integer.parseInt(item.getName().substring(dash + 1)))
                            .setErrorCode(item.getErrorCode()).setErrorMessage(item.getErrorMessage()));
                }
            }
            ClientApiService.respond(observer, b.build());
        });
    }

    /** Per-topic results of a controller command; a whole-command failure applies to every topic. */
    private static List<TopicResult> topicResults(List<String> names, ControllerResponse r, Throwable e) {
        List<TopicResult> results = new ArrayList<>();
        if (e != null || r.getErrorCode() != Errors.NONE.code()) {
            Errors error = e != null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(r.getErrorCode());
            String message = e != null ? String.valueOf(e.getMessage()) : r.getErrorMessage();
            for (String name : names) {
                results.add(TopicResult.newBuilder().setName(name).setErrorCode(error.code()).setErrorMessage(message)
                        .build());
            }
            return results;
        }
        for (ItemResult item : r.getResultsList()) {
            results.add(TopicResult.newBuilder().setName(item.getName()).setErrorCode(item.getErrorCode())
                    .setErrorMessage(item.getErrorMessage()).setTopicId(item.getTopicId()).build());
        }
        return results;
    }

    @Override
    public void listTopics(ListTopicsRequest request, StreamObserver<ListTopicsResponse> observer) {
        ClientApiService.respond(observer, ListTopicsResponse.newBuilder().addAllNames(image.get().topics().keySet())
                .build());
    }

    @Override
    public void describeTopics(DescribeTopicsRequest request, StreamObserver<DescribeTopicsResponse> observer) {
        MetadataImage current = image.get();
        DescribeTopicsResponse.Builder b = DescribeTopicsResponse.newBuilder();
        List<String> names = request.getNamesCount() == 0 ? List.copyOf(current.topics().keySet())
                : request.getNamesList();
        for (String name : names) {
            Optional<TopicImage> t = current.topic(name);
            if (t.isEmpty()) {
                b.addTopics(TopicDescription.newBuilder().setName(name)
                        .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage("unknown topic '" + name + "'"));
                continue;
            }
            b.addTopics(describe(current, t.get(), defaultMinInsyncReplicas.getAsInt()));
        }
        ClientApiService.respond(observer, b.build());
    }

    private static TopicDescription describe(MetadataImage image, TopicImage t, int defaultMinInsyncReplicas) {
        TopicDescription.Builder b = TopicDescription.newBuilder().setName(t.name()).setTopicId(t.id())
                .setMinInsyncReplicas(TopicConfigs.minInsyncReplicas(t.configs(), defaultMinInsyncReplicas));
        t.configs().forEach((k, v) -> b.addConfigs(ConfigValue.newBuilder().setKey(k).setValue(v)));
        for (PartitionRecord p : t.partitions().values()) {
            PartitionDescription.Builder d = PartitionDescription.newBuilder()
                    .setMetadata(MetadataResponses.partition(image, p))
                    .addAllAddingReplicas(p.getAddingReplicasList())
                    .addAllRemovingReplicas(p.getRemovingReplicasList());
            for (FailedReplicaRecord f : image.failedReplicas().values()) {
                if (f.getTopicId().equals(t.id()) && f.getPartition() == p.getPartition() && !f.getCleared()) {
                    d.addFailedReplicas(FailedReplicaInfo.newBuilder().setBrokerId(f.getBrokerId())
                            .setReason(f.getReason()).setSinceMs(f.getSinceMs()));
                }
            }
            b.addPartitions(d);
        }
        return b.build();
    }

    @Override
    public void deleteRecords(DeleteRecordsRequest request, StreamObserver<DeleteRecordsResponse> observer) {
        MetadataImage current = image.get();
        DeleteRecordsResponse.Builder b = DeleteRecordsResponse.newBuilder();
        Map<TopicPartition, Long> targets = new LinkedHashMap<>();
        Set<TopicPartition> listedTwice = RequestChecks.listedTwice(request.getPartitionsList(),
                DeleteRecordsPartition::getTopic, DeleteRecordsPartition::getPartition);
        boolean badTimeout = request.getTimeoutMs() < 0 || request.getTimeoutMs() > RequestChecks.MAX_PRODUCE_TIMEOUT_MS;
        for (DeleteRecordsPartition p : request.getPartitionsList()) {
            RequestChecks.Check check = badTimeout
                    ? new RequestChecks.Check(Errors.INVALID_REQUEST, "timeout_ms must be within [0, "
                    + RequestChecks.MAX_PRODUCE_TIMEOUT_MS + "], got " + request.getTimeoutMs())
                    : RequestChecks.partition(current, p.getTopic(), p.getPartition(), listedTwice);
            if (check.error() == Errors.NONE && p.getOffset() < -1) {
                check = new RequestChecks.Check(Errors.OFFSET_OUT_OF_RANGE,
                        "offset must be -1 (the high watermark), 0 or positive, got " + p.getOffset());
            }
            if (check.error() != Errors.NONE) {
                b.addPartitions(DeleteRecordsPartitionResult.newBuilder().setTopic(p.getTopic())
                        .setPartition(p.getPartition()).setErrorCode(check.error().code())
                        .setErrorMessage(check.message()).setLowWatermark(-1));
                continue;
            }
            targets.put(new TopicPartition(p.getTopic(), p.getPartition()), p.getOffset());
        }
        if (targets.isEmpty()) {
            ClientApiService.respond(observer, b.build());
            return;
        }
        int timeout = request.getTimeoutMs() == 0 ? DEFAULT_TIMEOUT_MS : request.getTimeoutMs();
        CompletableFuture<Map<TopicPartition, io.tideline.replication.server.DeleteRecordsPartitionResult>> done =
                replicaManager.deleteRecords(targets, timeout);
        done.whenComplete((results, e) -> {
            if (e != null) {
                log.error("DeleteRecords failed", e);
            }
            for (TopicPartition tp : targets.keySet()) {
                io.tideline.replication.server.DeleteRecordsPartitionResult r = e != null ? null : results.get(tp);
                DeleteRecordsPartitionResult.Builder item = DeleteRecordsPartitionResult.newBuilder()
                        .setTopic(tp.topic()).setPartition(tp.partition());
                if (r == null) {
                    item.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setLowWatermark(-1)
                            .setErrorMessage(e == null ? "no result" : String.valueOf(e.getMessage()));
                } else {
                    item.setErrorCode(r.error().code()).setLowWatermark(r.lowWatermark());
                    if (r.message() != null) {
                        item.setErrorMessage(r.message() + (r.error() == Errors.NOT_LEADER_OR_FOLLOWER
                                ? " (asked broker " + brokerId + ")" : ""));
                    }
                }
                b.addPartitions(item);
            }
            ClientApiService.respond(observer, b.build());
        });
    }

    @Override
    public void describeLogDirs(DescribeLogDirsRequest request, StreamObserver<DescribeLogDirsResponse> observer) {
        ClientApiService.respond(observer, logDirs.describeLogDirs(request));
    }

    @Override
    public void explainRetention(ExplainRetentionRequest request, StreamObserver<ExplainRetentionResponse> observer) {
        ClientApiService.respond(observer, logDirs.explainRetention(request));
    }

    @Override
    public void describeCluster(DescribeClusterRequest request, StreamObserver<DescribeClusterResponse> observer) {
        cluster.describe(request).whenComplete((r, e) -> ClientApiService.respond(observer, e == null ? r
                : DescribeClusterResponse.newBuilder().setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                        .setErrorMessage(String.valueOf(e.getMessage())).build()));
    }

    @Override
    public void alterPartitionReassignments(AlterPartitionReassignmentsRequest request,
            StreamObserver<AlterPartitionReassignmentsResponse> observer) {
        reassignments.alter(request).thenAccept(r -> ClientApiService.respond(observer, r));
    }

    @Override
    public void listPartitionReassignments(ListPartitionReassignmentsRequest request,
            StreamObserver<ListPartitionReassignmentsResponse> observer) {
        ClientApiService.respond(observer, reassignments.list(request));
    }

    @Override
    public void describeReplicas(DescribeReplicasRequest request,
                                 StreamObserver<DescribeReplicasResponse> observer) {
        replicaDescriber.describe(request).whenComplete((r, e) -> {
            if (e != null) {
                log.error("DescribeReplicas failed", e);
                observer.onError(Status.INTERNAL.withDescription(String.valueOf(e.getMessage())).asRuntimeException());
                return;
            }
            ClientApiService.respond(observer, r);
        });
    }

    @Override
    public void rebuildReplica(RebuildReplicaRequest request,
                               StreamObserver<RebuildReplicaResponse> observer) {
        ClientApiService.respond(observer, replicaRebuilder.rebuild(request));
    }
}
