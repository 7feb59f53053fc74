package io.tideline.node.controller;

import io.tideline.common.config.ConfigException;
import io.tideline.common.errors.Errors;
import io.tideline.node.config.DynamicBrokerConfigs;
import io.tideline.node.config.TopicConfigs;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.AlterConfigs;
import io.tideline.proto.metadata.ConfigEntry;
import io.tideline.proto.metadata.ConfigRecord;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.CreatePartitions;
import io.tideline.proto.metadata.CreatePartitionsItem;
import io.tideline.proto.metadata.CreateTopics;
import io.tideline.proto.metadata.DeleteTopics;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.MetadataRecord;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.RemoveTopicRecord;
import io.tideline.proto.metadata.ReplicaAssignment;
import io.tideline.proto.metadata.TopicRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Topic creation, deletion and config changes. Each topic of a request succeeds or fails on its own. */
final class TopicHandlers {
    private final int maxPartitions;

    TopicHandlers(ControllerSettings settings) {
        this.maxPartitions = settings.maxPartitions();
    }

    /**
     * Whether {@code topic} may get a leader from outside its ISR: the topic's own value, else the cluster-wide
     * dynamic default in the image, else the static one. Both come from the image or the settings every voter
     * shares, so every voter decides alike (docs/behaviours.md B58).
     */
    static boolean uncleanElection(MetadataImage image, TopicImage topic, ControllerSettings settings) {
        String key = TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG;
        String value = topic.configs().get(key);
        if (value == null) {
            value = image.brokerConfigs(DynamicBrokerConfigs.CLUSTER_DEFAULT).get(key);
        }
        return value == null ? settings.uncleanLeaderElectionEnable() : Boolean.parseBoolean(value);
    }

    ControllerResult create(MetadataImage image, CreateTopics cmd, long offset) {
        ControllerResponse.Builder response = ControllerResponse.newBuilder();
        List<MetadataRecord> records = new ArrayList<>();
        // The metric names of the existing topics, built once: a lookup per topic keeps a request's work linear
        // in its size plus the cluster's, not in their product (docs/behaviours.md B104).
        Map<String, String> metricNames = new HashMap<>();
        image.topics().keySet().forEach(name -> metricNames.putIfAbsent(TopicNames.metricName(name), name));
        Set<String> createdInThisRequest = new HashSet<>();
        long[] clusterPartitions = {image.partitionCount()};
        for (CreatableTopic topic : cmd.getTopicsList()) {
            ItemResult.Builder item = ItemResult.newBuilder().setName(topic.getName());
            List<MetadataRecord> topicRecords = new ArrayList<>();
            Errors error = createOne(image, topic, offset, metricNames, createdInThisRequest, clusterPartitions,
                    topicRecords, item);
            item.setErrorCode(error.code());
            if (error == Errors.NONE) {
                createdInThisRequest.add(TopicNames.metricName(topic.getName()));
                if (!cmd.getValidateOnly()) {
                    records.addAll(topicRecords);
                }
            }
            response.addResults(item);
        }
        return ControllerResult.of(response.build(), records);
    }

