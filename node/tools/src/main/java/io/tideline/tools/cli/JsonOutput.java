package io.tideline.tools.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import io.tideline.client.DeleteRecordsResult;
import io.tideline.client.ElectionResult;
import io.tideline.client.ElectionType;
import io.tideline.client.TopicDescription;
import io.tideline.client.TopicDescription.PartitionDescription;
import io.tideline.client.TopicResult;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code --output json} shapes of the admin commands: one JSON document on one line of stdout.
 * The records below are the schema; fields keep their names and order, new fields may be added at the
 * end, none is removed or renamed. {@code error} is an error name of {@code io.tideline.common.errors.Errors}
 * ({@code "NONE"} on success) and {@code message} is empty on success. docs/cli.md shows each shape.
 */
final class JsonOutput {
    /** Nulls are written (a stable set of fields), HTML characters are not escaped (topic names, messages). */
    private static final Gson GSON = new GsonBuilder().serializeNulls().disableHtmlEscaping().create();

    private JsonOutput() {
    }

    static String write(Object document) {
        return GSON.toJson(document);
    }

    /** {@code topics --list}. */
    record TopicList(List<String> topics) {
    }

    /** {@code configs --describe}: each topic's overrides. */
    record DescribedConfigs(List<TopicConfigs> topics) {
    }

    record TopicConfigs(String name, Map<String, String> configs) {
    }

    /**
     * {@code configs --describe --entity-type brokers}: per broker ({@code name} its id, {@code ""} for the
     * cluster-wide default) the configs shown, each with its synonyms, highest precedence first.
     */
    record DescribedBrokerConfigs(List<BrokerConfigs> brokers) {
    }

    record BrokerConfigs(String name, List<BrokerConfig> configs) {
        static BrokerConfigs of(String name, List<io.tideline.client.ConfigEntry> entries) {
            return new BrokerConfigs(name, entries.stream().map(e -> new BrokerConfig(e.name(), e.value(),
                    e.source().name(), false, e.synonyms().stream().map(s -> new BrokerConfigSynonym(s.name(), s.value(),
                    s.source().name())).toList())).toList());
        }
    }

    /** {@code value} is null when no source sets the key (only with {@code --all}). */
    record BrokerConfig(String name, String value, String source, boolean sensitive, List<BrokerConfigSynonym> synonyms) {
    }

    record BrokerConfigSynonym(String name, String value, String source) {
    }

    /** {@code leader-election}: each partition's answer, NONE and ELECTION_NOT_NEEDED being successes. */
    record Election(String electionType, List<ElectedPartition> partitions) {
        static Election of(ElectionType type, List<ElectionResult> results) {
            return new Election(type.name(), results.stream().map(r -> new ElectedPartition(r.partition().topic(),
                    r.partition().partition(), r.error().name(), r.message() == null ? "" : r.message())).toList());
        }
    }

    record ElectedPartition(String topic, int partition, String error, String message) {
    }

    /** {@code topics --create} and {@code topics --delete}: the topic and the cluster's answer. */
    record TopicOutcome(String name, String error, String message) {
        static TopicOutcome of(TopicResult r) {
            return new TopicOutcome(r.name(), r.error().name(), r.message() == null ? "" : r.message());
        }
    }

    /** {@code topics --describe}. */
    record Described(List<Topic> topics) {
    }

    record Topic(String name, String topicId, String error, String message, int partitionCount,
                 int replicationFactor, int minInsyncReplicas, Map<String, String> configs, List<Partition> partitions) {
        static Topic of(TopicDescription t, List<PartitionDescription> shown) {
            return new Topic(t.name(), t.topicId(), t.error().name(), t.message() == null ? "" : t.message(),
                    t.partitions().size(), TopicsOutput.replicationFactor(t), t.minInsyncReplicas(),
                    new TreeMap<>(t.configs()), shown.stream().map(p -> Partition.of(t, p)).toList());
        }
    }

    /** {@code leader} is -1 when the partition has none (offline). */
    record Partition(int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                     List<Integer> offlineReplicas, List<FailedReplica> failedReplicas, boolean underReplicated,
                     boolean underMinIsr, boolean unavailable, String error) {
        static Partition of(TopicDescription t, PartitionDescription p) {
            return new Partition(p.partition(), p.leader(), p.leaderEpoch(), p.replicas(), p.isr(),
                    p.offlineReplicas(), p.failedReplicas().stream()
                    .map(f -> new FailedReplica(f.brokerId(), f.reason(), f.sinceMs())).toList(),
                    p.isUnderReplicated(), t.isUnderMinIsr(p), p.isUnavailable(), p.error().name());
        }
    }

    record FailedReplica(int brokerId, String reason, long sinceMs) {
    }

    /** {@code delete-records}: one entry per partition of the offset file, in file order. */
    record DeletedRecords(List<DeletedPartition> partitions) {
    }

    /** {@code lowWatermark} is -1 on error (or the watermark reached so far with REQUEST_TIMED_OUT). */
    record DeletedPartition(String topic, int partition, long offset, long lowWatermark, String error,
                            String message) {
        static DeletedPartition of(DeleteRecordsResult r, long requested) {
            return new DeletedPartition(r.partition().topic(), r.partition().partition(), requested,
                    r.lowWatermark(), r.error().name(), r.message() == null ? "" : r.message());
        }
    }
}
