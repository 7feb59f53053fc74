package io.tideline.node.config;

import io.tideline.common.config.ConfigDef;
import io.tideline.replication.ReplicationConfig;
import io.tideline.store.config.LogConfig;
import io.tideline.store.config.StoreConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One broker's effective values of the dynamic keys ({@link DynamicBrokerConfigs}), with Kafka's
 * precedence: the broker's own dynamic value, then the cluster-wide dynamic default, then its static file
 * (node.properties), then the built-in default. As in Kafka the sources are layered first and the synonyms
 * resolved after, over the merged settings: a {@code log.retention.ms} from any source beats a
 * {@code log.retention.hours} from any other (docs/behaviours.md B56).
 *
 * <p>Immutable and thread-safe.
 */
public final class BrokerConfigResolver {

    /** Kafka's ConfigEntry.ConfigSource names, highest precedence first. */
    public enum Source {
        DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG
    }

    public record Synonym(String name, String value, Source source) {
    }

    /** A described key: its value ({@code null} when no source sets it), the value's source, the synonyms. */
    public record Described(String name, String value, Source source, List<Synonym> synonyms) {
        public Described {
            synonyms = List.copyOf(synonyms);
        }
    }

    /**
     * What a broker runs with: the log defaults every topic override applies over, the min.insync.replicas of
     * topics without their own, and the throttle rates.
     */
    public record Effective(LogConfig logDefaults, int minInsyncReplicas, long leaderThrottledRate,
                            long followerThrottledRate) {
    }

    private final Map<String, Object> staticProps;
    private final Map<String, String> staticDynamicKeys;
    private final Map<String, String> builtInDefaults;

    /** @param staticProps the node's properties as loaded (its file and --override values) */
    public BrokerConfigResolver(Map<String, ?> staticProps) {
        this.staticProps = Map.copyOf(Objects.requireNonNull(staticProps, "staticProps"));
        ConfigDef def = DynamicBrokerConfigs.definition();
        Map<String, String> statics = new TreeMap<>();
        Map<String, String> defaults = new TreeMap<>();
        for (ConfigDef.ConfigKey key : def.configKeys().values()) {
            Object value = staticProps.get(key.name());
            if (value != null) {
                statics.put(key.name(), ConfigDef.formatValue(value).trim());
            }
            if (key.defaultValue() != null && key.defaultValue() != ConfigDef.NO_DEFAULT) {
                defaults.put(key.name(), ConfigDef.formatValue(key.defaultValue()));
            }
        }
        this.staticDynamicKeys = Map.copyOf(statics);
        this.builtInDefaults = Map.copyOf(defaults);
    }

    /**
     * The effective values under {@code clusterDefault} and {@code perBroker} dynamic configs (each
     * validated by the controller when it was set).
     *
     * @throws io.tideline.common.config.ConfigException if the merged settings do not parse
     */
    public Effective resolve(Map<String, String> clusterDefault, Map<String, String> perBroker) {
        Map<String, Object> merged = new LinkedHashMap<>(staticProps);
        merged.putAll(clusterDefault);
        merged.putAll(perBroker);
        LogConfig logDefaults = StoreConfig.fromMap(merged).logConfigDefaults();
        ReplicationConfig replication = ReplicationConfig.fromMap(merged);
        return new Effective(logDefaults, replication.minInsyncReplicas(), replication.leaderThrottledRate(),
                replication.followerThrottledRate());
    }

    /**
     * Kafka's DescribeConfigs of a broker: every dynamic key when {@code perBrokerView} (the broker's own
     * view, its dynamic values included), else only the keys {@code clusterDefault} sets, without
     * per-broker synonyms. Each key's synonyms come source by source (broker, default, static, built-in),
     * within a source in synonym order, starting at the first entry for the key itself; sorted by name.
     */
    public List<Described> describe(Map<String, String> clusterDefault, Map<String, String> perBroker,
                                    boolean perBrokerView) {
        Map<Source, Map<String, String>> bySource = new LinkedHashMap<>();
        if (perBrokerView) {
            bySource.put(Source.DYNAMIC_BROKER_CONFIG, perBroker);
        }
        bySource.put(Source.DYNAMIC_DEFAULT_BROKER_CONFIG, clusterDefault);
        bySource.put(Source.STATIC_BROKER_CONFIG, staticDynamicKeys);
        bySource.put(Source.DEFAULT_CONFIG, builtInDefaults);
        Iterable<String> names = new TreeSet<>(perBrokerView ? DynamicBrokerConfigs.names() : clusterDefault.keySet());
        List<Described> out = new ArrayList<>();
        for (String name : names) {
            List<Synonym> synonyms = new ArrayList<>();
            bySource.forEach((source, values) -> {
                for (String synonym : DynamicBrokerConfigs.synonyms(name)) {
                    String v = values.get(synonym);
                    if (v != null) {
                        synonyms.add(new Synonym(synonym, v, source));
                    }
                }
            });
            while (!synonyms.isEmpty() && !synonyms.get(0).name().equals(name)) {
                synonyms.remove(0);
            }
            out.add(synonyms.isEmpty() ? new Described(name, null, Source.DEFAULT_CONFIG, List.of())
                    : new Described(name, synonyms.get(0).value(), synonyms.get(0).source(), synonyms));
        }
        return out;
    }
}
