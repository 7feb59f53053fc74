package io.tideline.node.kafka.data;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.service.RequestChecks;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.replication.server.LeaderAndIsr;
import io.tideline.replication.server.Partition;
import io.tideline.replication.server.ReplicaManager;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Kafka's OffsetForLeaderEpoch for consumers on the Kafka listener: where the asked epoch ends in the leader's
 * log, from its leader epoch cache (the largest epoch at or below the one asked, and the offset past its last
 * record: the log end offset for the latest epoch; -1/-1 when the log has no epoch that old). A consumer uses
 * it after a leader change to detect that its position was truncated away (KIP-320).
 *
 * <p>As Kafka: only the leader answers (NOT_LEADER_OR_FOLLOWER elsewhere); current_leader_epoch below the
 * leader's is FENCED_LEADER_EPOCH, above it UNKNOWN_LEADER_EPOCH. Versions 2-4. Stateless; safe for
 * concurrent use.
 */
public final class OffsetForLeaderEpochApi extends AbstractKafkaApi {
    static final short MIN_VERSION = 2;
    static final short MAX_VERSION = 4;

    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final ReplicaManager replicaManager;

    public OffsetForLeaderEpochApi(int brokerId, Supplier<MetadataImage> image, ReplicaManager replicaManager) {
        super(ApiKeys.OFFSET_FOR_LEADER_EPOCH, MIN_VERSION, MAX_VERSION);
        this.brokerId = brokerId;
        this.image = Objects.requireNonNull(image, "image");
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
    }

    @Override
    public CompletableFuture<OffsetForLeaderEpochResponseData> handle(KafkaRequest request) {
        OffsetForLeaderEpochRequestData data = request.body(OffsetForLeaderEpochRequestData.class);
        MetadataImage current = image.get();
        OffsetForLeaderEpochResponseData out = new OffsetForLeaderEpochResponseData();
        for (OffsetForLeaderTopic topic : data.topics()) {
            OffsetForLeaderTopicResult t = new OffsetForLeaderTopicResult().setTopic(topic.topic());
            for (OffsetForLeaderPartition p : topic.partitions()) {
                t.partitions().add(endOffset(current, topic.topic(), p));
            }
            out.topics().add(t);
        }
        return CompletableFuture.completedFuture(out);
    }

    private EpochEndOffset endOffset(MetadataImage current, String topic, OffsetForLeaderPartition p) {
        EpochEndOffset out = new EpochEndOffset().setPartition(p.partition()).setLeaderEpoch(-1).setEndOffset(-1L);
        // A read: asking twice for a partition is harmless, so it is answered twice.
        RequestChecks.Check check = RequestChecks.partition(current, topic, p.partition(), Set.of());
        if (check.error() != Errors.NONE) {
            return out.setErrorCode(check.error().code());
        }
        TopicPartition tp = new TopicPartition(topic, p.partition());
        Optional<Partition> partition = replicaManager.partition(tp);
        if (partition.isEmpty() && replicaManager.isOffline(tp)) {
            return out.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
        }
        if (partition.isEmpty() || !partition.get().isLeader()) {
            return out.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
        }
        int leaderEpoch = partition.get().metadata().map(LeaderAndIsr::leaderEpoch).orElse(-1);
        if (p.currentLeaderEpoch() >= 0 && p.currentLeaderEpoch() != leaderEpoch) {
            return out.setErrorCode((p.currentLeaderEpoch() < leaderEpoch ? Errors.FENCED_LEADER_EPOCH
                    : Errors.UNKNOWN_LEADER_EPOCH).code());
        }
        io.tideline.store.epoch.EpochEndOffset end = partition.get().log().endOffsetForEpoch(p.leaderEpoch());
        return out.setErrorCode(Errors.NONE.code()).setLeaderEpoch(end.epoch()).setEndOffset(end.endOffset());
    }
}
