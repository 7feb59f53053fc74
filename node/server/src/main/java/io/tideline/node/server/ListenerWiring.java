package io.tideline.node.server;

import com.codahale.metrics.MetricRegistry;
import io.grpc.ServerServiceDefinition;
import io.tideline.node.api.AdminApiService;
import io.tideline.node.api.ClientApiService;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.config.NodeConfig;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.ClusterApis;
import io.tideline.node.kafka.KafkaApis;
import io.tideline.node.kafka.KafkaMetadataResponses;
import io.tideline.node.kafka.TopicAutoCreation;
import io.tideline.node.kafka.admin.AdminDeps;
import io.tideline.node.kafka.admin.DescribeProducersApi;
import io.tideline.node.kafka.admin.KafkaAdminApis;
import io.tideline.node.kafka.data.DataApis;
import io.tideline.node.kafka.data.FetchStats;
import io.tideline.node.kafka.data.InitProducerIdApi;
import io.tideline.node.kafka.group.GroupApis;
import io.tideline.node.kafka.group.KafkaEndpoints;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.producer.ProducerIdInitializer;
import io.tideline.node.service.AdminServices;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The composition root of both client listeners. It builds the node's admin operations once ({@link AdminServices})
 * and, beside each other over them, the gRPC client and admin services and the Kafka listener's API table: each
 * API of docs/kafka-protocol.md is one {@code register} line in {@link #kafkaApis}, and what ApiVersions offers is
 * exactly what is registered there. The two listeners' packages never depend on each other
 * (NodeDependencyRulesTest); only this class sees both.
 */
final class ListenerWiring {
    private final Parts parts;
    private final AdminServices admin;

    /**
     * What the listeners' services use, all owned by the node (a service never closes them). {@code quorumLeaderId}
     * is -1 when unknown or on a broker-only node; {@code groupCoordinator} is null until the Kafka listener
     * starts one; {@code originals} is every key of the node's configuration, for an API with a config class of
     * its own ({@code Foo.fromMap(originals)}).
     */
    record Parts(int nodeId, NodeConfig nodeConfig, Map<String, ?> originals, Supplier<MetadataImage> image,
                 IntSupplier quorumLeaderId, ReplicaManager replicaManager, LogManager logManager,
                 ControllerClient controllerClient, BrokerConfigResolver brokerConfigs,
                 IntSupplier defaultMinInsyncReplicas, Supplier<GroupCoordinator> groupCoordinator,
                 ProducerIdInitializer producerIds, MetricRegistry metrics) {
    }

    ListenerWiring(Parts parts) {
        this.parts = parts;
        NodeConfig config = parts.nodeConfig();
        this.admin = AdminServices.create(parts.nodeId(), config.clusterId(), parts.image(), parts.replicaManager(),
                parts.logManager(), parts.controllerClient(), parts.brokerConfigs(), config.voters(),
                config.numPartitions(), config.defaultReplicationFactor());
    }

    /** The gRPC listener's client service; bytes that are not a method's message get INVALID_ARGUMENT (B164). */
    ServerServiceDefinition clientService() {
        return TypedRequestParsing.of(new ClientApiService(parts.nodeId(), parts.nodeConfig().clusterId(),
                parts.image(), parts.replicaManager(), parts.quorumLeaderId(), parts.producerIds()));
    }

    /** The gRPC listener's admin service, over the same operations as the Kafka admin APIs. */
    ServerServiceDefinition adminService() {
        return TypedRequestParsing.of(new AdminApiService(admin, parts.nodeId(), parts.image(),
                parts.replicaManager(), parts.controllerClient(), parts.defaultMinInsyncReplicas(),
                parts.logManager(), parts.groupCoordinator()));
    }

    /**
     * The Kafka listener's APIs. {@code listenerName} is the Kafka listener's name, under which every broker
     * registered its Kafka endpoint.
     */
    KafkaApis kafkaApis(String listenerName, GroupCoordinator groups) {
        int id = parts.nodeId();
        NodeConfig config = parts.nodeConfig();
        KafkaApis apis = new KafkaApis();
        TopicAutoCreation autoCreation = new TopicAutoCreation(config.autoCreateTopicsEnable(), config.numPartitions(),
                config.defaultReplicationFactor(), topics -> parts.controllerClient().createTopics(topics, false));
        apis.registerAll(ClusterApis.create(apis, id, config.clusterId(), listenerName, parts.image(),
                parts.quorumLeaderId(), autoCreation, parts.controllerClient()::describeQuorum, config.voters()));
        apis.registerAll(DataApis.create(id, parts.image(), parts.replicaManager(),
                FetchStats.registeredIn(parts.metrics())));
        apis.register(new DescribeProducersApi(parts.image(), parts.replicaManager()));
        apis.register(new InitProducerIdApi(parts.producerIds()));
        apis.registerAll(KafkaAdminApis.create(new AdminDeps(id, config.clusterId(), admin, parts.image(),
                parts.brokerConfigs(), parts.originals(),
                broker -> KafkaMetadataResponses.kafkaEndpoint(broker, listenerName))));
        // Consumer groups: their offsets and metadata live in the quorum (docs/kafka-protocol.md "Consumer groups").
        apis.registerAll(GroupApis.all(groups, (img, brokerId) -> img.broker(brokerId)
                .flatMap(b -> KafkaMetadataResponses.kafkaEndpoint(b, listenerName))
                .map(e -> new KafkaEndpoints.HostPort(e.getHost(), e.getPort()))));
        return apis;
    }
}
