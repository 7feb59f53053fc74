package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.KafkaApi;
import java.util.List;

/**
 * The admin APIs of the Kafka listener (docs/kafka-protocol.md, Admin APIs), each a translation of Kafka's
 * request data to the calls of {@link io.tideline.node.service.AdminServices} and of their results back: the admin
 * rules live there and in the controller, once, for this listener and the gRPC one alike.
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
