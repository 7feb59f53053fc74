package io.tideline.node.kafka.admin;

import io.tideline.common.config.ConfigDef;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.config.DynamicBrokerConfigs;
import io.tideline.node.config.TopicConfigs;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.replication.ReplicationConfig;
import io.tideline.store.config.LogConfig;
import io.tideline.store.config.StoreConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;

/**
 * A topic's every config key as Kafka's DescribeConfigs shows it: the topic's override (TOPIC_CONFIG), else
 * the value this broker gives topics without one, with the source of that value (a dynamic broker config,
 * the cluster-wide dynamic default, the static file, or the built-in default) and the broker keys it comes
 * from as synonyms, highest precedence first. The broker side is this broker's {@link BrokerConfigResolver}
 * over the image's dynamic broker configs, the values its logs run with. Stateless; thread-safe.
 */
final class TopicConfigView {
    /** Kafka's broker key for each topic key that has one (Kafka's LogConfig synonyms). */
    private static final Map<String, String> BROKER_KEY = Map.ofEntries(
            Map.entry(LogConfig.SEGMENT_BYTES_CONFIG, StoreConfig.LOG_SEGMENT_BYTES_CONFIG),
            Map.entry(LogConfig.SEGMENT_MS_CONFIG, StoreConfig.LOG_ROLL_MS_CONFIG),
            Map.entry(LogConfig.SEGMENT_JITTER_MS_CONFIG, StoreConfig.LOG_ROLL_JITTER_MS_CONFIG),
            Map.entry(LogConfig.SEGMENT_INDEX_BYTES_CONFIG, StoreConfig.LOG_INDEX_SIZE_MAX_BYTES_CONFIG),
            Map.entry(LogConfig.INDEX_INTERVAL_BYTES_CONFIG, StoreConfig.LOG_INDEX_INTERVAL_BYTES_CONFIG),
            Map.entry(LogConfig.RETENTION_MS_CONFIG, StoreConfig.LOG_RETENTION_MS_CONFIG),
            Map.entry(LogConfig.RETENTION_BYTES_CONFIG, StoreConfig.LOG_RETENTION_BYTES_CONFIG),
            Map.entry(LogConfig.FILE_DELETE_DELAY_MS_CONFIG, StoreConfig.LOG_SEGMENT_DELETE_DELAY_MS_CONFIG),
            Map.entry(LogConfig.MAX_MESSAGE_BYTES_CONFIG, StoreConfig.MESSAGE_MAX_BYTES_CONFIG),
            Map.entry(LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, StoreConfig.LOG_MESSAGE_TIMESTAMP_TYPE_CONFIG),
            Map.entry(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, StoreConfig.LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG),
            Map.entry(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, StoreConfig.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG),
            Map.entry(LogConfig.FLUSH_MESSAGES_CONFIG, StoreConfig.LOG_FLUSH_INTERVAL_MESSAGES_CONFIG),
            Map.entry(LogConfig.FLUSH_MS_CONFIG, StoreConfig.LOG_FLUSH_INTERVAL_MS_CONFIG),
            Map.entry(LogConfig.CLEANUP_POLICY_CONFIG, StoreConfig.LOG_CLEANUP_POLICY_CONFIG),
            Map.entry(LogConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, StoreConfig.LOG_CLEANER_MIN_CLEANABLE_RATIO_CONFIG),
            Map.entry(LogConfig.MIN_COMPACTION_LAG_MS_CONFIG, StoreConfig.LOG_CLEANER_MIN_COMPACTION_LAG_MS_CONFIG),
            Map.entry(LogConfig.MAX_COMPACTION_LAG_MS_CONFIG, StoreConfig.LOG_CLEANER_MAX_COMPACTION_LAG_MS_CONFIG),
            Map.entry(LogConfig.DELETE_RETENTION_MS_CONFIG, StoreConfig.LOG_CLEANER_DELETE_RETENTION_MS_CONFIG),
            Map.entry(LogConfig.COMPRESSION_TYPE_CONFIG, StoreConfig.COMPRESSION_TYPE_CONFIG),
            Map.entry(TopicConfigs.MIN_IN_SYNC_REPLICAS_CONFIG, TopicConfigs.MIN_IN_SYNC_REPLICAS_CONFIG),
            Map.entry(TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, TopicConfigs.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG),
            Map.entry(TopicConfigs.REPLICA_FETCH_OUT_OF_RANGE_POLICY_CONFIG,
                    ReplicationConfig.REPLICA_FETCH_OUT_OF_RANGE_POLICY_CONFIG));

