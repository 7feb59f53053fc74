package io.tideline.node.kafka;

import java.util.Objects;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * A {@link KafkaApi} whose key and served versions are fixed when it is built: each API names them once, in its
 * constructor, instead of overriding the three accessors.
 */
public abstract class AbstractKafkaApi implements KafkaApi {
    private final ApiKeys key;
    private final short minVersion;
    private final short maxVersion;

    /**
     * Versions are ints so that a literal needs no cast; {@link KafkaApis} checks them against kafka-clients.
     *
     * @param minVersion the lowest version served
     * @param maxVersion the highest version served
     */
    protected AbstractKafkaApi(ApiKeys key, int minVersion, int maxVersion) {
        this.key = Objects.requireNonNull(key, "key");
        if (minVersion < 0 || minVersion > maxVersion || maxVersion > Short.MAX_VALUE) {
            throw new IllegalArgumentException(key.name + ": versions " + minVersion + "-" + maxVersion);
        }
        this.minVersion = (short) minVersion;
        this.maxVersion = (short) maxVersion;
    }

    @Override
    public final ApiKeys key() {
        return key;
    }

    @Override
    public final short minVersion() {
        return minVersion;
    }

    @Override
    public final short maxVersion() {
        return maxVersion;
    }
}
