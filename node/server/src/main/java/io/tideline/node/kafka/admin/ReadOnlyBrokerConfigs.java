package io.tideline.node.kafka.admin;

import io.tideline.common.config.ConfigDef;
import io.tideline.node.config.NodeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;

/**
 * The node keys that DescribeConfigs lists for a broker beside its dynamic ones, read-only as in Kafka (a change
 * needs the node's file and a restart): the defaults of a topic created without counts
 * ({@code auto.create.topics.enable}, {@code num.partitions}, {@code default.replication.factor}), which a Kafka
 * operator looks up when a topic appears with a partition count nobody asked for. The value is the node's file
 * (STATIC_BROKER_CONFIG) or the key's default (DEFAULT_CONFIG). Stateless.
 */
final class ReadOnlyBrokerConfigs {
    static final List<String> KEYS = List.of(NodeConfig.AUTO_CREATE_TOPICS_ENABLE_CONFIG,
            NodeConfig.NUM_PARTITIONS_CONFIG, NodeConfig.DEFAULT_REPLICATION_FACTOR_CONFIG);
    private static final Map<String, ConfigDef.ConfigKey> DEFINITIONS = NodeConfig.configDef().configKeys();

    private ReadOnlyBrokerConfigs() {
    }

    /** @param wanted the keys asked for, null for all */
    static List<DescribeConfigsResourceResult> describe(Map<String, ?> staticProps, Set<String> wanted,
                                                        boolean includeSynonyms) {
        List<DescribeConfigsResourceResult> out = new ArrayList<>();
        for (String name : KEYS) {
            if (wanted != null && !wanted.contains(name)) {
                continue;
            }
            ConfigDef.ConfigKey key = DEFINITIONS.get(name);
            String fallback = String.valueOf(key.defaultValue());
            Object raw = staticProps.get(name);
            String value = raw == null ? fallback : String.valueOf(raw).trim();
            ConfigSource source = raw == null ? ConfigSource.DEFAULT_CONFIG : ConfigSource.STATIC_BROKER_CONFIG;
            DescribeConfigsResourceResult r = new DescribeConfigsResourceResult().setName(name).setValue(value)
                    .setReadOnly(true).setIsSensitive(false).setConfigSource(source.id())
                    .setConfigType(ConfigView.type(key.type()).id());
            if (includeSynonyms) {
                List<DescribeConfigsSynonym> synonyms = new ArrayList<>();
                if (raw != null) {
                    synonyms.add(new DescribeConfigsSynonym().setName(name).setValue(value)
                            .setSource(ConfigSource.STATIC_BROKER_CONFIG.id()));
                }
                synonyms.add(new DescribeConfigsSynonym().setName(name).setValue(fallback)
                        .setSource(ConfigSource.DEFAULT_CONFIG.id()));
                r.setSynonyms(synonyms);
            }
            out.add(r);
        }
        return out;
    }
}
