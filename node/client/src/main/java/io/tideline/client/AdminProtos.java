package io.tideline.client;

import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.Assignment;
import io.tideline.proto.admin.ConfigValue;
import io.tideline.proto.admin.FailedReplicaInfo;
import io.tideline.proto.admin.PartitionDescription;
import io.tideline.proto.client.BrokerMetadata;
import io.tideline.proto.client.MetadataResponse;
import io.tideline.proto.client.PartitionMetadata;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Translation between the admin API's messages and the client's result types. */
final class AdminProtos {
    private AdminProtos() {
    }

    static io.tideline.proto.admin.NewTopic toProto(NewTopic topic) {
        io.tideline.proto.admin.NewTopic.Builder b = io.tideline.proto.admin.NewTopic.newBuilder()
                .setName(topic.name())
                .setNumPartitions(topic.numPartitions())
                .setReplicationFactor(topic.replicationFactor());
        new TreeMap<>(topic.configs()).forEach((k, v) -> b.addConfigs(ConfigValue.newBuilder().setKey(k).setValue(v)));
        topic.assignments().forEach((p, replicas) -> b.addAssignments(
                Assignment.newBuilder().setPartition(p).addAllReplicas(replicas)));
        return b.build();
    }

    static TopicResult fromProto(io.tideline.proto.admin.TopicResult r) {
        Errors error = Errors.forCode(r.getErrorCode());
        return new TopicResult(r.getName(), error, message(error, r.getErrorMessage()));
    }

    static TopicDescription fromProto(io.tideline.proto.admin.TopicDescription t) {
        Errors error = Errors.forCode(t.getErrorCode());
        Map<String, String> configs = new LinkedHashMap<>();
        t.getConfigsList().forEach(c -> configs.put(c.getKey(), c.getValue()));
        List<TopicDescription.PartitionDescription> partitions = new ArrayList<>();
        for (PartitionDescription p : t.getPartitionsList()) {
            PartitionMetadata m = p.getMetadata();
            List<TopicDescription.FailedReplica> failed = new ArrayList<>();
            for (FailedReplicaInfo f : p.getFailedReplicasList()) {
                failed.add(new TopicDescription.FailedReplica(f.getBrokerId(), f.getReason(), f.getSinceMs()));
            }
            partitions.add(new TopicDescription.PartitionDescription(m.getPartition(), Errors.forCode(m.getErrorCode()),
                    m.getLeaderId(), m.getLeaderEpoch(), List.copyOf(m.getReplicasList()), List.copyOf(m.getIsrList()),
                    List.copyOf(m.getOfflineReplicasList()), List.copyOf(p.getAddingReplicasList()),
                    List.copyOf(p.getRemovingReplicasList()), List.copyOf(failed)));
        }
        return new TopicDescription(t.getName(), t.getTopicId(), error, message(error, t.getErrorMessage()),
                Map.copyOf(configs), List.copyOf(partitions), t.getMinInsyncReplicas());
    }

    static ClusterDescription fromProto(MetadataResponse response) {
        List<ClusterDescription.Broker> brokers = new ArrayList<>();
        for (BrokerMetadata b : response.getBrokersList()) {
            brokers.add(new ClusterDescription.Broker(b.getId(), b.getHost(), b.getPort(), b.getRack(), b.getFenced()));
        }
        brokers.sort((a, b) -> Integer.compare(a.id(), b.id()));
        return new ClusterDescription(response.getClusterId(), response.getControllerId(), List.copyOf(brokers));
    }

    /** The broker's message, or the error's default one; empty for NONE. */
    static String message(Errors error, String message) {
        if (error == Errors.NONE) {
            return "";
        }
        return message == null || message.isEmpty() ? error.defaultMessage() : message;
    }
}
