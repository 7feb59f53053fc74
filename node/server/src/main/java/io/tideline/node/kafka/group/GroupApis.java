package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.KafkaApi;
import java.util.List;

/**
 * The consumer-group APIs of the Kafka listener (docs/kafka-protocol.md, Consumer groups), for
 * {@code KafkaApis.registerAll}. {@code endpoints} names a broker's Kafka listener address for FindCoordinator.
 */
public final class GroupApis {
    private GroupApis() {
    }

    public static List<KafkaApi> all(GroupCoordinator coordinator, KafkaEndpoints endpoints) {
        return List.of(new FindCoordinatorApi(coordinator, endpoints), new JoinGroupApi(coordinator),
                new SyncGroupApi(coordinator), new HeartbeatApi(coordinator), new LeaveGroupApi(coordinator),
                new OffsetCommitApi(coordinator), new OffsetFetchApi(coordinator), new ListGroupsApi(coordinator),
                new DescribeGroupsApi(coordinator), new DeleteGroupsApi(coordinator), new OffsetDeleteApi(coordinator));
    }
}
