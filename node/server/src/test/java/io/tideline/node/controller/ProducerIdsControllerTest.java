package io.tideline.node.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.ImageReplayer;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.AllocateProducerIds;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.MetadataSnapshot;
import io.tideline.proto.metadata.ProducerIdsRecord;
import java.util.List;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** AllocateProducerIds: blocks of 1000, committed before they are answered, never reused, never negative. */
class ProducerIdsControllerTest {

    private static ControllerResult allocate(ControllerHarness h, int broker, long epoch) {
        return h.apply(ControllerCommand.newBuilder().setAllocateProducerIds(AllocateProducerIds.newBuilder()
                .setBrokerId(broker).setBrokerEpoch(epoch)));
    }

    @Test
    void blocksOfAThousandFollowEachOtherFromZeroAcrossBrokers() {
        ControllerHarness h = new ControllerHarness(false);
        long[] epochs = h.brokers(1, 2);
        ControllerResult first = allocate(h, 1, epochs[0]);
        assertEquals(Errors.NONE, first.error(), first.response().toString());
        assertEquals(0, first.response().getProducerIdBlock().getFirstProducerId());
        assertEquals(1000, first.response().getProducerIdBlock().getLength());
        assertEquals(List.of(MetadataRecord.newBuilder().setProducerIds(ProducerIdsRecord.newBuilder()
                .setBrokerId(1).setBrokerEpoch(epochs[0]).setNextProducerId(1000)).build()), first.records(),
                "the block's end is a record: committed before the broker gets the answer");
        assertEquals(1000, h.image.nextProducerId());

        ControllerResult second = allocate(h, 2, epochs[1]);
        assertEquals(1000, second.response().getProducerIdBlock().getFirstProducerId());
        ControllerResult third = allocate(h, 1, epochs[0]);
        assertEquals(2000, third.response().getProducerIdBlock().getFirstProducerId());
        assertEquals(3000, h.image.nextProducerId());
    }

    @Test
    void aControllerStartedFromTheSnapshotAfterAFailoverNeverHandsOutAnIdAgain() throws Exception {
        ControllerHarness h = new ControllerHarness(false);
        long[] epochs = h.brokers(1);
        allocate(h, 1, epochs[0]);
        allocate(h, 1, epochs[0]);
        MetadataSnapshot snapshot = ImageSerde.toSnapshot(h.image);
        assertEquals(2000, snapshot.getNextProducerId());

        ControllerHarness successor = new ControllerHarness(false);
        successor.image = ImageSerde.fromSnapshot(MetadataSnapshot.parseFrom(snapshot.toByteString()));
        successor.offset = h.offset;
        assertEquals(h.image, successor.image);
        ControllerResult next = allocate(successor, 1, epochs[0]);
        assertEquals(2000, next.response().getProducerIdBlock().getFirstProducerId());
    }

    @Test
    void anUnknownBrokerOrAStaleEpochGetsNoBlockAndCommitsNothing() {
        ControllerHarness h = new ControllerHarness(false);
        long[] epochs = h.brokers(1);
        ControllerResult unknown = allocate(h, 7, 1);
        assertEquals(Errors.BROKER_NOT_AVAILABLE, unknown.error());
        ControllerResult stale = allocate(h, 1, epochs[0] - 1);
        assertEquals(Errors.STALE_BROKER_EPOCH, stale.error());
        assertTrue(unknown.records().isEmpty() && stale.records().isEmpty());
        assertEquals(0, h.image.nextProducerId());
        assertEquals(0, allocate(h, 1, epochs[0]).response().getProducerIdBlock().getFirstProducerId());
    }

    @Test
    void theLastIdsAreNotHandedOutSoNoIdOverflowsToANegativeValue() {
        ControllerHarness h = new ControllerHarness(false);
        long[] epochs = h.brokers(1);
        h.image = ImageSerde.fromSnapshot(ImageSerde.toSnapshot(h.image).toBuilder()
                .setNextProducerId(Long.MAX_VALUE - 999).build());
        ControllerResult r = allocate(h, 1, epochs[0]);
        assertEquals(Errors.UNKNOWN_SERVER_ERROR, r.error());
        assertTrue(r.records().isEmpty());
        h.image = ImageSerde.fromSnapshot(ImageSerde.toSnapshot(h.image).toBuilder()
                .setNextProducerId(Long.MAX_VALUE - 1000).build());
        assertEquals(Long.MAX_VALUE - 1000, allocate(h, 1, epochs[0]).response().getProducerIdBlock().getFirstProducerId());
    }

    @Test
    void replayRefusesARecordThatMovesProducerIdsBackwards() {
        MetadataImage image = ImageReplayer.replay(MetadataImage.EMPTY, List.of(MetadataRecord.newBuilder()
                .setProducerIds(ProducerIdsRecord.newBuilder().setNextProducerId(2000)).build()), 1, 1);
        assertThrows(IllegalStateException.class, () -> ImageReplayer.replay(image, List.of(MetadataRecord.newBuilder()
                .setProducerIds(ProducerIdsRecord.newBuilder().setNextProducerId(1000)).build()), 2, 1));
    }
}
