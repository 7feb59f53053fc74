package io.tideline.node.kafka.data;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.service.RequestChecks;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.ErrorMessages;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.replication.server.ProduceResult;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.record.MemoryRecords;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's Produce on the Kafka listener (docs/kafka-protocol.md, "Produce and fetch"). The same checks and the
 * same append as the gRPC client API: {@link RequestChecks} for the request and each partition, then
 * {@link ReplicaManager#appendRecords} with acks 0, 1 or all. The records field is handed to the store as it
 * came off the wire, without decoding: the store validates the batches (CRC, counts, sizes, magic) and its
 * typed errors (CORRUPT_MESSAGE, INVALID_RECORD, MESSAGE_TOO_LARGE, ...) go back per partition, as do the
 * errors and offsets of idempotent appends ({@link ProduceResult}, unchanged).
 *
 * <p>Versions 3-13 (kafka-clients 4.4 sends 3 and up); version 13 names topics by id, resolved from the image
 * (UNKNOWN_TOPIC_ID when unknown). A non-null transactional_id fails every partition with
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED: transactions are not served. Stateless; safe for concurrent use.
 */
public final class ProduceApi extends AbstractKafkaApi {
    private static final Logger log = LoggerFactory.getLogger(ProduceApi.class);
    static final short MIN_VERSION = 3;
    static final short MAX_VERSION = 13;
    /** The first version that names topics by id rather than by name. */
    static final short TOPIC_ID_VERSION = 13;

    private final Supplier<MetadataImage> image;
    private final ReplicaManager replicaManager;

    public ProduceApi(Supplier<MetadataImage> image, ReplicaManager replicaManager) {
        super(ApiKeys.PRODUCE, MIN_VERSION, MAX_VERSION);
        this.image = Objects.requireNonNull(image, "image");
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
    }

    /** One partition of the request, with the topic name it resolved to (null when it did not). */
    private record Entry(TopicProduceData topic, String name, PartitionProduceData partition) {
    }

    @Override
    public CompletableFuture<ProduceResponseData> handle(KafkaRequest request) {
        ProduceRequestData data = request.body(ProduceRequestData.class);
        short version = request.version();
        MetadataImage current = image.get();
        List<Entry> entries = new ArrayList<>();
        for (TopicProduceData topic : data.topicData()) {
            String name = version >= TOPIC_ID_VERSION
                    ? TopicIds.topic(current, topic.topicId()).map(TopicImage::name).orElse(null) : topic.name();
            topic.partitionData().forEach(p -> entries.add(new Entry(topic, name, p)));
        }
        Set<TopicPartition> listedTwice = RequestChecks.listedTwice(entries.stream().filter(e -> e.name() != null).toList(),
                Entry::name, e -> e.partition().index());
        RequestChecks.Check requestCheck = data.transactionalId() != null
                ? new RequestChecks.Check(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                "transactional id '" + data.transactionalId() + "': transactions are not served")
                : RequestChecks.produceRequest(data.acks(), data.timeoutMs());

        // By position, not by content: two entries of a request may be equal (and are refused as listed twice).
        PartitionProduceResponse[] answers = new PartitionProduceResponse[entries.size()];
        Map<TopicPartition, MemoryRecords> toAppend = new LinkedHashMap<>();
        Map<TopicPartition, Integer> appended = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            RequestChecks.Check check = requestCheck;
            if (check.error() == Errors.NONE) {
                check = e.name() == null
                        ? new RequestChecks.Check(Errors.UNKNOWN_TOPIC_ID, "unknown topic id " + e.topic().topicId())
                        : RequestChecks.partition(current, e.name(), e.partition().index(), listedTwice);
            }
            if (check.error() != Errors.NONE) {
                answers[i] = error(e, check.error(), check.message(), current, version);
                continue;
            }
            TopicPartition tp = new TopicPartition(e.name(), e.partition().index());
            toAppend.put(tp, records(e.partition()));
            appended.put(tp, i);
        }
        if (toAppend.isEmpty()) {
            return CompletableFuture.completedFuture(data.acks() == 0 ? null : response(data, answers, version));
        }
        // The append reads the request's buffer before appendRecords returns (acks=all waits on the high
        // watermark only), so the listener may release the frame once handle() has returned.
        CompletableFuture<Map<TopicPartition, ProduceResult>> appending =
                replicaManager.appendRecords(toAppend, data.acks(), data.timeoutMs());
        if (data.acks() == 0) {
            // Kafka sends no response to acks=0, errors included; the records are written by now.
            return CompletableFuture.completedFuture(null);
        }
        return appending.handle((results, failure) -> {
            MetadataImage now = image.get();
            if (failure != null) {
                log.error("Produce failed", failure);
                appended.values().forEach(i -> answers[i] = error(entries.get(i), Errors.UNKNOWN_SERVER_ERROR,
                        String.valueOf(failure.getMessage()), now, version));
            } else {
                results.forEach((tp, r) -> answers[appended.get(tp)] = result(entries.get(appended.get(tp)), r, now, version));
            }
            return response(data, answers, version);
        });
    }

    /**
     * Our MemoryRecords over the request's own bytes: no copy, no decode. The leader writes offsets, epochs and
     * timestamps into them in place, which is harmless since the buffer belongs to this request alone.
     */
    private static MemoryRecords records(PartitionProduceData p) {
        if (p.records() instanceof org.apache.kafka.common.record.internal.MemoryRecords wire) {
            return MemoryRecords.readableRecords(wire.buffer());
        }
        // A null records field: nothing to append, which the store refuses as INVALID_RECORD like an empty one.
        return MemoryRecords.readableRecords(ByteBuffer.allocate(0));
    }

    /** The answers in the request's order: entries were listed topic by topic, partition by partition. */
    private static ProduceResponseData response(ProduceRequestData data, PartitionProduceResponse[] answers,
                                                short version) {
        ProduceResponseData out = new ProduceResponseData();
        int i = 0;
        for (TopicProduceData topic : data.topicData()) {
            TopicProduceResponse t = new TopicProduceResponse();
            if (version >= TOPIC_ID_VERSION) {
                t.setTopicId(topic.topicId());
            } else {
                t.setName(topic.name());
            }
            for (int n = 0; n < topic.partitionData().size(); n++) {
                t.partitionResponses().add(answers[i++]);
            }
            out.responses().add(t);
        }
        return out;
    }

    private static PartitionProduceResponse error(Entry e, Errors error, String message, MetadataImage image,
                                                  short version) {
        return partition(e, error, -1L, -1L, -1L, message, image, version);
    }

    private static PartitionProduceResponse result(Entry e, ProduceResult r, MetadataImage image, short version) {
        return partition(e, r.error(), r.baseOffset(), r.logAppendTimeMs(), r.logStartOffset(), r.message(), image,
                version);
    }

    private static PartitionProduceResponse partition(Entry e, Errors error, long baseOffset, long logAppendTimeMs,
                                                      long logStartOffset, String message, MetadataImage image,
                                                      short version) {
        PartitionProduceResponse p = new PartitionProduceResponse().setIndex(e.partition().index())
                .setErrorCode(error.code()).setBaseOffset(baseOffset).setLogAppendTimeMs(logAppendTimeMs);
        if (version >= 5) {
            p.setLogStartOffset(logStartOffset);
        }
        if (version >= 8 && error != Errors.NONE) {
            p.setErrorMessage(ErrorMessages.bounded(message));
        }
        // Kafka's hint (KIP-951): the producer retries against the new leader without a metadata round trip.
        if (version >= 10 && (error == Errors.NOT_LEADER_OR_FOLLOWER || error == Errors.FENCED_LEADER_EPOCH)) {
            TopicIds.Leader leader = TopicIds.leader(image, e.name(), e.partition().index());
            p.setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(leader.id()).setLeaderEpoch(leader.epoch()));
        }
        return p;
    }
}
