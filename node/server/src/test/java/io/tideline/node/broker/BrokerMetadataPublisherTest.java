package io.tideline.node.broker;

import static io.tideline.node.broker.Images.changed;
import static io.tideline.node.broker.Images.created;
import static io.tideline.node.broker.Images.fourBrokers;
import static io.tideline.node.broker.Images.partition;
import static io.tideline.node.broker.Images.replay;
import static io.tideline.node.broker.Images.topic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ChangeReason;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BrokerMetadataPublisherTest {

    private final List<MetadataDelta> deltas = new ArrayList<>();

    @Test
    void publishesDeltasInOrderAndSkipsImagesThatAreNotNewer() {
        BrokerMetadataPublisher publisher = new BrokerMetadataPublisher(1, (delta, image) -> deltas.add(delta));
        assertSame(MetadataImage.EMPTY, publisher.lastPublished());

        MetadataImage brokers = fourBrokers();
        MetadataImage created = replay(brokers, 11, topic("t", "T"),
                created(partition("T", 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)));
        MetadataImage moved = replay(created, 12,
                changed(partition("T", 0, List.of(1, 2), List.of(1, 2), 2, 1, 1), ChangeReason.LEADER_CHANGE));

        assertTrue(publisher.publish(brokers));
        assertTrue(publisher.publish(created));
        assertFalse(publisher.publish(created), "same offset");
        assertFalse(publisher.publish(brokers), "older");
        assertTrue(publisher.publish(moved));
        assertSame(moved, publisher.lastPublished());

        assertEquals(3, deltas.size());
        assertTrue(deltas.get(0).unfenced());
        assertEquals(1, deltas.get(1).partitionsToLead().size());
        assertEquals(11, deltas.get(2).previousOffset());
        assertEquals(List.of(new PartitionToFollow(new io.tideline.common.TopicPartition("t", 0), "T", 2, 1)),
                deltas.get(2).partitionsToFollow());
    }

    @Test
    void aRefusedImageIsNotRecordedSoTheNextDeltaRepeatsItsChanges() {
        boolean[] refuse = {true};
        BrokerMetadataPublisher publisher = new BrokerMetadataPublisher(1, (delta, image) -> {
            if (refuse[0]) {
                throw new IllegalStateException("disk full");
            }
            deltas.add(delta);
        });
        MetadataImage created = replay(fourBrokers(), 11, topic("t", "T"),
                created(partition("T", 0, List.of(1), List.of(1), 1, 0, 0)));
        assertThrows(IllegalStateException.class, () -> publisher.publish(created));
        assertSame(MetadataImage.EMPTY, publisher.lastPublished());

        refuse[0] = false;
        MetadataImage later = replay(created, 12, topic("u", "U"));
        assertTrue(publisher.publish(later));
        assertEquals(0, deltas.get(0).previousOffset());
        assertEquals(1, deltas.get(0).partitionsToLead().size());
    }
}
