package io.tideline.node.api;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.tideline.common.errors.Errors;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.config.TopicConfigs;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.node.service.AdminServices;
import io.tideline.node.service.ClusterService;
import io.tideline.node.service.ConfigsService;
import io.tideline.node.service.LeaderElections;
import io.tideline.node.service.PartitionRef;
import io.tideline.node.service.ReassignmentsService;
import io.tideline.node.service.RecordsService;
import io.tideline.node.service.ReplicaRebuilder;
import io.tideline.node.service.TopicsService;
import io.tideline.proto.admin.AdminServiceGrpc;
import io.tideline.proto.admin.AlterBrokerConfigsRequest;
import io.tideline.proto.admin.AlterBrokerConfigsResponse;
import io.tideline.proto.admin.AlterGroupOffsetsRequest;
import io.tideline.proto.admin.AlterGroupOffsetsResponse;
import io.tideline.proto.admin.AlterPartitionReassignmentsRequest;
import io.tideline.proto.admin.AlterPartitionReassignmentsResponse;
import io.tideline.proto.admin.AlterTopicConfigsRequest;
import io.tideline.proto.admin.AlterTopicConfigsResponse;
import io.tideline.proto.admin.BrokerConfigEntry;
import io.tideline.proto.admin.BrokerConfigSource;
import io.tideline.proto.admin.BrokerConfigSynonym;
import io.tideline.proto.admin.ClusterBroker;
import io.tideline.proto.admin.ConfigValue;
import io.tideline.proto.admin.CreatePartitionsRequest;
import io.tideline.proto.admin.CreatePartitionsResponse;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.DeleteGroupsRequest;
import io.tideline.proto.admin.DeleteGroupsResponse;
import io.tideline.proto.admin.DeleteRecordsPartitionResult;
import io.tideline.proto.admin.DeleteRecordsRequest;
import io.tideline.proto.admin.DeleteRecordsResponse;
import io.tideline.proto.admin.DeleteTopicsRequest;
import io.tideline.proto.admin.DeleteTopicsResponse;
import io.tideline.proto.admin.DescribeBrokerConfigsRequest;
import io.tideline.proto.admin.DescribeBrokerConfigsResponse;
import io.tideline.proto.admin.DescribeClusterRequest;
import io.tideline.proto.admin.DescribeClusterResponse;
import io.tideline.proto.admin.DescribeGroupsRequest;
import io.tideline.proto.admin.DescribeGroupsResponse;
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
import io.tideline.proto.admin.ListGroupsRequest;
import io.tideline.proto.admin.ListGroupsResponse;
import io.tideline.proto.admin.ListPartitionReassignmentsRequest;
import io.tideline.proto.admin.ListPartitionReassignmentsResponse;
import io.tideline.proto.admin.ListTopicsRequest;
import io.tideline.proto.admin.ListTopicsResponse;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.admin.OngoingPartitionReassignment;
import io.tideline.proto.admin.PartitionDescription;
import io.tideline.proto.admin.RebuildReplicaRequest;
import io.tideline.proto.admin.RebuildReplicaResponse;
import io.tideline.proto.admin.ReassignPartitionResult;
import io.tideline.proto.admin.TopicDescription;
import io.tideline.proto.admin.TopicResult;
import io.tideline.proto.metadata.FailedReplicaRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC admin API on a broker: a translation of admin.proto's messages to the {@link AdminServices} calls the
 * Kafka admin APIs make too, and of their results back. What only this API offers (topic descriptions, groups,
 * replica states and rebuilds, retention explanations) is answered here from this broker's image and store.
 */
public final class AdminApiService extends AdminServiceGrpc.AdminServiceImplBase {
    private static final Logger log = LoggerFactory.getLogger(AdminApiService.class);

    /** The broker's min.insync.replicas (dynamic, B56): what a topic without its own override has. */
    private final IntSupplier defaultMinInsyncReplicas;
    private final Supplier<MetadataImage> image;
    private final AdminServices services;
    private final LogDirsAdmin logDirs;
    private final ReplicaDescriber replicaDescriber;
    private final GroupsAdminApi groups;