    private static final ConfigDef TOPIC_KEYS = TopicConfigs.configDef();

    private final int brokerId;
    private final BrokerConfigResolver resolver;
    private final Map<String, ?> staticProps;

    TopicConfigView(int brokerId, BrokerConfigResolver resolver, Map<String, ?> staticProps) {
        this.brokerId = brokerId;
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.staticProps = Map.copyOf(staticProps);
    }

    /** Every topic key, in definition order, for a topic with these overrides. */
    List<ConfigView> describe(MetadataImage image, Map<String, String> overrides) {
        Map<String, String> clusterDefault = image.brokerConfigs(DynamicBrokerConfigs.CLUSTER_DEFAULT);
        Map<String, String> perBroker = image.brokerConfigs(brokerId);
        Map<String, Object> logDefaults = resolver.resolve(clusterDefault, perBroker).logDefaults().values();
        Map<String, BrokerConfigResolver.Described> dynamic = new HashMap<>();
        resolver.describe(clusterDefault, perBroker, true).forEach(d -> dynamic.put(d.name(), d));
        List<ConfigView> out = new ArrayList<>();
        for (ConfigDef.ConfigKey key : TOPIC_KEYS.configKeys().values()) {
            String name = key.name();
            List<ConfigView.Synonym> brokerSide = brokerSynonyms(name, dynamic);
            String brokerValue = logDefaults.containsKey(name) ? ConfigDef.formatValue(logDefaults.get(name))
                    : !brokerSide.isEmpty() ? brokerSide.get(0).value() : defaultValue(key);
            ConfigSource brokerSource = brokerSide.isEmpty() ? ConfigSource.DEFAULT_CONFIG : brokerSide.get(0).source();
            List<ConfigView.Synonym> synonyms = new ArrayList<>();
            String override = overrides.get(name);
            if (override != null) {
                synonyms.add(new ConfigView.Synonym(name, override, ConfigSource.TOPIC_CONFIG));
            }
            synonyms.addAll(brokerSide);
            out.add(new ConfigView(name, override != null ? override : brokerValue,
                    override != null ? ConfigSource.TOPIC_CONFIG : brokerSource, synonyms, ConfigView.type(key.type())));
        }
        return out;
    }

    /**
     * The broker keys behind a topic key, highest precedence first: from the dynamic description when the
     * key is dynamic (falling to the next key of its synonym group, e.g. log.retention.hours when no source
     * sets log.retention.ms), else the static file, else the built-in default.
     */
    private List<ConfigView.Synonym> brokerSynonyms(String topicKey, Map<String, BrokerConfigResolver.Described> dynamic) {
        String brokerKey = BROKER_KEY.get(topicKey);
        if (brokerKey == null) {
            return List.of();
        }
        if (dynamic.containsKey(brokerKey)) {
            for (String synonym : DynamicBrokerConfigs.synonyms(brokerKey)) {
                BrokerConfigResolver.Described d = dynamic.get(synonym);
                if (d != null && !d.synonyms().isEmpty()) {
                    return d.synonyms().stream().map(s -> new ConfigView.Synonym(s.name(), s.value(),
                            ConfigView.source(s.source().name()))).toList();
                }
            }
            return List.of();
        }
        Object value = staticProps.get(brokerKey);
        if (value != null) {
            return List.of(new ConfigView.Synonym(brokerKey, ConfigDef.formatValue(value).trim(),
                    ConfigSource.STATIC_BROKER_CONFIG));
        }
        ConfigDef.ConfigKey key = TOPIC_KEYS.configKeys().get(topicKey);
        String builtIn = defaultValue(key);
        return builtIn == null ? List.of()
                : List.of(new ConfigView.Synonym(brokerKey, builtIn, ConfigSource.DEFAULT_CONFIG));
    }

    private static String defaultValue(ConfigDef.ConfigKey key) {
        Object d = key.defaultValue();
        return d == null || d == ConfigDef.NO_DEFAULT ? null : ConfigDef.formatValue(d);
    }
}
