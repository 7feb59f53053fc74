package io.tideline.client;

import io.tideline.client.internals.BootstrapServers;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.config.AbstractConfig;
import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigDef.Importance;
import io.tideline.common.config.ConfigDef.Type;
import io.tideline.common.config.Range;
import java.util.List;
import java.util.Map;

/** The admin client's settings, with Kafka's names and defaults. Immutable. */
public final class AdminConfig extends AbstractConfig {
    public static final String DEFAULT_API_TIMEOUT_MS = "default.api.timeout.ms";

    private static final ConfigDef CONFIG = CommonClientConfigs.base(30_000)
            .define(DEFAULT_API_TIMEOUT_MS, Type.INT, 60_000, Range.atLeast(0), Importance.MEDIUM,
                    "The bound on one admin call, retries on other brokers or leaders included; each request "
                    + "also carries request.timeout.ms as the broker-side wait.");

    private final List<BrokerAddress> bootstrapServers;
    private final String clientId;
    private final int requestTimeoutMs;
    private final long retryBackoffMs;
    private final int defaultApiTimeoutMs;
    private final long socketConnectionSetupTimeoutMs;

    public AdminConfig(Map<String, ?> props) {
        super(CONFIG, props);
        this.bootstrapServers = BootstrapServers.parse(CommonClientConfigs.BOOTSTRAP_SERVERS,
                getList(CommonClientConfigs.BOOTSTRAP_SERVERS));
        this.clientId = getString(CommonClientConfigs.CLIENT_ID);
        this.requestTimeoutMs = getInt(CommonClientConfigs.REQUEST_TIMEOUT_MS);
        this.retryBackoffMs = getLong(CommonClientConfigs.RETRY_BACKOFF_MS);
        this.defaultApiTimeoutMs = getInt(DEFAULT_API_TIMEOUT_MS);
        this.socketConnectionSetupTimeoutMs = getLong(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS);
    }

    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    public List<BrokerAddress> bootstrapServers() {
        return bootstrapServers;
    }

    public String clientId() {
        return clientId;
    }

    public int requestTimeoutMs() {
        return requestTimeoutMs;
    }

    public long retryBackoffMs() {
        return retryBackoffMs;
    }

    public int defaultApiTimeoutMs() {
        return defaultApiTimeoutMs;
    }

    public long socketConnectionSetupTimeoutMs() {
        return socketConnectionSetupTimeoutMs;
    }
}
