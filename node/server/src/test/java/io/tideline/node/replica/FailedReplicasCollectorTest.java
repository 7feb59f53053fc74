package io.tideline.node.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.FailedReplicaRecord;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TopicRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class FailedReplicasCollectorTest {

    @Test
    void eachFailedReplicaOfThisBrokerIsOneSeriesLabelledWithItsReason() {
        MetadataImage image = ImageReplayer.replay(MetadataImage.EMPTY, List.of(
                MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("orders").setTopicId("t1")).build(),
                MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder().setTopicId("t1").setPartition(0)
                        .addAllReplicas(List.of(1, 2)).addAllIsr(List.of(1)).setLeader(1)).build(),
                MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder().setTopicId("t1").setPartition(1)
                        .addAllReplicas(List.of(1, 2)).addAllIsr(List.of(1)).setLeader(1)).build(),
                failed(0, 2, "fetch offset 5 is below the leader's log start offset 900"),
                failed(1, 1, "truncation to 7 failed")), 10, 1);

        GaugeSnapshot onTwo = (GaugeSnapshot) new FailedReplicasCollector(2, () -> image).collect();
        assertEquals(1, onTwo.getDataPoints().size());
        assertEquals(Labels.of("topic", "orders", "partition", "0", "broker", "2", "reason",
                "fetch offset 5 is below the leader's log start offset 900"), onTwo.getDataPoints().get(0).getLabels());
        assertEquals(1.0, onTwo.getDataPoints().get(0).getValue());

        GaugeSnapshot onThree = (GaugeSnapshot) new FailedReplicasCollector(3, () -> image).collect();
        assertEquals(0, onThree.getDataPoints().size(), "a broker with no FAILED replica reports none");
    }

    private static MetadataRecord failed(int partition, int broker, String reason) {
        return MetadataRecord.newBuilder().setFailedReplica(FailedReplicaRecord.newBuilder().setTopicId("t1")
                .setPartition(partition).setBrokerId(broker).setReason(reason).setSinceMs(1)).build();
    }
}
