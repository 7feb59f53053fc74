package io.tideline.node.kafka.admin;

import io.tideline.common.TopicPartition;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.ErrorMessages;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.replication.server.Partition;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.producer.ProducerStateEntry;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeProducers v0 (AdminClient.describeProducers, kafka-transactions.sh describe-producers): the idempotent
 * producers a partition leader knows, from its log's producer state (docs/kafka-protocol.md "Idempotent
 * producers"). As in Kafka: a partition this broker hosts but does not lead, or does not host although the
 * metadata has it, answers NOT_LEADER_OR_FOLLOWER; one the metadata does not have, UNKNOWN_TOPIC_OR_PARTITION; one
 * whose log dir failed, KAFKA_STORAGE_ERROR. No transactions are served, so the coordinator epoch and the current
 * transaction's start offset are always -1.
 */
public final class DescribeProducersApi extends AbstractKafkaApi {
    private final Supplier<MetadataImage> image;
    private final ReplicaManager replicaManager;

    public DescribeProducersApi(Supplier<MetadataImage> image, ReplicaManager replicaManager) {
        super(ApiKeys.DESCRIBE_PRODUCERS, 0, 0);
        this.image = image;
        this.replicaManager = replicaManager;
    }

    @Override
    public CompletableFuture<DescribeProducersResponseData> handle(KafkaRequest request) {
        DescribeProducersRequestData body = request.body(DescribeProducersRequestData.class);
        MetadataImage current = image.get();
        DescribeProducersResponseData response = new DescribeProducersResponseData();
        for (DescribeProducersRequestData.TopicRequest topic : body.topics()) {
            TopicResponse topicResponse = new TopicResponse().setName(topic.name());
            for (int index : topic.partitionIndexes()) {
                topicResponse.partitions().add(describe(current, topic.name(), index));
            }
            response.topics().add(topicResponse);
        }
        return CompletableFuture.completedFuture(response);
    }

    private PartitionResponse describe(MetadataImage current, String topic, int index) {
        PartitionResponse answer = new PartitionResponse().setPartitionIndex(index);
        TopicPartition tp = new TopicPartition(topic, Math.max(0, index));
        if (index >= 0 && replicaManager.isOffline(tp)) {
            return error(answer, Errors.KAFKA_STORAGE_ERROR, "the log dir of " + tp + " is offline");
        }
        Optional<Partition> partition = index < 0 ? Optional.empty() : replicaManager.partition(tp);
        if (partition.isEmpty()) {
            Optional<TopicImage> known = current.topic(topic);
            boolean inMetadata = index >= 0 && known.isPresent() && known.get().partition(index) != null;
            return inMetadata
                    ? error(answer, Errors.NOT_LEADER_OR_FOLLOWER, "this broker does not host " + tp)
                    : error(answer, Errors.UNKNOWN_TOPIC_OR_PARTITION, "unknown partition " + topic + "-" + index);
        }
        if (!partition.get().isLeader()) {
            return error(answer, Errors.NOT_LEADER_OR_FOLLOWER, "this broker does not lead " + tp);
        }
        for (ProducerStateEntry entry : partition.get().log().activeProducers()) {
            answer.activeProducers().add(new ProducerState()
                    .setProducerId(entry.producerId())
                    .setProducerEpoch(entry.producerEpoch())
                    .setLastSequence(entry.lastSeq())
                    .setLastTimestamp(entry.lastTimestamp())
                    .setCoordinatorEpoch(-1)
                    .setCurrentTxnStartOffset(-1L));
        }
        return answer;
    }

    private static PartitionResponse error(PartitionResponse answer, Errors error, String message) {
        return answer.setErrorCode(error.code()).setErrorMessage(ErrorMessages.bounded(message));
    }
}
