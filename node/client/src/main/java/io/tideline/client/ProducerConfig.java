package io.tideline.client;

import io.tideline.common.config.ConfigDef;
import io.tideline.common.config.ConfigDef.Importance;
import io.tideline.common.config.ConfigDef.Type;
import io.tideline.common.config.ConfigException;
import io.tideline.common.config.Range;
import io.tideline.common.config.ValidString;
import java.util.Map;

/** The producer's settings, with Kafka's names and defaults. Immutable. */
public final class ProducerConfig extends ClientConfig {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ProducerConfig.class);
    public static final String ACKS = "acks";
    public static final String LINGER_MS = "linger.ms";
    public static final String BATCH_SIZE = "batch.size";
    public static final String RETRIES = "retries";
    public static final String DELIVERY_TIMEOUT_MS = "delivery.timeout.ms";
    public static final String MAX_REQUEST_SIZE = "max.request.size";
    public static final String MAX_BLOCK_MS = "max.block.ms";
    public static final String BUFFER_MEMORY = "buffer.memory";
    public static final String ENABLE_IDEMPOTENCE = "enable.idempotence";
    public static final String MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION = "max.in.flight.requests.per.connection";
    /** The most batches per partition an idempotent producer has in flight: the leader remembers the last 5. */
    static final int MAX_IN_FLIGHT_FOR_IDEMPOTENCE = 5;

    private static final ConfigDef CONFIG = CommonClientConfigs.base(30_000)
            .define(ACKS, Type.STRING, "all", ValidString.in("all", "-1", "0", "1"), Importance.HIGH,
                    "How many replicas must have a batch before the leader answers: 0 (the producer does not wait "
                    + "for an answer; the offset in the result is -1), 1 (the leader's log), all or -1 (every "
                    + "in-sync replica, at least min.insync.replicas of them).")
            .define(LINGER_MS, Type.LONG, 5L, Range.atLeast(0), Importance.MEDIUM,
                    "How long a partition's batch may wait for more records before it is sent; a full batch "
                    + "(batch.size) goes at once.")
            .define(BATCH_SIZE, Type.INT, 16_384, Range.atLeast(0), Importance.MEDIUM,
                    "The upper bound in bytes of one partition's batch. A record larger than this travels in a "
                    + "batch of its own. 0 sends every record alone.")
            .define(RETRIES, Type.INT, Integer.MAX_VALUE, Range.atLeast(0), Importance.MEDIUM,
                    "How many times a batch is retried after a retriable error; delivery.timeout.ms bounds the "
                    + "retries in time as well.")
            .define(DELIVERY_TIMEOUT_MS, Type.LONG, 120_000L, Range.atLeast(1), Importance.MEDIUM,
                    "The upper bound on the time between send() and the record's result, retries included. Must "
                    + "be at least linger.ms + request.timeout.ms.")
            .define(MAX_REQUEST_SIZE, Type.INT, 1_048_576, Range.atLeast(1), Importance.MEDIUM,
                    "The largest Produce request in bytes; a record that cannot fit in one fails with "
                    + "MESSAGE_TOO_LARGE without being sent.")
            .define(MAX_BLOCK_MS, Type.LONG, 60_000L, Range.atLeast(0), Importance.MEDIUM,
                    "How long send() may block, in all: waiting for the metadata of a topic it has not seen yet "
                    + "(for example right after the topic was created) and waiting for room in buffer.memory. "
                    + "Past it the record's future fails (REQUEST_TIMED_OUT for a full buffer).")
            .define(BUFFER_MEMORY, Type.LONG, 33_554_432L, Range.atLeast(1), Importance.HIGH,
                    "The bytes of records (estimated serialized size) the producer holds waiting or in flight. "
                    + "When full, send() blocks until answers free room, up to max.block.ms: a producer faster "
                    + "than the cluster slows down instead of growing without bound.")
            .define(ENABLE_IDEMPOTENCE, Type.BOOLEAN, true, null, Importance.LOW,
                    "The producer takes a producer id (InitProducerId) and numbers each partition's batches, so "
                    + "that a retry the leader has written already is answered with its original offset instead of "
                    + "being written twice: each acknowledged record is written exactly once, in order. Needs acks=all, "
                    + "retries > 0 and max.in.flight.requests.per.connection <= 5; when left at its default and "
                    + "acks or retries do not allow it, idempotence is off (as in Kafka).")
            .define(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, Type.INT, 5, Range.atLeast(1), Importance.LOW,
                    "With idempotence, how many batches of one partition may be in flight at once (at most 5, in "
                    + "sequence order, each in a request of its own). Without idempotence a partition has one request "
                    + "in flight at a time whatever this is, which keeps its records in order across retries.");

    private final int acks;
    private final long lingerMs;
    private final int batchSize;
    private final int retries;
    private final long deliveryTimeoutMs;
    private final int maxRequestSize;
    private final long maxBlockMs;
    private final long bufferMemory;
    private final boolean idempotence;
    private final int maxInFlightRequestsPerConnection;

    public ProducerConfig(Map<String, ?> props) {
        super(CONFIG, props);
        String acksValue = getString(ACKS);
        this.acks = acksValue.equals("all") ? -1 : Integer.parseInt(acksValue);
        this.lingerMs = getLong(LINGER_MS);
        this.batchSize = getInt(BATCH_SIZE);
        this.retries = getInt(RETRIES);
        this.deliveryTimeoutMs = getLong(DELIVERY_TIMEOUT_MS);
        this.maxRequestSize = getInt(MAX_REQUEST_SIZE);
        this.maxBlockMs = getLong(MAX_BLOCK_MS);
        this.bufferMemory = getLong(BUFFER_MEMORY);
        this.maxInFlightRequestsPerConnection = getInt(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
        this.idempotence = resolveIdempotence();
        // As in Kafka: a batch must be allowed to linger and then wait for one full request.
        if (deliveryTimeoutMs < lingerMs + requestTimeoutMs()) {
            throw new ConfigException(DELIVERY_TIMEOUT_MS, deliveryTimeoutMs, "must be at least linger.ms + "
                    + "request.timeout.ms = " + (lingerMs + requestTimeoutMs()));
        }
    }

    /**
     * Kafka 4's rules: idempotence needs acks=all and retries > 0; set explicitly, it refuses other values with a
     * ConfigException, while the default gives way to them (idempotence off, with a log line). More than 5 in
     * flight is refused either way, since the leader remembers only the last 5 batches of a producer.
     */
    private boolean resolveIdempotence() {
        if (!getBoolean(ENABLE_IDEMPOTENCE)) {
            return false;
        }
        boolean explicit = !isDefault(ENABLE_IDEMPOTENCE);
        if (maxInFlightRequestsPerConnection > MAX_IN_FLIGHT_FOR_IDEMPOTENCE) {
            throw new ConfigException(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "To use the idempotent producer, "
                    + MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION + " must be set to at most 5. Current value is "
                    + maxInFlightRequestsPerConnection + ".");
        }
        if (retries == 0) {
            if (explicit) {
                throw new ConfigException(RETRIES, "Must set " + RETRIES + " to non-zero when using the idempotent producer.");
            }
            log.info("Idempotence will be disabled because {} is set to 0.", RETRIES);
            return false;
        }
        if (acks != -1) {
            if (explicit) {
                throw new ConfigException(ACKS, "Must set " + ACKS + " to all in order to use the idempotent producer. "
                        + "Otherwise we cannot guarantee idempotence.");
            }
            log.info("Idempotence will be disabled because {} is set to {}, not set to 'all'.", ACKS, acks);
            return false;
        }
        return true;
    }

    /** Whether this producer is idempotent, after Kafka's rules ({@link #resolveIdempotence()}). */
    public boolean idempotence() {
        return idempotence;
    }

    public int maxInFlightRequestsPerConnection() {
        return maxInFlightRequestsPerConnection;
    }

    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /** -1 (all), 0 or 1, as the Produce request carries it. */
    public int acks() {
        return acks;
    }

    public long lingerMs() {
        return lingerMs;
    }

    public int batchSize() {
        return batchSize;
    }

    public int retries() {
        return retries;
    }

    public long deliveryTimeoutMs() {
        return deliveryTimeoutMs;
    }

    public int maxRequestSize() {
        return maxRequestSize;
    }

    public long maxBlockMs() {
        return maxBlockMs;
    }

    public long bufferMemory() {
        return bufferMemory;
    }
}
