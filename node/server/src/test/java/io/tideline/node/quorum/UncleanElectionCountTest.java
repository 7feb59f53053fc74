package io.tideline.node.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.codahale.metrics.MetricRegistry;
import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TopicRecord;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class UncleanElectionCountTest {
    private static final MetadataImage OFFLINE = ImageReplayer.replay(MetadataImage.EMPTY, List.of(
            MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("orders").setTopicId("t1")).build(),
            MetadataRecord.newBuilder().setPartition(partition(0, List.of(1), -1)).build(),
            MetadataRecord.newBuilder().setPartition(partition(1, List.of(1), -1)).build()), 10, 1);

    @Test
    void aLeaderFromOutsideTheIsrIsUncleanAndOneFromItIsNot() {
        List<MetadataRecord> records = List.of(
                change(partition(0, List.of(3), 3), ChangeReason.UNCLEAN_LEADER_ELECTION),
                change(partition(1, List.of(1), 1), ChangeReason.BROKER_UNFENCED));
        assertEquals(1, QuorumMetrics.uncleanElections(OFFLINE, records));
    }

    @Test
    void anUnfencedBrokerOutsideTheIsrTakingTheLeadIsUncleanWhateverTheReason() {
        assertEquals(1, QuorumMetrics.uncleanElections(OFFLINE,
                List.of(change(partition(0, List.of(2), 2), ChangeReason.BROKER_UNFENCED))));
    }

    @Test
    void theActiveControllerAloneCountsSoTheQuorumSumCountsEachElectionOnce() {
        MetricRegistry registry = new MetricRegistry();
        AtomicBoolean leader = new AtomicBoolean(false);
        QuorumMetrics metrics = new QuorumMetrics(registry, () -> OFFLINE, leader::get);
        MetadataListener counter = metrics.uncleanElectionCounter();
        List<MetadataRecord> unclean = List.of(change(partition(0, List.of(3), 3), ChangeReason.UNCLEAN_LEADER_ELECTION));
        counter.onMetadata(OFFLINE, OFFLINE, unclean);
        assertEquals(0, registry.meter(QuorumMetrics.UNCLEAN_LEADER_ELECTIONS_PER_SEC).getCount());
        leader.set(true);
        counter.onMetadata(OFFLINE, OFFLINE, unclean);
        assertEquals(1, registry.meter(QuorumMetrics.UNCLEAN_LEADER_ELECTIONS_PER_SEC).getCount());
        metrics.close();
        assertEquals(List.of(), List.copyOf(registry.getNames()));
    }

    private static PartitionRecord partition(int p, List<Integer> isr, int leader) {
        return PartitionRecord.newBuilder().setTopicId("t1").setPartition(p).addAllReplicas(List.of(1, 2, 3))
                .addAllIsr(isr).setLeader(leader).setLeaderEpoch(1).setPartitionEpoch(1).build();
    }

    private static MetadataRecord change(PartitionRecord p, ChangeReason reason) {
        return MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder().setPartition(p)
                .setReason(reason).setTimestampMs(1)).build();
    }
}
