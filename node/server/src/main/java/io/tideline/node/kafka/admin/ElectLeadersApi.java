package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.ErrorMessages;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.service.LeaderElections;
import io.tideline.node.service.PartitionRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ElectLeadersRequestData.TopicPartitions;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData.PartitionResult;
import org.apache.kafka.common.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's ElectLeaders (v0-2) over {@link LeaderElections#electLeaders}, which the controller runs: v0 is
 * always PREFERRED, v1+ carries the type (0 PREFERRED, 1 UNCLEAN; another is INVALID_REQUEST); null topic
 * partitions is every partition. A failure of the whole request is the top-level error (v1+) and, for
 * v0, which has none, every named partition's.
 */
final class ElectLeadersApi extends AbstractKafkaApi {
    private final AdminDeps deps;

    ElectLeadersApi(AdminDeps deps) {
        super(ApiKeys.ELECT_LEADERS, 0, 2);
        this.deps = deps;
    }

    @Override
    public CompletableFuture<ElectLeadersResponseData> handle(KafkaRequest request) {
        ElectLeadersRequestData data = request.body(ElectLeadersRequestData.class);
        int electionType = request.version() == 0 ? LeaderElections.PREFERRED : data.electionType();
        List<PartitionRef> sent = new ArrayList<>();
        if (data.topicPartitions() != null) {
            for (TopicPartitions t : data.topicPartitions()) {
                t.partitions().forEach(p -> sent.add(new PartitionRef(t.topic(), p)));
            }
            // The service reads "no partitions" as "all"; Kafka's non-null empty list asks for none.
            if (sent.isEmpty()) {
                return CompletableFuture.completedFuture(new ElectLeadersResponseData());
            }
        }
        return Answers.call(() -> deps.services().elections().electLeaders(sent, electionType)).handle((r, e) -> {
            ElectLeadersResponseData out = new ElectLeadersResponseData();
            if (e != null || r.error().isError()) {
                short code = e != null ? Errors.UNKNOWN_SERVER_ERROR.code() : Answers.code(r.error().code());
                String message = e != null ? Answers.message(e) : Answers.messageOrDefault(r.error().code(),
                        r.error().message());
                out.setErrorCode(code);
                Map<String, ReplicaElectionResult> topics = new LinkedHashMap<>();
                for (PartitionRef p : sent) {
                    add(topics, p.topic(), new PartitionResult().setPartitionId(p.partition()).setErrorCode(code)
                            .setErrorMessage(ErrorMessages.bounded(message)));
                }
                return out.setReplicaElectionResults(new ArrayList<>(topics.values()));
            }
            Map<String, ReplicaElectionResult> topics = new LinkedHashMap<>();
            for (LeaderElections.PartitionOutcome x : r.results()) {
                add(topics, x.topic(), new PartitionResult().setPartitionId(x.partition())
                        .setErrorCode(Answers.code(x.error().code()))
                        .setErrorMessage(Answers.messageOrDefault(x.error().code(), x.error().message())));
            }
            return out.setReplicaElectionResults(new ArrayList<>(topics.values()));
        });
    }

    private static void add(Map<String, ReplicaElectionResult> topics, String topic, PartitionResult result) {
        topics.computeIfAbsent(topic, n -> new ReplicaElectionResult().setTopic(n).setPartitionResult(new ArrayList<>()))
                .partitionResult().add(result);
    }
}
