package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.KafkaApi;
import java.util.List;

/**
 * The admin APIs of the Kafka listener (docs/kafka-protocol.md, Admin APIs), each a translation of Kafka's
 * request data to the gRPC admin service's calls and of their answers back: the admin rules live there and in
 * the controller, once. Register them with {@code KafkaApis.registerAll(KafkaAdminApis.create(deps))}.
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
