package io.tideline.node.kafka.data;

import io.tideline.node.service.OffsetLookup;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.replication.server.ReplicaManager;
import java.util.List;
import java.util.function.Supplier;

/**
 * The data path of the Kafka listener: Produce, Fetch, ListOffsets and OffsetForLeaderEpoch over the node's
 * ReplicaManager and metadata image, for {@code KafkaApis.registerAll}.
 */
public final class DataApis {
    private DataApis() {
    }

    public static List<KafkaApi> create(int brokerId, Supplier<MetadataImage> image, ReplicaManager replicaManager,
                                        FetchStats fetchStats) {
        return List.of(new ProduceApi(image, replicaManager),
                new FetchApi(image, replicaManager, fetchStats),
                new ListOffsetsApi(image, new OffsetLookup(replicaManager, brokerId)),
                new OffsetForLeaderEpochApi(brokerId, image, replicaManager));
    }
}
