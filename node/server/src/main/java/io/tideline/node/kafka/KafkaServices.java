package io.tideline.node.kafka;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.api.AdminApiService;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.kafka.data.DataApis;
import io.tideline.node.kafka.data.FetchStats;
import io.tideline.node.kafka.admin.DescribeProducersApi;
import io.tideline.node.kafka.data.InitProducerIdApi;
import io.tideline.node.kafka.admin.AdminDeps;
import io.tideline.node.kafka.admin.KafkaAdminApis;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.producer.ProducerIdInitializer;
import io.tideline.node.server.ServerConfig;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
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
     * unknown or on a broker-only node.
     */
    public record Node(int nodeId, String clusterId, String listenerName, ServerConfig config,
                       Supplier<MetadataImage> image, IntSupplier quorumLeaderId, ReplicaManager replicaManager,
                       LogManager logManager, ControllerClient controllerClient, AdminApiService admin,
                       BrokerConfigResolver brokerConfigs, Time time, Scheduler scheduler, MetricRegistry metrics,
                       ProducerIdInitializer producerIds) {
    }

    public static KafkaApis build(Node node) {
        KafkaApis apis = new KafkaApis();
        // ApiVersions answers from this registry, so it lists itself like any other API.
        apis.register(new ApiVersionsApi(apis));
        apis.register(new MetadataApi(node.nodeId(), node.clusterId(), node.listenerName(), node.image(),
                node.quorumLeaderId()));
        apis.registerAll(DataApis.create(node.nodeId(), node.image(), node.replicaManager(),
                FetchStats.registeredIn(node.metrics())));
        apis.register(new DescribeProducersApi(node.image(), node.replicaManager()));
        apis.register(new InitProducerIdApi(node.producerIds()));
        apis.registerAll(KafkaAdminApis.create(new AdminDeps(node.nodeId(), node.clusterId(), node.admin(), node.image(),
                node.brokerConfigs(), node.config().originals(), node.config().node().numPartitions(),
                (short) node.config().node().defaultReplicationFactor(),
                broker -> KafkaMetadataResponses.kafkaEndpoint(broker, node.listenerName()))));
        return apis;
    }
}
