package io.tideline.store.manager;

import io.tideline.store.config.LogConfig;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The log config of each topic: its overrides (segment.bytes, retention.ms, ...) over the broker-level defaults,
 * the static ones until dynamic broker configs replace them. Changes are serialized by the {@link LogManager}.
 */
final class TopicLogConfigs {
    private final Map<String, Map<String, ?>> topicOverrides = new ConcurrentHashMap<>();
    private volatile LogConfig defaults;

    TopicLogConfigs(LogConfig defaults) {
        this.defaults = defaults;
    }

    LogConfig defaults() {
        return defaults;
    }

    LogConfig forTopic(String topic) {
        Map<String, ?> overrides = topicOverrides.get(topic);
        LogConfig current = defaults;
        return overrides == null ? current : current.withOverrides(overrides);
    }

    /** Sets a topic's overrides and returns its config; nothing changes when they do not apply (INVALID_CONFIG). */
    LogConfig setOverrides(String topic, Map<String, ?> overrides) {
        LogConfig newConfig = defaults.withOverrides(overrides);
        topicOverrides.put(topic, Map.copyOf(overrides));
        return newConfig;
    }

    /**
     * Replaces the defaults and returns the config of each of {@code topics} under them.
     *
     * @throws io.tideline.common.config.ConfigException if a topic's overrides do not apply over them; nothing is
     *                                                    changed then
     */
    Map<String, LogConfig> setDefaults(LogConfig newDefaults, Collection<String> topics) {
        Map<String, LogConfig> byTopic = new HashMap<>();
        for (String topic : topics) {
            Map<String, ?> overrides = topicOverrides.get(topic);
            byTopic.computeIfAbsent(topic, t -> overrides == null ? newDefaults : newDefaults.withOverrides(overrides));
        }
        defaults = newDefaults;
        return byTopic;
    }
}
