package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.kafka.KafkaMetadataResponses;
import io.tideline.node.kafka.KafkaServices;
import java.util.List;

/**
 * The admin APIs of the Kafka listener (docs/kafka-protocol.md, Admin APIs), each a translation of Kafka's
 * request data to the gRPC admin service's calls and of their answers back: the admin rules live there and in
 * the controller, once. TidelineNode registers them next to {@code KafkaServices.build}'s, not inside it: this
 * package depends on {@code io.tideline.node.kafka} (KafkaApi, KafkaRequest), so that package may not depend on
 * this one (NodeDependencyRulesTest forbids package cycles).
 */
public final class KafkaAdminApis {
    private KafkaAdminApis() {
    }

    /** The APIs over the node's services; a broker's Kafka endpoint is the one Metadata answers with. */
    public static List<KafkaApi> create(KafkaServices.Node node) {
        return create(new AdminDeps(node.nodeId(), node.clusterId(), node.admin(), node.image(), node.brokerConfigs(),
                node.config().originals(), node.config().node().numPartitions(),
                (short) node.config().node().defaultReplicationFactor(),
                broker -> KafkaMetadataResponses.kafkaEndpoint(broker, node.listenerName())));
    }

    public static List<KafkaApi> create(AdminDeps deps) {
        TopicConfigView topicConfigs = new TopicConfigView(deps.brokerId(), deps.brokerConfigs(), deps.staticProps());
        return List.of(
                new CreateTopicsApi(deps, topicConfigs),
                new DeleteTopicsApi(deps),
                new CreatePartitionsApi(deps),
                new DescribeConfigsApi(deps, topicConfigs),
                new IncrementalAlterConfigsApi(deps),
                new DeleteRecordsApi(deps),
                new AlterPartitionReassignmentsApi(deps),
                new ListPartitionReassignmentsApi(deps),
                new ElectLeadersApi(deps),
                new DescribeClusterApi(deps),
                new DescribeLogDirsApi(deps));
    }
}
