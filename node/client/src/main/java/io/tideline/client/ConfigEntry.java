package io.tideline.client;

import java.util.List;

/**
 * One broker config as {@link TidelineAdmin#describeBrokerConfigs} reports it, in the shape of Kafka's
 * {@code ConfigEntry}: the value in force ({@code null} when no source sets the key), where that value
 * comes from, and every source that sets the key or one of its synonyms, highest precedence first
 * ({@code log.retention.ms} lists {@code log.retention.minutes} and {@code log.retention.hours} too).
 */
public record ConfigEntry(String name, String value, ConfigSource source, List<ConfigSynonym> synonyms) {

    /** Kafka's config sources for a broker, highest precedence first. */
    public enum ConfigSource {
        /** Set for this broker with {@code configs --alter --entity-name N}. */
        DYNAMIC_BROKER_CONFIG,
        /** Set for every broker with {@code configs --alter --entity-default}. */
        DYNAMIC_DEFAULT_BROKER_CONFIG,
        /** From the broker's node.properties (or --override). */
        STATIC_BROKER_CONFIG,
        /** The built-in default. */
        DEFAULT_CONFIG
    }

    public record ConfigSynonym(String name, String value, ConfigSource source) {
    }

    public ConfigEntry {
        synonyms = List.copyOf(synonyms);
    }
}
