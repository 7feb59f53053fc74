package io.tideline.node.service;

import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The admin operations of one broker, built once and shared by both listeners: the gRPC admin service and the
 * Kafka admin APIs are each a translation of their own messages to these calls and back, so every admin rule
 * lives here or in the controller, once.
 */
public record AdminServices(TopicsService topics, LeaderElections elections, ConfigsService configs,
                            ReassignmentsService reassignments, RecordsService records, ClusterService cluster,
                            LogDirsService logDirs, ReplicaRebuilder rebuilds) {

    public AdminServices {
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(elections, "elections");
        Objects.requireNonNull(configs, "configs");
        Objects.requireNonNull(reassignments, "reassignments");
        Objects.requireNonNull(records, "records");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(logDirs, "logDirs");
        Objects.requireNonNull(rebuilds, "rebuilds");
    }

    /**
     * @param voters                   the metadata quorum's voters (controller.quorum.voters), for DescribeCluster
     * @param defaultNumPartitions     num.partitions: a new topic's -1 partitions without assignments
     * @param defaultReplicationFactor default.replication.factor: its -1 replication factor without assignments
     */
    public static AdminServices create(int brokerId, String clusterId, Supplier<MetadataImage> image,
                                       ReplicaManager replicaManager, LogManager logManager,
                                       ControllerClient controller, BrokerConfigResolver brokerConfigs,
                                       Map<Integer, InetSocketAddress> voters, int defaultNumPartitions,
                                       int defaultReplicationFactor) {
        return new AdminServices(new TopicsService(controller, defaultNumPartitions, defaultReplicationFactor),
                new LeaderElections(controller), new ConfigsService(brokerId, image, controller, brokerConfigs),
                new ReassignmentsService(image, controller), new RecordsService(brokerId, image, replicaManager),
                new ClusterService(brokerId, clusterId, voters, image, controller), new LogDirsService(logManager),
                new ReplicaRebuilder(brokerId, image, replicaManager));
    }
}
