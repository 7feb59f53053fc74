package io.tideline.node.kafka.data;

import io.tideline.common.TopicPartition;
import io.tideline.node.service.OffsetLookup;
import io.tideline.node.service.RequestChecks;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.metadata.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Kafka's ListOffsets on the Kafka listener, answered by {@link OffsetLookup} as on the gRPC listener: earliest
 * (-2) the log start offset, latest (-1) the high watermark, a timestamp the first committed record at or after
 * it, max timestamp (-3) the committed record with the largest timestamp; earliest-local (-4) is the log start
 * offset and latest-tiered (-5) / earliest-pending-upload (-6) find nothing, as in Kafka without tiered
 * storage. read_committed answers as read_uncommitted (no transactions: the last stable offset is the high
 * watermark). Every request is answered as a consumer's, whatever its replica id. Versions 1-11 (the consumer
 * and AdminClient.listOffsets). A partition listed twice is refused with INVALID_REQUEST, as in Kafka.
 * Stateless; safe for concurrent use.
 */
public final class ListOffsetsApi extends AbstractKafkaApi {
    static final short MIN_VERSION = 1;
    static final short MAX_VERSION = 11;

    private final Supplier<MetadataImage> image;
    private final OffsetLookup lookup;

    public ListOffsetsApi(Supplier<MetadataImage> image, OffsetLookup lookup) {
        super(ApiKeys.LIST_OFFSETS, MIN_VERSION, MAX_VERSION);
        this.image = Objects.requireNonNull(image, "image");
        this.lookup = Objects.requireNonNull(lookup, "lookup");
    }

    private record Entry(String topic, int partition) {
    }

    @Override
    public CompletableFuture<ListOffsetsResponseData> handle(KafkaRequest request) {
        ListOffsetsRequestData data = request.body(ListOffsetsRequestData.class);
        short version = request.version();
        MetadataImage current = image.get();
        List<Entry> all = new ArrayList<>();
        data.topics().forEach(t -> t.partitions().forEach(p -> all.add(new Entry(t.name(), p.partitionIndex()))));
        Set<TopicPartition> listedTwice = RequestChecks.listedTwice(all, Entry::topic, Entry::partition);
        ListOffsetsResponseData out = new ListOffsetsResponseData();
        for (ListOffsetsTopic topic : data.topics()) {
            ListOffsetsTopicResponse t = new ListOffsetsTopicResponse().setName(topic.name());
            for (ListOffsetsPartition p : topic.partitions()) {
                // Version 4 brought current_leader_epoch; before it the field reads as -1 (no check).
                OffsetLookup.Found found = lookup.find(current, topic.name(), p.partitionIndex(), p.timestamp(),
                        p.currentLeaderEpoch(), listedTwice);
                ListOffsetsPartitionResponse r = new ListOffsetsPartitionResponse().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(found.error().code()).setTimestamp(found.timestamp()).setOffset(found.offset());
                if (version >= 4) {
                    r.setLeaderEpoch(found.leaderEpoch());
                }
                t.partitions().add(r);
            }
            out.topics().add(t);
        }
        return CompletableFuture.completedFuture(out);
    }
}
