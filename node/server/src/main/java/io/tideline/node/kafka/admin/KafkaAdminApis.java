package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.KafkaApi;
import java.util.List;

/**
 * The admin APIs of the Kafka listener (docs/kafka-protocol.md, Admin APIs), each a translation of Kafka's
 * request data to the gRPC admin service's calls and of their answers back: the admin rules live there and in
 * the controller, once. TidelineNode builds the {@link AdminDeps} and registers them next to
 * {@code KafkaServices.build}'s, not inside it: this package depends on {@code io.tideline.node.kafka} (KafkaApi,
 * KafkaRequest) and must not on {@code io.tideline.node.server}, so neither may depend on it back
 * (NodeDependencyRulesTest forbids package cycles).
 */
public final class KafkaAdminApis {
    private KafkaAdminApis() {
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
