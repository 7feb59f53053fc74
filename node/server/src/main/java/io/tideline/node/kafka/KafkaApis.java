package io.tideline.node.kafka;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs a node serves on its Kafka listener, one {@link KafkaApi} per key. ApiVersions answers from this
 * table, so a client is offered exactly what is implemented and nothing else.
 */
public final class KafkaApis {
    private final Map<ApiKeys, KafkaApi> apis = new EnumMap<>(ApiKeys.class);

    public KafkaApis register(KafkaApi api) {
        if (api.minVersion() < api.key().oldestVersion() || api.maxVersion() > api.key().latestVersion(true)
                || api.minVersion() > api.maxVersion()) {
            throw new IllegalArgumentException(api.key() + " versions " + api.minVersion() + "-" + api.maxVersion()
                    + " are outside what kafka-clients knows (" + api.key().oldestVersion() + "-"
                    + api.key().latestVersion(true) + ")");
        }
        if (apis.putIfAbsent(api.key(), api) != null) {
            throw new IllegalArgumentException(api.key() + " is registered twice");
        }
        return this;
    }

    public KafkaApis registerAll(Collection<? extends KafkaApi> all) {
        all.forEach(this::register);
        return this;
    }

    public Optional<KafkaApi> get(ApiKeys key) {
        return Optional.ofNullable(apis.get(key));
    }

    /** Whether {@code version} of {@code key} is served. */
    public boolean serves(ApiKeys key, short version) {
        KafkaApi api = apis.get(key);
        return api != null && version >= api.minVersion() && version <= api.maxVersion();
    }

    public Map<ApiKeys, KafkaApi> all() {
        return Collections.unmodifiableMap(apis);
    }

    /** The ApiVersions table: every registered key with its served range. */
    public ApiVersionCollection versions() {
        ApiVersionCollection out = new ApiVersionCollection();
        apis.values().forEach(api -> out.add(new ApiVersion().setApiKey(api.key().id)
                .setMinVersion(api.minVersion()).setMaxVersion(api.maxVersion())));
        return out;
    }
}
