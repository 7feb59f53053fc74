package io.tideline.client;

import io.tideline.client.internals.BootstrapServers;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.config.AbstractConfig;
import io.tideline.common.config.ConfigDef;
import java.util.List;
import java.util.Map;

/**
 * The settings every client has ({@link CommonClientConfigs}), parsed once for the producer, the consumer and the
 * admin client; each adds its own keys to the definition and its own getters. Immutable.
 */
abstract class ClientConfig extends AbstractConfig {
    private final List<BrokerAddress> bootstrapServers;
    private final String clientId;
    private final int requestTimeoutMs;
    private final long retryBackoffMs;
    private final long socketConnectionSetupTimeoutMs;

    /** {@code definition} is {@link CommonClientConfigs#base} with the client's own keys. */
    ClientConfig(ConfigDef definition, Map<String, ?> props) {
        super(definition, props);
        this.bootstrapServers = BootstrapServers.parse(CommonClientConfigs.BOOTSTRAP_SERVERS,
                getList(CommonClientConfigs.BOOTSTRAP_SERVERS));
        this.clientId = getString(CommonClientConfigs.CLIENT_ID);
        this.requestTimeoutMs = getInt(CommonClientConfigs.REQUEST_TIMEOUT_MS);
        this.retryBackoffMs = getLong(CommonClientConfigs.RETRY_BACKOFF_MS);
        this.socketConnectionSetupTimeoutMs = getLong(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS);
    }

    public final List<BrokerAddress> bootstrapServers() {
        return bootstrapServers;
    }

    public final String clientId() {
        return clientId;
    }

    public final int requestTimeoutMs() {
        return requestTimeoutMs;
    }

    public final long retryBackoffMs() {
        return retryBackoffMs;
    }

    public final long socketConnectionSetupTimeoutMs() {
        return socketConnectionSetupTimeoutMs;
    }
}
