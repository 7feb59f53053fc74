package io.tideline.node.kafka.data;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.PartitionRecord;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * Kafka's topic ids and leader hints from the metadata image. The image keeps a topic's id as Kafka prints a
 * {@link Uuid} (22 characters of base64url), so the two convert without a table. Stateless.
 */
final class TopicIds {
    private TopicIds() {
    }

    /** The topic with {@code id}, empty for an unknown or zero id. */
    static Optional<TopicImage> topic(MetadataImage image, Uuid id) {
        if (id == null || Uuid.ZERO_UUID.equals(id)) {
            return Optional.empty();
        }
        return image.topicById(id.toString());
    }

    /** The topic's id as Kafka's Uuid (ZERO_UUID if the image holds something else). */
    static Uuid id(TopicImage topic) {
        try {
            return Uuid.fromString(topic.id());
        } catch (IllegalArgumentException e) {
            return Uuid.ZERO_UUID;
        }
    }

    /** The id of the topic named {@code name}, ZERO_UUID when unknown. */
    static Uuid id(MetadataImage image, String name) {
        return name == null ? Uuid.ZERO_UUID : image.topic(name).map(TopicIds::id).orElse(Uuid.ZERO_UUID);
    }

    /** A partition's leader and its epoch as the image knows them. */
    record Leader(int id, int epoch) {
        static final Leader UNKNOWN = new Leader(-1, -1);
    }

    /** The leader hint of Kafka's current_leader fields; {@link Leader#UNKNOWN} when the image has no such partition. */
    static Leader leader(MetadataImage image, String topic, int partition) {
        Optional<PartitionRecord> p = topic == null || partition < 0 ? Optional.empty() : image.partition(topic, partition);
        return p.map(r -> new Leader(r.getLeader(), r.getLeaderEpoch())).orElse(Leader.UNKNOWN);
    }
}
