package io.tideline.client;

import io.grpc.stub.StreamObserver;
import io.tideline.client.ClusterSnapshot.Leader;
import io.tideline.client.ClusterSnapshot.TopicInfo;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.proto.admin.AdminServiceGrpc.AdminServiceStub;
import io.tideline.proto.admin.AlterBrokerConfigsRequest;
import io.tideline.proto.admin.AlterBrokerConfigsResponse;
import io.tideline.proto.admin.AlterTopicConfigsRequest;
import io.tideline.proto.admin.AlterTopicConfigsResponse;
import io.tideline.proto.admin.BrokerConfigEntry;
import io.tideline.proto.admin.ConfigValue;
import io.tideline.proto.admin.CreatePartitionsRequest;
import io.tideline.proto.admin.ElectLeadersPartition;
import io.tideline.proto.admin.ElectLeadersRequest;
import io.tideline.proto.admin.ElectLeadersResponse;
import io.tideline.proto.admin.ElectLeadersResult;
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
import io.tideline.proto.admin.DescribeReplicasResponse;
import io.tideline.proto.admin.DescribeTopicsRequest;
import io.tideline.proto.admin.DescribeTopicsResponse;
import io.tideline.proto.admin.ListTopicsRequest;
import io.tideline.proto.admin.ListTopicsResponse;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.MetadataResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API: topics (sent to any broker, which forwards to the metadata quorum) and DeleteRecords
 * (sent to each partition's leader, found through Metadata, like Kafka's admin client). Calls block.
 * Per-item errors are results, never exceptions ({@link TopicResult}, {@link DeleteRecordsResult},
 * {@link TopicDescription#error()}); a call throws a {@link TidelineClientException} (usually a
 * {@link TransportException}) only when no broker could be reached or answered within
 * default.api.timeout.ms, or a {@link BootstrapException} at once when the client has not reached any
 * broker yet and none of bootstrap.servers accepted a connection.
 *
 * <p>Thread-safe.
 */
public final class TidelineAdmin implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TidelineAdmin.class);
    /** A broker may wait request.timeout.ms itself (timeout_ms); the RPC deadline allows for the round trip. */
    private static final long RPC_SLACK_MS = 5_000;
    /** How long a broker waits for the quorum in DescribeCluster: a leaderless quorum is news, not a hang. */
    private static final int DESCRIBE_CLUSTER_QUORUM_WAIT_MS = 5_000;
    /** DeleteRecords answers after which the partition is retried on a fresh leader. */
    private static final Set<Errors> LEADER_ERRORS = Set.of(Errors.NOT_LEADER_OR_FOLLOWER, Errors.LEADER_NOT_AVAILABLE,
            Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH, Errors.KAFKA_STORAGE_ERROR,
            Errors.BROKER_NOT_AVAILABLE);

    @FunctionalInterface
    interface AdminMethod<Q, A> {
        void call(AdminServiceStub stub, Q request, StreamObserver<A> observer);
    }

    private final AdminConfig config;
    private final Time time;
    private final BrokerChannels channels;
    private final MetadataManager metadata;
    private final StorageCalls storage;
    private final GroupCalls groups;
    private final OffsetLookup offsets;

    public TidelineAdmin(Map<String, ?> configs) {
        this(configs, Time.SYSTEM, ChannelFactory.plaintext());
    }

    public TidelineAdmin(Properties props) {
        this(ClientProps.toMap(props));
    }

    /** With an injected clock and channel factory (tests, fault injection). */
    public TidelineAdmin(Map<String, ?> configs, Time time, ChannelFactory channelFactory) {
        this.config = new AdminConfig(configs);
        this.time = Objects.requireNonNull(time, "time");
        this.channels = new BrokerChannels(Objects.requireNonNull(channelFactory, "channelFactory"),
                config.socketConnectionSetupTimeoutMs());
        this.metadata = new MetadataManager(config.bootstrapServers(), channels, config.requestTimeoutMs());
        this.storage = new StorageCalls(config, channels, metadata, this::describeCluster);
        this.groups = new GroupCalls(new GroupCalls.Router() {
            @Override
            public <Q, A> A call(int brokerId, String name, AdminMethod<Q, A> method, Q request) {
                return brokerId < 0 ? callAnyBroker(name, method, request) : callBroker(brokerId, name, method, request);
            }
        }, this::describeCluster);
        this.offsets = new OffsetLookup(metadata, channels, time, config.requestTimeoutMs(), config.retryBackoffMs());
    }

    public TopicResult createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        return createTopics(List.of(NewTopic.of(name, partitions, replicationFactor, configs)), false).get(name);
    }

    /** With explicit replica assignments: partition to broker ids, the first the preferred leader. */
    public TopicResult createTopic(String name, Map<Integer, List<Integer>> assignments, Map<String, String> configs) {
        return createTopics(List.of(NewTopic.withAssignments(name, assignments, configs)), false).get(name);
    }

    /** One result per topic name, in request order; {@code validateOnly} checks without creating. */
    public Map<String, TopicResult> createTopics(Collection<NewTopic> topics, boolean validateOnly) {
        CreateTopicsRequest.Builder request = CreateTopicsRequest.newBuilder()
                .setValidateOnly(validateOnly).setTimeoutMs(config.requestTimeoutMs());
        topics.forEach(t -> request.addTopics(AdminProtos.toProto(t)));
        CreateTopicsResponse response = callAnyBroker("CreateTopics", AdminServiceStub::createTopics, request.build());
        return topicResults(topics.stream().map(NewTopic::name).toList(), response.getResultsList());
    }

    /**
     * Raises each topic's partition count to the given total (Kafka's createPartitions); one result per
     * topic, in request order. The new partitions get the topic's replication factor.
     */
    public Map<String, TopicResult> createPartitions(Map<String, Integer> totalCounts) {
        CreatePartitionsRequest.Builder request = CreatePartitionsRequest.newBuilder();
        totalCounts.forEach((name, count) -> request.addTopics(CreatePartitionsTopic.newBuilder().setName(name)
                .setTotalCount(count)));
        CreatePartitionsResponse response = callAnyBroker("CreatePartitions", AdminServiceStub::createPartitions,
                request.build());
        return topicResults(List.copyOf(totalCounts.keySet()), response.getResultsList());
    }

    /**
     * Kafka's incrementalAlterConfigs for one topic: sets {@code set}, removes the overrides named in
     * {@code delete} (the broker default applies again). Validated as at create; takes effect on every
     * broker without a restart (a retention change at the next retention pass).
     */
    public TopicResult alterTopicConfigs(String topic, Map<String, String> set, Collection<String> delete) {
        AlterTopicConfigsRequest.Builder request = AlterTopicConfigsRequest.newBuilder().setTopic(topic)
                .addAllDelete(delete);
        set.forEach((k, v) -> request.addSet(ConfigValue.newBuilder().setKey(k).setValue(v)));
        AlterTopicConfigsResponse response = callAnyBroker("AlterTopicConfigs", AdminServiceStub::alterTopicConfigs,
                request.build());
        Errors error = Errors.forCode(response.getErrorCode());
        return new TopicResult(topic, error, response.getErrorMessage().isEmpty() && error != Errors.NONE
                ? error.defaultMessage() : response.getErrorMessage());
    }

    /**
     * Kafka's describeConfigs of a BROKER resource. With a broker id, that broker itself answers (only it
     * knows its static file): every dynamically changeable key with its value in force and its synonyms;
     * empty asks any broker for the cluster-wide dynamic defaults (only the keys set there). Sorted by name.
     *
     * @param brokerId a broker's id, or empty for the cluster-wide default
     * @throws TidelineClientException BROKER_NOT_AVAILABLE when the cluster does not list the broker, or the
     *                                 broker's error; a transport error when it stayed unreachable
     */
    public Map<String, ConfigEntry> describeBrokerConfigs(OptionalInt brokerId) {
        DescribeBrokerConfigsRequest request = DescribeBrokerConfigsRequest.newBuilder()
                .setBrokerId(brokerId.orElse(-1)).build();
        DescribeBrokerConfigsResponse response = brokerId.isEmpty()
                ? callAnyBroker("DescribeBrokerConfigs", AdminServiceStub::describeBrokerConfigs, request)
                : callBroker(brokerId.getAsInt(), "DescribeBrokerConfigs", AdminServiceStub::describeBrokerConfigs, request);
        Errors error = Errors.forCode(response.getErrorCode());
        if (error != Errors.NONE) {
            throw new TidelineClientException(error, AdminProtos.message(error, response.getErrorMessage()));
        }
        Map<String, ConfigEntry> out = new LinkedHashMap<>();
        for (BrokerConfigEntry e : response.getEntriesList()) {
            List<ConfigEntry.ConfigSynonym> synonyms = e.getSynonymsList().stream().map(s -> new ConfigEntry.ConfigSynonym(
                    s.getName(), s.getValue(), ConfigEntry.ConfigSource.valueOf(s.getSource().name()))).toList();
            out.put(e.getName(), new ConfigEntry(e.getName(), e.hasValue() ? e.getValue() : null,
                    ConfigEntry.ConfigSource.valueOf(e.getSource().name()), synonyms));
        }
        return out;
    }

    /**
     * Kafka's incrementalAlterConfigs of a BROKER resource: sets {@code set} and removes {@code delete} for one
     * broker, or with an empty id for the cluster-wide default. Validated by the controller; every broker
     * applies it without a restart (docs/behaviours.md B56).
     *
     * @throws TidelineClientException INVALID_CONFIG naming a key that cannot change dynamically or a bad
     *                                 value; BROKER_NOT_AVAILABLE for a broker id that is not registered
     */
    public void alterBrokerConfigs(OptionalInt brokerId, Map<String, String> set, Collection<String> delete) {
        AlterBrokerConfigsRequest.Builder request = AlterBrokerConfigsRequest.newBuilder()
                .setBrokerId(brokerId.orElse(-1)).addAllDelete(delete);
        set.forEach((k, v) -> request.addSet(ConfigValue.newBuilder().setKey(k).setValue(v)));
        AlterBrokerConfigsResponse response = callAnyBroker("AlterBrokerConfigs", AdminServiceStub::alterBrokerConfigs,
                request.build());
        Errors error = Errors.forCode(response.getErrorCode());
        if (error != Errors.NONE) {
            throw new TidelineClientException(error, AdminProtos.message(error, response.getErrorMessage()));
        }
    }

    /**
     * Kafka's electLeaders: a preferred or unclean election over {@code partitions} (empty: every
     * partition), one result per partition in the order the controller answered.
     *
     * @throws TidelineClientException when the request as a whole failed
     */
    public List<ElectionResult> electLeaders(ElectionType type, Collection<TopicPartition> partitions) {
        ElectLeadersRequest.Builder request = ElectLeadersRequest.newBuilder().setElectionType(type.value());
        partitions.forEach(tp -> request.addPartitions(ElectLeadersPartition.newBuilder().setTopic(tp.topic())
                .setPartition(tp.partition())));
        ElectLeadersResponse response = callAnyBroker("ElectLeaders", AdminServiceStub::electLeaders, request.build());
        Errors whole = Errors.forCode(response.getErrorCode());
        if (whole != Errors.NONE) {
            throw new TidelineClientException(whole, "ElectLeaders: " + whole + ": " + response.getErrorMessage());
        }
        List<ElectionResult> results = new ArrayList<>();
        for (ElectLeadersResult r : response.getResultsList()) {
            Errors error = Errors.forCode(r.getErrorCode());
            results.add(new ElectionResult(new TopicPartition(r.getTopic(), r.getPartition()), error,
                    r.getErrorMessage().isEmpty() ? error.defaultMessage() : r.getErrorMessage()));
        }
        return results;
    }

    /**
     * Kafka's alterPartitionReassignments (KIP-455): each partition moves to its target replicas (the first the
     * preferred leader afterwards), or, for {@code Optional.empty()}, its reassignment in progress is cancelled
     * and it goes back to the replicas it had. The move itself runs in the cluster: the call returns once the
     * controller accepted it; {@link #listPartitionReassignments} shows it until the added replicas are in sync.
     * One result per partition, in request order.
     */
    public Map<TopicPartition, ReassignmentResult> alterPartitionReassignments(
            Map<TopicPartition, Optional<List<Integer>>> targets) {
        var response = callAnyBroker("AlterPartitionReassignments", AdminServiceStub::alterPartitionReassignments,
                ReassignmentProtos.alterRequest(targets));
        return ReassignmentProtos.results(targets.keySet(), response);
    }

    /**
     * The reassignments in progress among {@code partitions} (empty: every partition), sorted by topic and
     * partition; a partition that is unknown or not moving is left out, as in Kafka.
     */
    public Map<TopicPartition, PartitionReassignment> listPartitionReassignments(Collection<TopicPartition> partitions) {
        var response = callAnyBroker("ListPartitionReassignments", AdminServiceStub::listPartitionReassignments,
                ReassignmentProtos.listRequest(partitions));
        return ReassignmentProtos.ongoing(response);
    }

    /** One result per name, in request order. */
    public Map<String, TopicResult> deleteTopics(Collection<String> names) {
        DeleteTopicsRequest request = DeleteTopicsRequest.newBuilder()
                .addAllNames(names).setTimeoutMs(config.requestTimeoutMs()).build();
        DeleteTopicsResponse response = callAnyBroker("DeleteTopics", AdminServiceStub::deleteTopics, request);
        return topicResults(List.copyOf(names), response.getResultsList());
    }

    /** Every topic name, sorted. */
    public List<String> listTopics() {
        ListTopicsResponse response = callAnyBroker("ListTopics", AdminServiceStub::listTopics,
                ListTopicsRequest.getDefaultInstance());
        return List.copyOf(response.getNamesList());
    }

    /** The named topics ({@code empty}: every topic); a missing name comes back with its error. */
    public List<TopicDescription> describeTopics(Collection<String> names) {
        DescribeTopicsResponse response = callAnyBroker("DescribeTopics", AdminServiceStub::describeTopics,
                DescribeTopicsRequest.newBuilder().addAllNames(names).build());
        List<TopicDescription> out = new ArrayList<>(response.getTopicsCount());
        response.getTopicsList().forEach(t -> out.add(AdminProtos.fromProto(t)));
        return List.copyOf(out);
    }

    /**
     * The cluster as the metadata quorum's leader sees it, asked through any broker (DescribeCluster); a
     * broker without that call (an older version) answers from its Metadata instead, without the quorum's
     * view. A quorum that does not answer is not an exception: {@link ClusterDescription#error()} says so.
     */
    public ClusterDescription describeCluster() {
        try {
            return AdminProtos.fromProto(callAnyBroker("DescribeCluster", AdminServiceStub::describeCluster,
                    io.tideline.proto.admin.DescribeClusterRequest.newBuilder()
                            .setTimeoutMs(Math.min(config.requestTimeoutMs(), DESCRIBE_CLUSTER_QUORUM_WAIT_MS)).build()));
        } catch (TransportException e) {
            if (e.status() != io.grpc.Status.Code.UNIMPLEMENTED) {
                throw e;
            }
        }
        MetadataResponse response = anyBroker("Metadata", (address, target) -> {
            var stub = channels.client(address, config.requestTimeoutMs());
            return Rpc.await(Rpc.call(target, stub::metadata, MetadataRequest.getDefaultInstance()),
                    config.requestTimeoutMs() + 1_000L, target);
        });
        return AdminProtos.fromProto(response);
    }

    /**
     * Moves each partition's log start offset to the given offset (docs/behaviours.md B23: N deletes the
     * records before N, -1 up to the high watermark), at the partition's leader. Results in request order; a
     * partition that is unknown gets UNKNOWN_TOPIC_OR_PARTITION at once, one whose leader moves is retried
     * on the new leader until default.api.timeout.ms.
     *
     * @throws TidelineClientException when a leader stayed unreachable until default.api.timeout.ms
     */
    public Map<TopicPartition, DeleteRecordsResult> deleteRecords(Map<TopicPartition, Long> beforeOffsets) {
        Map<TopicPartition, DeleteRecordsResult> results = new LinkedHashMap<>();
        Map<TopicPartition, Long> pending = new LinkedHashMap<>(beforeOffsets);
        Set<String> topics = new LinkedHashSet<>();
        beforeOffsets.keySet().forEach(tp -> topics.add(tp.topic()));
        long deadline = time.milliseconds() + config.defaultApiTimeoutMs();
        TidelineClientException transportFailure = null;
        Map<TopicPartition, Errors> lastErrors = new LinkedHashMap<>();
        while (true) {
            try {
                metadata.refresh(topics);
                transportFailure = null;
                Map<BrokerAddress, Map<TopicPartition, Long>> byLeader = routeToLeaders(pending, results, lastErrors);
                transportFailure = sendDeleteRecords(byLeader, pending, results, lastErrors);
            } catch (TidelineClientException e) {
                if (!Rpc.retriable(e)) {
                    throw e;
                }
                transportFailure = e;
            }
            if (pending.isEmpty()) {
                break;
            }
            if (time.milliseconds() >= deadline) {
                if (transportFailure != null) {
                    throw transportFailure;
                }
                pending.keySet().forEach(tp -> {
                    Errors e = lastErrors.getOrDefault(tp, Errors.LEADER_NOT_AVAILABLE);
                    results.put(tp, new DeleteRecordsResult(tp, e, AdminProtos.message(e, "") + " (gave up after "
                            + config.defaultApiTimeoutMs() + " ms)", -1));
                });
                break;
            }
            backOff(deadline);
        }
        Map<TopicPartition, DeleteRecordsResult> ordered = new LinkedHashMap<>();
        beforeOffsets.keySet().forEach(tp -> ordered.put(tp, results.get(tp)));
        return ordered;
    }

    /**
     * Kafka's describeLogDirs: each broker of {@code brokerIds} (empty: every registered broker) reports
     * its own log dirs and the replicas in them of {@code topics} (empty: every topic), asked all at once.
     * One entry per broker, by id; a broker that is not registered or does not answer comes back with its
     * error (BROKER_NOT_AVAILABLE, REQUEST_TIMED_OUT) instead of failing the call.
     */
    public Map<Integer, BrokerLogDirs> describeLogDirs(Collection<Integer> brokerIds, Collection<String> topics) {
        return storage.describeLogDirs(brokerIds, topics);
    }

    /**
     * Why each segment of {@code tp}'s replica on {@code brokerId} (-1: the partition's leader) is still on
     * disk, as of that broker's next retention pass (docs/behaviours.md B59). Errors are in the result.
     */
    public ReplicaRetention explainRetention(TopicPartition tp, int brokerId) {
        return storage.explainRetention(tp, brokerId);
    }

    /**
     * Each partition's replicas with their states (IN_SYNC, LAGGING, FAILED, REBUILDING, OFFLINE), reasons and
     * since-times, the leader's log bounds and the ISR change history (docs/replication.md, "Replica states").
     * One answer per partition asked for, in order; an unknown partition comes back with
     * UNKNOWN_TOPIC_OR_PARTITION, one whose leader is missing or did not answer with LEADER_NOT_AVAILABLE and
     * what the other brokers knew. A broker that does not answer within request.timeout.ms makes its replicas
     * OFFLINE; it does not fail the call.
     *
     * @throws TidelineClientException when no broker answered at all
     */
    public Map<TopicPartition, PartitionReplicas> describeReplicas(Collection<TopicPartition> partitions) {
        DescribeReplicasResponse first = callAnyBroker("DescribeReplicas", AdminServiceStub::describeReplicas,
                ReplicaStatesCall.request(partitions, false));
        Set<String> topics = new LinkedHashSet<>();
        partitions.forEach(tp -> topics.add(tp.topic()));
        metadata.refresh(topics);
        return new ReplicaStatesCall(channels, config.requestTimeoutMs(), RPC_SLACK_MS)
                .run(partitions, first, metadata.current().brokers());
    }

    /**
     * Rebuilds broker {@code brokerId}'s FAILED replica of {@code tp} in place: it truncates fully and copies
     * the leader's log from its log start offset, then rejoins the ISR once caught up. Sent straight to that
     * broker; returns once the rebuild has begun (follow it with {@link #describeReplicas}). Refusals are
     * results (see {@link RebuildResult#error()}), never exceptions.
     */
    public RebuildResult rebuildReplica(TopicPartition tp, int brokerId) {
        return ReplicaRebuildCall.run(tp, brokerId, metadata.refresh(List.of(tp.topic())), channels,
                config.requestTimeoutMs(), RPC_SLACK_MS,
                request -> callAnyBroker("RebuildReplica", AdminServiceStub::rebuildReplica, request));
    }

    /** Kafka's listConsumerGroups: every group of every unfenced broker, sorted by id. */
    public List<ConsumerGroupListing> listConsumerGroups() {
        return groups.list();
    }

    /** Kafka's describeConsumerGroups and listConsumerGroupOffsets in one: per group id, in request order. */
    public Map<String, ConsumerGroupDescription> describeConsumerGroups(Collection<String> groupIds) {
        return groups.describe(groupIds);
    }

    /** Kafka's alterConsumerGroupOffsets: NON_EMPTY_GROUP while the group has members. */
    public GroupOutcome alterConsumerGroupOffsets(String groupId, Map<TopicPartition, Long> offsets) {
        return groups.alterOffsets(groupId, offsets);
    }

    /** Kafka's deleteConsumerGroups: per group id, in request order; NON_EMPTY_GROUP while it has members. */
    public Map<String, GroupOutcome> deleteConsumerGroups(Collection<String> groupIds) {
        return groups.delete(groupIds);
    }

    /**
     * Kafka's listOffsets: per partition, -2 asks for the log start offset, -1 for the high watermark, anything
     * else is a timestamp (the first offset at or after it, -1 when there is none). Partitions whose leader did
     * not answer within default.api.timeout.ms are left out.
     */
    public Map<TopicPartition, Long> listOffsets(Map<TopicPartition, Long> queries) {
        Set<String> topics = new LinkedHashSet<>();
        queries.keySet().forEach(tp -> topics.add(tp.topic()));
        return offsets.lookup(queries, time.milliseconds() + config.defaultApiTimeoutMs(), topics);
    }

    @Override
    public void close() {
        channels.close();
    }

    private Map<BrokerAddress, Map<TopicPartition, Long>> routeToLeaders(Map<TopicPartition, Long> pending,
                                                                        Map<TopicPartition, DeleteRecordsResult> results,
                                                                        Map<TopicPartition, Errors> lastErrors) {
        ClusterSnapshot cluster = metadata.current();
        Map<BrokerAddress, Map<TopicPartition, Long>> byLeader = new LinkedHashMap<>();
        for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            TopicPartition tp = e.getKey();
            TopicInfo topic = cluster.topic(tp.topic()).orElse(null);
            boolean known = topic != null && topic.error() == Errors.NONE && cluster.partition(tp).isPresent();
            if (!known) {
                Errors error = topic == null || topic.error() == Errors.NONE ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                        : topic.error();
                results.put(tp, new DeleteRecordsResult(tp, error, AdminProtos.message(error, ""), -1));
                it.remove();
                continue;
            }
            Leader leader = cluster.leader(tp).orElse(null);
            if (leader == null) {
                lastErrors.put(tp, Errors.LEADER_NOT_AVAILABLE);
                continue;
            }
            byLeader.computeIfAbsent(leader.address(), a -> new LinkedHashMap<>()).put(tp, e.getValue());
        }
        return byLeader;
    }

    /** Sends to every leader at once; returns the last retriable transport failure, if any. */
    private TidelineClientException sendDeleteRecords(Map<BrokerAddress, Map<TopicPartition, Long>> byLeader,
                                                      Map<TopicPartition, Long> pending,
                                                      Map<TopicPartition, DeleteRecordsResult> results,
                                                      Map<TopicPartition, Errors> lastErrors) {
        Map<BrokerAddress, CompletableFuture<DeleteRecordsResponse>> calls = new LinkedHashMap<>();
        byLeader.forEach((leader, offsets) -> {
            DeleteRecordsRequest.Builder request = DeleteRecordsRequest.newBuilder().setTimeoutMs(config.requestTimeoutMs());
            offsets.forEach((tp, offset) -> request.addPartitions(DeleteRecordsPartition.newBuilder()
                    .setTopic(tp.topic()).setPartition(tp.partition()).setOffset(offset)));
            String target = "DeleteRecords to " + leader;
            try {
                AdminServiceStub stub = channels.admin(leader, config.requestTimeoutMs() + RPC_SLACK_MS);
                calls.put(leader, Rpc.call(target, stub::deleteRecords, request.build()));
            } catch (RuntimeException e) {
                calls.put(leader, CompletableFuture.failedFuture(Rpc.transportError(target, e)));
            }
        });
        TidelineClientException transportFailure = null;
        for (Map.Entry<BrokerAddress, CompletableFuture<DeleteRecordsResponse>> call : calls.entrySet()) {
            String target = "DeleteRecords to " + call.getKey();
            DeleteRecordsResponse response;
            try {
                response = Rpc.await(call.getValue(), config.requestTimeoutMs() + 2 * RPC_SLACK_MS, target);
            } catch (TidelineClientException e) {
                if (!Rpc.retriable(e)) {
                    throw e;
                }
                log.debug("{} failed, retrying: {}", target, e.getMessage());
                transportFailure = e;
                continue;
            }
            for (DeleteRecordsPartitionResult r : response.getPartitionsList()) {
                TopicPartition tp = new TopicPartition(r.getTopic(), r.getPartition());
                if (!pending.containsKey(tp)) {
                    continue;
                }
                Errors error = Errors.forCode(r.getErrorCode());
                if (LEADER_ERRORS.contains(error)) {
                    lastErrors.put(tp, error);
                    metadata.requestUpdate();
                    continue;
                }
                pending.remove(tp);
                results.put(tp, new DeleteRecordsResult(tp, error, AdminProtos.message(error, r.getErrorMessage()),
                        error == Errors.NONE || error == Errors.REQUEST_TIMED_OUT ? r.getLowWatermark() : -1));
            }
        }
        return transportFailure;
    }

    /** Sends to broker {@code brokerId}, found through Metadata, retrying a transport failure until the timeout. */
    private <Q, A> A callBroker(int brokerId, String name, AdminMethod<Q, A> method, Q request) {
        long deadline = time.milliseconds() + config.defaultApiTimeoutMs();
        while (true) {
            BrokerAddress address = metadata.refresh(List.of()).brokers().get(brokerId);
            if (address == null) {
                throw new TidelineClientException(Errors.BROKER_NOT_AVAILABLE, "broker " + brokerId
                        + " is not registered in the cluster (registered: "
                        + new java.util.TreeSet<>(metadata.current().brokers().keySet()) + ")");
            }
            String target = name + " to broker " + brokerId + " at " + address;
            try {
                AdminServiceStub stub = channels.admin(address, config.requestTimeoutMs() + RPC_SLACK_MS);
                return Rpc.await(Rpc.call(target, (Q q, StreamObserver<A> o) -> method.call(stub, q, o), request),
                        config.requestTimeoutMs() + 2 * RPC_SLACK_MS, target);
            } catch (TidelineClientException e) {
                if (!Rpc.retriable(e) || time.milliseconds() >= deadline) {
                    throw e;
                }
                log.debug("{} failed, retrying: {}", target, e.getMessage());
                backOff(deadline);
            }
        }
    }

    private <Q, A> A callAnyBroker(String name, AdminMethod<Q, A> method, Q request) {
        return anyBroker(name, (address, target) -> {
            AdminServiceStub stub = channels.admin(address, config.requestTimeoutMs() + RPC_SLACK_MS);
            return Rpc.await(Rpc.call(target, (Q q, StreamObserver<A> o) -> method.call(stub, q, o), request),
                    config.requestTimeoutMs() + 2 * RPC_SLACK_MS, target);
        });
    }

    /**
     * The first answer of {@code call} from the candidate brokers, pass after pass until
     * default.api.timeout.ms. A pass in which no bootstrap address could be connected to, before any
     * broker answered this client, ends the call with a {@link BootstrapException}.
     */
    private <A> A anyBroker(String name, BiFunction<BrokerAddress, String, A> call) {
        long deadline = time.milliseconds() + config.defaultApiTimeoutMs();
        TidelineClientException last = null;
        do {
            Map<BrokerAddress, TidelineClientException> failures = new LinkedHashMap<>();
            for (BrokerAddress address : metadata.candidates()) {
                String target = name + " to " + address;
                try {
                    A answer = call.apply(address, target);
                    metadata.brokerAnswered();
                    return answer;
                } catch (TidelineClientException e) {
                    if (!Rpc.retriable(e)) {
                        throw e;
                    }
                    log.debug("{} failed, trying the next broker: {}", target, e.getMessage());
                    failures.put(address, e);
                    last = e;
                }
            }
            BootstrapException unreachable = metadata.bootstrapFailure(failures);
            if (unreachable != null) {
                throw unreachable;
            }
            backOff(deadline);
        } while (time.milliseconds() < deadline);
        throw last;
    }

    private void backOff(long deadline) {
        long left = deadline - time.milliseconds();
        if (left > 0) {
            time.sleep(Math.max(1, Math.min(config.retryBackoffMs(), left)));
        }
    }

    private static Map<String, TopicResult> topicResults(List<String> names,
                                                         List<io.tideline.proto.admin.TopicResult> answers) {
        Map<String, TopicResult> byName = new LinkedHashMap<>();
        answers.forEach(r -> byName.put(r.getName(), AdminProtos.fromProto(r)));
        Map<String, TopicResult> ordered = new LinkedHashMap<>();
        for (String name : names) {
            ordered.put(name, byName.getOrDefault(name, new TopicResult(name, Errors.UNKNOWN_SERVER_ERROR,
                    "the broker's answer does not mention this topic")));
        }
        return ordered;
    }
}
