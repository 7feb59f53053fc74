package io.tideline.node.kafka.admin;

import io.tideline.common.config.ConfigDef;
import java.util.List;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/** One described config in Kafka's terms: what DescribeConfigs and CreateTopics (v5+) answer per key. */
record ConfigView(String name, String value, ConfigSource source, List<Synonym> synonyms, ConfigType type) {

    record Synonym(String name, String value, ConfigSource source) {
    }

    ConfigView {
        synonyms = List.copyOf(synonyms);
    }

    /** Kafka's wire type of one of our config types. */
    static ConfigType type(ConfigDef.Type type) {
        return switch (type) {
            case INT -> ConfigType.INT;
            case LONG -> ConfigType.LONG;
            case DOUBLE -> ConfigType.DOUBLE;
            case BOOLEAN -> ConfigType.BOOLEAN;
            case STRING -> ConfigType.STRING;
            case LIST -> ConfigType.LIST;
        };
    }

    /** BrokerConfigResolver's source names are Kafka's ConfigEntry names, the same as the wire enum's. */
    static ConfigSource source(String name) {
        return ConfigSource.valueOf(name);
    }
}
