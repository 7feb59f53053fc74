package io.tideline.client;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigDef.Importance;
import io.tideline.common.config.ConfigDef.Type;
import io.tideline.common.config.Range;
import java.util.Map;

/** The admin client's settings, with Kafka's names and defaults. Immutable. */
public final class AdminConfig extends ClientConfig {
    public static final String DEFAULT_API_TIMEOUT_MS = "default.api.timeout.ms";

    private static final ConfigDef CONFIG = CommonClientConfigs.base(30_000)
            .define(DEFAULT_API_TIMEOUT_MS, Type.INT, 60_000, Range.atLeast(0), Importance.MEDIUM,
                    "The bound on one admin call, retries on other brokers or leaders included; each request "
                    + "also carries request.timeout.ms as the broker-side wait.");

    private final int defaultApiTimeoutMs;

    public AdminConfig(Map<String, ?> props) {
        super(CONFIG, props);
        this.defaultApiTimeoutMs = getInt(DEFAULT_API_TIMEOUT_MS);
    }

    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    public int defaultApiTimeoutMs() {
        return defaultApiTimeoutMs;
    }
}