    private Errors createOne(MetadataImage image, CreatableTopic topic, long offset, Map<String, String> metricNames,
                             Set<String> alsoTaken, long[] clusterPartitions, List<MetadataRecord> records,
                             ItemResult.Builder item) {
        String invalid = TopicNames.invalidReason(topic.getName());
        if (invalid != null) {
            item.setErrorMessage(invalid);
            return Errors.INVALID_TOPIC_EXCEPTION;
        }
        if (image.topics().containsKey(topic.getName())) {
            item.setErrorMessage("topic '" + topic.getName() + "' already exists");
            return Errors.TOPIC_ALREADY_EXISTS;
        }
        String metricName = TopicNames.metricName(topic.getName());
        String existing = metricNames.get(metricName);
        if (existing != null) {
            item.setErrorMessage("topic '" + topic.getName() + "' collides with existing topic '" + existing
                    + "' ('.' and '_' are the same in metric names)");
            return Errors.INVALID_TOPIC_EXCEPTION;
        }
        if (alsoTaken.contains(metricName)) {
            item.setErrorMessage("topic '" + topic.getName() + "' collides with another topic of this request");
            return Errors.INVALID_TOPIC_EXCEPTION;
        }
        Map<String, String> configs = new TreeMap<>();
        for (ConfigEntry e : topic.getConfigsList()) {
            configs.put(e.getKey(), e.getValue());
        }
        try {
            TopicConfigs.validate(configs);
        } catch (ConfigException e) {
            item.setErrorMessage(e.getMessage());
            return Errors.INVALID_CONFIG;
        }
        int newPartitions = topic.getAssignmentsCount() > 0 ? topic.getAssignmentsCount() : topic.getNumPartitions();
        if (newPartitions > 0 && clusterPartitions[0] + newPartitions > maxPartitions) {
            item.setErrorMessage(clusterFull(clusterPartitions[0], newPartitions));
            return Errors.POLICY_VIOLATION;
        }
        List<List<Integer>> assignment = new ArrayList<>();
        Errors error = assignment(image, topic, offset, assignment, item);
        if (error != Errors.NONE) {
            return error;
        }
        String minIsr = minIsrAboveReplicas(configs, assignment.stream().mapToInt(List::size).min().orElse(0));
        if (minIsr != null) {
            item.setErrorMessage(minIsr);
            return Errors.INVALID_CONFIG;
        }
        clusterPartitions[0] += assignment.size();
        String topicId = TopicNames.topicId(topic.getName(), offset);
        item.setTopicId(topicId);
        records.add(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder()
                .setName(topic.getName()).setTopicId(topicId)).build());
        if (!configs.isEmpty()) {
            records.add(configRecord(topicId, configs));
        }
        for (int p = 0; p < assignment.size(); p++) {
            records.add(partitionRecord(image, topicId, p, assignment.get(p)));
        }
        return Errors.NONE;
    }

    private static Errors assignment(MetadataImage image, CreatableTopic topic, long offset, List<List<Integer>> out,
                                     ItemResult.Builder item) {
        if (topic.getAssignmentsCount() > 0) {
            if (topic.getNumPartitions() != -1 || topic.getReplicationFactor() != -1) {
                item.setErrorMessage("with explicit assignments, partitions and replication factor must be -1");
                return Errors.INVALID_REQUEST;
            }
            TreeMap<Integer, List<Integer>> byPartition = new TreeMap<>();
            for (ReplicaAssignment a : topic.getAssignmentsList()) {
                if (byPartition.put(a.getPartition(), a.getReplicasList()) != null) {
                    item.setErrorMessage("partition " + a.getPartition() + " is assigned twice");
                    return Errors.INVALID_REPLICA_ASSIGNMENT;
                }
                if (a.getReplicasCount() == 0 || a.getReplicasCount() > image.brokers().size()
                        || new HashSet<>(a.getReplicasList()).size() != a.getReplicasCount()) {
                    item.setErrorMessage("partition " + a.getPartition() + " needs distinct replicas, got " + a.getReplicasList());
                    return Errors.INVALID_REPLICA_ASSIGNMENT;
                }
                for (int broker : a.getReplicasList()) {
                    if (!image.brokers().containsKey(broker)) {
                        item.setErrorMessage("partition " + a.getPartition() + " names broker " + broker + ", which is not registered");
                        return Errors.INVALID_REPLICA_ASSIGNMENT;
                    }
                }
            }
            if (byPartition.firstKey() != 0 || byPartition.lastKey() != byPartition.size() - 1) {
                item.setErrorMessage("assigned partitions must be 0.." + (byPartition.size() - 1) + ", got " + byPartition.keySet());
                return Errors.INVALID_REPLICA_ASSIGNMENT;
            }
            out.addAll(byPartition.values());
            return Errors.NONE;
        }
        if (topic.getNumPartitions() < 1) {
            item.setErrorMessage("the number of partitions must be at least 1, got " + topic.getNumPartitions());
            return Errors.INVALID_PARTITIONS;
        }
        if (topic.getReplicationFactor() < 1) {
            item.setErrorMessage("the replication factor must be at least 1, got " + topic.getReplicationFactor());
            return Errors.INVALID_REPLICATION_FACTOR;
        }
        List<Integer> brokers = ReplicaPlacer.placementOrder(image);
        if (topic.getReplicationFactor() > brokers.size()) {
            item.setErrorMessage("replication factor " + topic.getReplicationFactor() + " is larger than the "
                    + brokers.size() + " available brokers");
            return Errors.INVALID_REPLICATION_FACTOR;
        }
        out.addAll(ReplicaPlacer.place(brokers, topic.getNumPartitions(), topic.getReplicationFactor(), offset));
        return Errors.NONE;
    }

    ControllerResult delete(MetadataImage image, DeleteTopics cmd) {
        ControllerResponse.Builder response = ControllerResponse.newBuilder();
        List<MetadataRecord> records = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String name : cmd.getNamesList()) {
            ItemResult.Builder item = ItemResult.newBuilder().setName(name);
            TopicImage t = image.topics().get(name);
            if (t == null || !seen.add(name)) {
                item.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage("no topic '" + name + "'");
            } else {
                item.setErrorCode(Errors.NONE.code()).setTopicId(t.id());
                records.add(MetadataRecord.newBuilder().setRemoveTopic(RemoveTopicRecord.newBuilder().setTopicId(t.id())).build());
            }
            response.addResults(item);
        }
        return ControllerResult.of(response.build(), records);
    }

    /**
     * Raises partition counts, as Kafka's CreatePartitions: the new partitions get the replica count of
     * the topic's partition 0, placed as at create over the unfenced brokers, leader their first ISR
     * replica. A count that is not higher than today's is INVALID_PARTITIONS (partitions are never
     * removed: keys would map elsewhere and records would be lost).
     */
    ControllerResult createPartitions(MetadataImage image, CreatePartitions cmd, long offset) {
        ControllerResponse.Builder response = ControllerResponse.newBuilder();
        List<MetadataRecord> records = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        long requested = 0;
        for (CreatePartitionsItem item : cmd.getTopicsList()) {
            TopicImage t = image.topics().get(item.getName());
            if (t != null) {
                requested += Math.max(0, (long) item.getTotalCount() - t.partitions().size());
            }
        }
        // Kafka refuses the whole request when it adds too many partitions; nothing is placed before this.
        if (requested > CommandChecks.MAX_PARTITIONS_PER_REQUEST) {
            return CommandChecks.tooManyPartitions(requested).result();
        }
        long clusterPartitions = image.partitionCount();
        for (CreatePartitionsItem item : cmd.getTopicsList()) {
            ItemResult.Builder result = ItemResult.newBuilder().setName(item.getName());
            TopicImage t = image.topics().get(item.getName());
            Errors error = Errors.NONE;
            if (t == null || !seen.add(item.getName())) {
                error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                result.setErrorMessage(t == null ? "no topic '" + item.getName() + "'" : "topic listed twice");
            } else if (item.getTotalCount() <= t.partitions().size()) {
                error = Errors.INVALID_PARTITIONS;
                result.setErrorMessage("topic '" + item.getName() + "' has " + t.partitions().size()
                        + " partitions, which is not fewer than the requested " + item.getTotalCount());
            } else if (clusterPartitions + item.getTotalCount() - t.partitions().size() > maxPartitions) {
                error = Errors.POLICY_VIOLATION;
                result.setErrorMessage(clusterFull(clusterPartitions, item.getTotalCount() - t.partitions().size()));
            } else {
                int replicationFactor = t.partitions().get(0).getReplicasCount();
                List<Integer> brokers = ReplicaPlacer.placementOrder(image);
                if (replicationFactor > brokers.size()) {
                    error = Errors.INVALID_REPLICATION_FACTOR;
                    result.setErrorMessage("replication factor " + replicationFactor + " is larger than the "
                            + brokers.size() + " available brokers");
                } else {
                    int first = t.partitions().size();
                    List<List<Integer>> placed = ReplicaPlacer.place(brokers, item.getTotalCount() - first,
                            replicationFactor, offset + first);
                    for (int i = 0; i < placed.size(); i++) {
                        records.add(partitionRecord(image, t.id(), first + i, placed.get(i)));
                    }
                    clusterPartitions += placed.size();
                    result.setTopicId(t.id());
                }
            }
            response.addResults(result.setErrorCode(error.code()));
        }
        return ControllerResult.of(response.build(), records);
    }

    private String clusterFull(long partitions, long adding) {
        return "the cluster has " + partitions + " partitions; " + adding + " more would pass max.partitions ("
                + maxPartitions + ")";
    }

    /** A new partition: ISR the unfenced replicas (all of them when none is), epochs 0. */
    private static MetadataRecord partitionRecord(MetadataImage image, String topicId, int partition,
                                                  List<Integer> replicas) {
        List<Integer> isr = new ArrayList<>();
        for (int r : replicas) {
            if (image.isBrokerUnfenced(r)) {
                isr.add(r);
            }
        }
        int leader = LeaderElection.cleanLeader(image, replicas, isr, Set.of());
        return MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder()
                .setTopicId(topicId).setPartition(partition).addAllReplicas(replicas)
                .addAllIsr(isr.isEmpty() ? replicas : isr).setLeader(leader)
                .setLeaderEpoch(0).setPartitionEpoch(0)).build();
    }

    ControllerResult alterConfigs(MetadataImage image, AlterConfigs cmd) {
        TopicImage t = image.topics().get(cmd.getTopic());
        if (t == null) {
            return ControllerResult.error(Errors.UNKNOWN_TOPIC_OR_PARTITION, "no topic '" + cmd.getTopic() + "'");
        }
        TreeMap<String, String> configs = new TreeMap<>(t.configs());
        for (ConfigEntry e : cmd.getSetList()) {
            configs.put(e.getKey(), e.getValue());
        }
        for (String key : cmd.getDeleteList()) {
            configs.remove(key);
        }
        try {
            TopicConfigs.validate(configs);
        } catch (ConfigException e) {
            return ControllerResult.error(Errors.INVALID_CONFIG, e.getMessage());
        }
        String minIsr = minIsrAboveReplicas(configs,
                t.partitions().values().stream().mapToInt(PartitionRecord::getReplicasCount).min().orElse(0));
        if (minIsr != null) {
            return ControllerResult.error(Errors.INVALID_CONFIG, minIsr);
        }
        if (configs.equals(t.configs())) {
            return ControllerResult.of(ControllerResponse.getDefaultInstance(), List.of());
        }
        return ControllerResult.of(ControllerResponse.getDefaultInstance(), List.of(configRecord(t.id(), configs)));
    }

    /**
     * A topic whose min.insync.replicas is above a partition's replica count can never take an acks=all
     * produce: the producer would wait out its delivery timeout on every record. Refused up front, at
     * create and at alter. Only a value the topic sets is checked; the brokers' default is not known here.
     *
     * @return the error message, or null when the value fits
     */
    private static String minIsrAboveReplicas(Map<String, String> configs, int fewestReplicas) {
        // 0 when the topic sets none: the brokers' default is not known here.
        int minIsr = TopicConfigs.minInsyncReplicas(configs, 0);
        return fewestReplicas == 0 || minIsr <= fewestReplicas ? null : TopicConfigs.MIN_IN_SYNC_REPLICAS_CONFIG + " " + minIsr
                + " is larger than the replication factor " + fewestReplicas
                + ": acks=all produces could never be acknowledged";
    }

    private static MetadataRecord configRecord(String topicId, Map<String, String> configs) {
        ConfigRecord.Builder b = ConfigRecord.newBuilder().setTopicId(topicId);
        new TreeMap<>(configs).forEach((k, v) -> b.addEntries(ConfigEntry.newBuilder().setKey(k).setValue(v)));
        return MetadataRecord.newBuilder().setConfig(b).build();
    }
}
