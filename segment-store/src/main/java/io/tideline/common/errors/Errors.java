package io.tideline.common.errors;

/**
 * The error codes that cross every boundary of Tideline: store results, RPC responses, CLI output.
 * Names and numeric codes are Kafka's where the concept is Kafka's, so an operator reading a log line
 * or a response recognises them. Per-partition errors travel as values of this enum, never as
 * serialized Java exceptions.
 */
public enum Errors {
    UNKNOWN_SERVER_ERROR(-1, false, "The server experienced an unexpected error."),
    NONE(0, false, null),
    OFFSET_OUT_OF_RANGE(1, false, "The requested offset is not within the range of offsets held by the replica."),
    CORRUPT_MESSAGE(2, true, "The record batch failed its CRC check, is truncated, or is otherwise malformed."),
    UNKNOWN_TOPIC_OR_PARTITION(3, true, "This server does not host this topic-partition."),
    LEADER_NOT_AVAILABLE(5, true, "There is no leader for this topic-partition."),
    NOT_LEADER_OR_FOLLOWER(6, true, "This server is not the leader or a follower of this partition."),
    REQUEST_TIMED_OUT(7, true, "The request timed out."),
    RECORD_TOO_LARGE(10, false, "The record batch is larger than the maximum the server accepts (max.message.bytes)."),
    BROKER_NOT_AVAILABLE(8, true, "The broker is not available."),
    REPLICA_NOT_AVAILABLE(9, true, "The replica is not available for the requested topic-partition."),
    INVALID_TOPIC_EXCEPTION(17, false, "The topic name is invalid."),
    NOT_ENOUGH_REPLICAS(19, true, "There are fewer in-sync replicas than min.insync.replicas."),
    NOT_ENOUGH_REPLICAS_AFTER_APPEND(20, true, "The record was written but the in-sync replica set shrank below min.insync.replicas."),
    INVALID_REQUIRED_ACKS(21, false, "acks must be -1 (all), 0 or 1."),
    INVALID_TIMESTAMP(32, false, "A record timestamp is out of the accepted range."),
    TOPIC_ALREADY_EXISTS(36, false, "A topic with this name already exists."),
    INVALID_PARTITIONS(37, false, "The number of partitions is invalid."),
    INVALID_REPLICATION_FACTOR(38, false, "The replication factor is invalid."),
    INVALID_REPLICA_ASSIGNMENT(39, false, "The replica assignment is invalid."),
    INVALID_CONFIG(40, false, "A configuration value is invalid."),
    NOT_CONTROLLER(41, true, "This node is not the active controller."),
    INVALID_REQUEST(42, false, "The request is malformed."),
    POLICY_VIOLATION(44, false, "The request breaks a configured policy."),
    KAFKA_STORAGE_ERROR(56, true, "A disk error occurred on the log directory holding this partition."),
    LOG_DIR_NOT_FOUND(57, false, "The log directory does not exist."),
    UNKNOWN_LEADER_EPOCH(74, true, "The leader epoch in the request is newer than the epoch on the broker."),
    FENCED_LEADER_EPOCH(75, true, "The leader epoch in the request is older than the epoch on the broker."),
    UNSUPPORTED_COMPRESSION_TYPE(76, false, "The batch uses a compression codec this server does not decode."),
    STALE_BROKER_EPOCH(77, false, "The broker epoch does not match the broker's current registration."),
    PREFERRED_LEADER_NOT_AVAILABLE(80, true, "The preferred leader is not available to lead."),
    ELIGIBLE_LEADERS_NOT_AVAILABLE(83, true, "No replica that may lead is available."),
    ELECTION_NOT_NEEDED(84, false, "The partition has the leader the election would choose already."),
    INVALID_RECORD(87, false, "A record failed validation on the broker."),
    NO_REASSIGNMENT_IN_PROGRESS(85, false, "No partition reassignment is in progress."),
    INVALID_UPDATE_VERSION(95, false, "The partition epoch in the request does not match the current one."),
    UNKNOWN_TOPIC_ID(100, true, "This server does not host a topic with this id."),
    INELIGIBLE_REPLICA(107, false, "A replica added to the ISR is fenced or shutting down.");

    private final short code;
    private final boolean retriable;
    private final String defaultMessage;

    Errors(int code, boolean retriable, String defaultMessage) {
        this.code = (short) code;
        this.retriable = retriable;
        this.defaultMessage = defaultMessage;
    }

    public short code() {
        return code;
    }

    public boolean retriable() {
        return retriable;
    }

    public String defaultMessage() {
        return defaultMessage;
    }

    public static Errors forCode(int code) {
        for (Errors e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return UNKNOWN_SERVER_ERROR;
    }
}