    public AdminApiService(AdminServices services, int brokerId, Supplier<MetadataImage> image,
                           ReplicaManager replicaManager, ControllerClient controller,
                           IntSupplier defaultMinInsyncReplicas, LogManager logManager,
                           Supplier<GroupCoordinator> groupCoordinator) {
        this.services = Objects.requireNonNull(services, "services");
        this.defaultMinInsyncReplicas = Objects.requireNonNull(defaultMinInsyncReplicas, "defaultMinInsyncReplicas");
        this.image = Objects.requireNonNull(image, "image");
        this.logDirs = new LogDirsAdmin(brokerId, image, logManager, services.logDirs());
        this.replicaDescriber = new ReplicaDescriber(brokerId, image, replicaManager, controller);
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
        List<TopicsService.NewTopic> topics = new ArrayList<>();
        for (NewTopic t : request.getTopicsList()) {
            topics.add(new TopicsService.NewTopic(t.getName(), t.getNumPartitions(), t.getReplicationFactor(),
                    configValues(t.getConfigsList()), t.getAssignmentsList().stream()
                    .map(a -> new TopicsService.Assignment(a.getPartition(), a.getReplicasList())).toList()));
        }
        services.topics().createTopics(topics, request.getValidateOnly()).thenAccept(r -> ClientApiService.respond(
                observer, CreateTopicsResponse.newBuilder().addAllResults(topicResults(r)).build()));
    }

    @Override
    public void deleteTopics(DeleteTopicsRequest request, StreamObserver<DeleteTopicsResponse> observer) {
        services.topics().deleteTopics(request.getNamesList()).thenAccept(r -> ClientApiService.respond(observer,
                DeleteTopicsResponse.newBuilder().addAllResults(topicResults(r)).build()));
    }

    @Override
    public void createPartitions(CreatePartitionsRequest request, StreamObserver<CreatePartitionsResponse> observer) {
        services.topics().createPartitions(request.getTopicsList().stream()
                .map(t -> new TopicsService.NewPartitions(t.getName(), t.getTotalCount())).toList())
                .thenAccept(r -> ClientApiService.respond(observer, CreatePartitionsResponse.newBuilder()
                        .addAllResults(topicResults(r)).build()));
    }

    @Override
    public void alterTopicConfigs(AlterTopicConfigsRequest request, StreamObserver<AlterTopicConfigsResponse> observer) {
        services.configs().alterTopicConfigs(request.getTopic(), configValues(request.getSetList()),
                request.getDeleteList()).thenAccept(r -> ClientApiService.respond(observer,
                AlterTopicConfigsResponse.newBuilder().setErrorCode(r.code()).setErrorMessage(r.message()).build()));
    }

    @Override
    public void describeBrokerConfigs(DescribeBrokerConfigsRequest request,
                                      StreamObserver<DescribeBrokerConfigsResponse> observer) {
        ConfigsService.BrokerConfigs described = services.configs().describeBrokerConfigs(request.getBrokerId());
        DescribeBrokerConfigsResponse.Builder b = DescribeBrokerConfigsResponse.newBuilder();
        if (described.error().isError()) {
            b.setErrorCode(described.error().code()).setErrorMessage(described.error().message());
        }
        for (BrokerConfigResolver.Described d : described.entries()) {
            BrokerConfigEntry.Builder e = BrokerConfigEntry.newBuilder().setName(d.name()).setSource(source(d.source()));
            if (d.value() != null) {
                e.setValue(d.value());
            }
            d.synonyms().forEach(s -> e.addSynonyms(BrokerConfigSynonym.newBuilder().setName(s.name())
                    .setValue(s.value()).setSource(source(s.source()))));
            b.addEntries(e);
        }
        ClientApiService.respond(observer, b.build());
    }

    private static BrokerConfigSource source(BrokerConfigResolver.Source s) {
        return BrokerConfigSource.valueOf(s.name());
    }

    @Override
    public void alterBrokerConfigs(AlterBrokerConfigsRequest request, StreamObserver<AlterBrokerConfigsResponse> observer) {
        services.configs().alterBrokerConfigs(request.getBrokerId(), configValues(request.getSetList()),
                request.getDeleteList()).thenAccept(r -> ClientApiService.respond(observer,
                AlterBrokerConfigsResponse.newBuilder().setErrorCode(r.code()).setErrorMessage(r.message()).build()));
    }

    @Override
    public void electLeaders(ElectLeadersRequest request, StreamObserver<ElectLeadersResponse> observer) {
        services.elections().electLeaders(request.getPartitionsList().stream()
                .map(p -> new PartitionRef(p.getTopic(), p.getPartition())).toList(), request.getElectionType())
                .thenAccept(r -> {
                    ElectLeadersResponse.Builder b = ElectLeadersResponse.newBuilder();
                    if (r.error().isError()) {
                        b.setErrorCode(r.error().code()).setErrorMessage(r.error().message());
                    }
                    for (LeaderElections.PartitionOutcome p : r.results()) {
                        b.addResults(ElectLeadersResult.newBuilder().setTopic(p.topic()).setPartition(p.partition())
                                .setErrorCode(p.error().code()).setErrorMessage(p.error().message()));
                    }
                    ClientApiService.respond(observer, b.build());
                });
    }

