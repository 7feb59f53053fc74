package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.ErrorMessages;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.proto.admin.ElectLeadersPartition;
import io.tideline.proto.admin.ElectLeadersRequest;
import io.tideline.proto.admin.ElectLeadersResponse;
import io.tideline.proto.admin.ElectLeadersResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * Kafka's ElectLeaders (v0-2) over the gRPC admin service's ElectLeaders, which the controller runs: v0 is
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
        ElectLeadersRequest.Builder grpc = ElectLeadersRequest.newBuilder()
                .setElectionType(request.version() == 0 ? 0 : data.electionType());
        if (data.topicPartitions() != null) {
            for (TopicPartitions t : data.topicPartitions()) {
                t.partitions().forEach(p -> grpc.addPartitions(ElectLeadersPartition.newBuilder().setTopic(t.topic())
                        .setPartition(p)));
            }
            // The gRPC call reads "no partitions" as "all"; Kafka's non-null empty list asks for none.
            if (grpc.getPartitionsCount() == 0) {
                return CompletableFuture.completedFuture(new ElectLeadersResponseData());
            }
        }
        ElectLeadersRequest sent = grpc.build();
        return GrpcCall.call(deps.admin()::electLeaders, sent).handle((r, e) -> {
            ElectLeadersResponseData out = new ElectLeadersResponseData();
            if (e != null || r.getErrorCode() != 0) {
                short code = e != null ? Errors.UNKNOWN_SERVER_ERROR.code() : Answers.code(r.getErrorCode());
                String message = e != null ? Answers.message(e) : Answers.messageOrDefault(r.getErrorCode(),
                        r.getErrorMessage());
                out.setErrorCode(code);
                Map<String, ReplicaElectionResult> topics = new LinkedHashMap<>();
                for (ElectLeadersPartition p : sent.getPartitionsList()) {
                    add(topics, p.getTopic(), new PartitionResult().setPartitionId(p.getPartition()).setErrorCode(code)
                            .setErrorMessage(ErrorMessages.bounded(message)));
                }
                return out.setReplicaElectionResults(new ArrayList<>(topics.values()));
            }
            Map<String, ReplicaElectionResult> topics = new LinkedHashMap<>();
            for (ElectLeadersResult x : r.getResultsList()) {
                add(topics, x.getTopic(), new PartitionResult().setPartitionId(x.getPartition())
                        .setErrorCode(Answers.code(x.getErrorCode()))
                        .setErrorMessage(Answers.messageOrDefault(x.getErrorCode(), x.getErrorMessage())));
            }
            return out.setReplicaElectionResults(new ArrayList<>(topics.values()));
        });
    }

    private static void add(Map<String, ReplicaElectionResult> topics, String topic, PartitionResult result) {
        topics.computeIfAbsent(topic, n -> new ReplicaElectionResult().setTopic(n).setPartitionResult(new ArrayList<>()))
                .partitionResult().add(result);
    }
}
