package io.tideline.node.kafka;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerQueryResponse;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The Kafka listener's APIs about the listener and the cluster themselves: ApiVersions (answered from
 * {@code registry}, so it lists itself like any other API), Metadata (with topic auto-creation) and DescribeQuorum.
 */
public final class ClusterApis {
    private ClusterApis() {
    }

    /**
     * @param listenerName   the Kafka listener's name, under which every broker registered its Kafka endpoint
     * @param quorumLeaderId the metadata quorum's leader, -1 when unknown or on a broker-only node
     * @param voters         the metadata quorum's voters (controller.quorum.voters)
     */
    public static List<KafkaApi> create(KafkaApis registry, int nodeId, String clusterId, String listenerName,
                                        Supplier<MetadataImage> image, IntSupplier quorumLeaderId,
                                        TopicAutoCreation autoCreation,
                                        Supplier<CompletableFuture<ControllerQueryResponse>> describeQuorum,
                                        Map<Integer, InetSocketAddress> voters) {
        return List.of(new ApiVersionsApi(registry, nodeId, clusterId),
                new MetadataApi(nodeId, clusterId, listenerName, image, quorumLeaderId, autoCreation),
                new DescribeQuorumApi(describeQuorum, voters));
    }
}