    private static List<io.tideline.node.service.ConfigValue> configValues(List<ConfigValue> values) {
        return values.stream().map(v -> new io.tideline.node.service.ConfigValue(v.getKey(), v.getValue())).toList();
    }

    private static List<TopicResult> topicResults(List<TopicsService.TopicResult> results) {
        return results.stream().map(r -> TopicResult.newBuilder().setName(r.name()).setErrorCode(r.error().code())
                .setErrorMessage(r.error().message()).setTopicId(r.topicId()).build()).toList();
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
        services.records().deleteRecords(request.getPartitionsList().stream()
                .map(p -> new RecordsService.DeleteRecordsTarget(p.getTopic(), p.getPartition(), p.getOffset()))
                .toList(), request.getTimeoutMs()).thenAccept(results -> {
                    DeleteRecordsResponse.Builder b = DeleteRecordsResponse.newBuilder();
                    for (RecordsService.DeleteRecordsResult r : results) {
                        b.addPartitions(DeleteRecordsPartitionResult.newBuilder().setTopic(r.topic())
                                .setPartition(r.partition()).setErrorCode(r.error().code())
                                .setErrorMessage(r.error().message()).setLowWatermark(r.lowWatermark()));
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
        services.cluster().describe(request.getTimeoutMs()).whenComplete((r, e) -> ClientApiService.respond(observer,
                e == null ? clusterResponse(r) : DescribeClusterResponse.newBuilder()
                        .setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                        .setErrorMessage(String.valueOf(e.getMessage())).build()));
    }

    private static DescribeClusterResponse clusterResponse(ClusterService.Description d) {
        DescribeClusterResponse.Builder b = DescribeClusterResponse.newBuilder().setClusterId(d.clusterId())
                .setAnsweringBroker(d.answeringBroker()).setErrorCode(d.error().code())
                .setErrorMessage(d.error().message()).setControllerId(d.controllerId())
                .setControllerTerm(d.controllerTerm()).setCommittedOffset(d.committedOffset())
                .setAppliedOffset(d.appliedOffset());
        for (ClusterService.Broker c : d.brokers()) {
            b.addBrokers(ClusterBroker.newBuilder().setId(c.id()).setState(c.state()).setFenced(c.fenced())
                    .setRack(c.rack()).setMetricsUrl(c.metricsUrl()).setQuorumAddress(c.quorumAddress())
                    .setMetadataOffset(c.metadataOffset()).setLastHeartbeatMs(c.lastHeartbeatMs())
                    .setHost(c.host()).setPort(c.port()));
        }
        return b.build();
    }

    @Override
    public void alterPartitionReassignments(AlterPartitionReassignmentsRequest request,
            StreamObserver<AlterPartitionReassignmentsResponse> observer) {
        services.reassignments().alter(request.getPartitionsList().stream()
                .map(p -> new ReassignmentsService.Reassignment(p.getTopic(), p.getPartition(), p.getCancel(),
                        p.getReplicasList())).toList())
                .thenAccept(results -> ClientApiService.respond(observer, AlterPartitionReassignmentsResponse
                        .newBuilder().addAllResults(results.stream().map(r -> ReassignPartitionResult.newBuilder()
                                .setTopic(r.topic()).setPartition(r.partition()).setErrorCode(r.error().code())
                                .setErrorMessage(r.error().message()).build()).toList()).build()));
    }

    @Override
    public void listPartitionReassignments(ListPartitionReassignmentsRequest request,
            StreamObserver<ListPartitionReassignmentsResponse> observer) {
        ListPartitionReassignmentsResponse.Builder b = ListPartitionReassignmentsResponse.newBuilder();
        for (ReassignmentsService.Ongoing o : services.reassignments().list(request.getPartitionsList().stream()
                .map(p -> new PartitionRef(p.getTopic(), p.getPartition())).toList())) {
            b.addReassignments(OngoingPartitionReassignment.newBuilder().setTopic(o.topic())
                    .setPartition(o.partition()).addAllReplicas(o.replicas()).addAllAddingReplicas(o.addingReplicas())
                    .addAllRemovingReplicas(o.removingReplicas()));
        }
        ClientApiService.respond(observer, b.build());
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
        ReplicaRebuilder.Rebuild r = services.rebuilds().rebuild(request.getTopic(), request.getPartition(),
                request.getBrokerId());
        RebuildReplicaResponse.Builder b = RebuildReplicaResponse.newBuilder().setErrorCode(r.error().code())
                .setErrorMessage(r.error().message());
        if (!r.error().isError()) {
            b.setStartOffset(r.startOffset()).setTargetOffset(r.targetOffset());
        }
        ClientApiService.respond(observer, b.build());
    }
}
