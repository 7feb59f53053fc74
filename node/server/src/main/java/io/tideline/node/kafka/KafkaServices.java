package io.tideline.node.kafka;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.api.AdminApiService;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.config.NodeConfig;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.kafka.data.DataApis;
import io.tideline.node.kafka.data.FetchStats;
import io.tideline.node.kafka.admin.DescribeProducersApi;
import io.tideline.node.kafka.data.InitProducerIdApi;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.producer.ProducerIdInitializer;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The one place where the Kafka listener's APIs are built from the node's services and registered: each API of
 * docs/kafka-protocol.md is one {@code apis.register(...)} line in {@link #build}. TidelineNode builds the
 * {@link Node} once the services exist and before the listener starts; what ApiVersions offers is exactly what is
 * registered here.
 */
public final class KafkaServices {
    private KafkaServices() {
    }

    /**
     * What the APIs may use, all owned by the node (an API never closes them). {@code listenerName} is the Kafka
     * listener's name, under which every broker registered its Kafka endpoint; {@code quorumLeaderId} is -1 when
     * unknown or on a broker-only node; {@code originals} is every key of the node's configuration, for an API
     * with a config class of its own ({@code Foo.fromMap(originals)}).
     */
    public record Node(int nodeId, String clusterId, String listenerName, NodeConfig nodeConfig,
                       ReplicationConfig replicationConfig, Map<String, ?> originals,
                       Supplier<MetadataImage> image, IntSupplier quorumLeaderId, ReplicaManager replicaManager,
                       LogManager logManager, ControllerClient controllerClient, AdminApiService admin,
                       BrokerConfigResolver brokerConfigs, Time time, Scheduler scheduler, MetricRegistry metrics,
                       ProducerIdInitializer producerIds) {
    }

    public static KafkaApis build(Node node) {
        KafkaApis apis = new KafkaApis();
        // ApiVersions answers from this registry, so it lists itself like any other API.
        apis.register(new ApiVersionsApi(apis, node.nodeId(), node.clusterId()));
        NodeConfig config = node.nodeConfig();
        TopicAutoCreation autoCreation = new TopicAutoCreation(config.autoCreateTopicsEnable(), config.numPartitions(),
                config.defaultReplicationFactor(), topics -> node.controllerClient().createTopics(topics, false));
        apis.register(new MetadataApi(node.nodeId(), node.clusterId(), node.listenerName(), node.image(),
                node.quorumLeaderId(), autoCreation));
        apis.registerAll(DataApis.create(node.nodeId(), node.image(), node.replicaManager(),
                FetchStats.registeredIn(node.metrics())));
        apis.register(new DescribeProducersApi(node.image(), node.replicaManager()));
        apis.register(new InitProducerIdApi(node.producerIds()));
        apis.register(new DescribeQuorumApi(node.controllerClient()::describeQuorum, node.nodeConfig().voters()));
        return apis;
    }
}
