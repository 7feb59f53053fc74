package io.tideline.common.errors;

import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;

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
    BROKER_NOT_AVAILABLE(8, true, "The broker is not available."),
    REPLICA_NOT_AVAILABLE(9, true, "The replica is not available for the requested topic-partition."),
    MESSAGE_TOO_LARGE(10, false, "The record batch is larger than the maximum the server accepts (max.message.bytes)."),
    OFFSET_METADATA_TOO_LARGE(12, false, "The metadata of a committed offset is larger than offset.metadata.max.bytes."),
    COORDINATOR_LOAD_IN_PROGRESS(14, true, "The coordinator is loading the group's state."),
    COORDINATOR_NOT_AVAILABLE(15, true, "The group coordinator is not available."),
    NOT_COORDINATOR(16, true, "This server is not the coordinator of the group."),
    INVALID_TOPIC_EXCEPTION(17, false, "The topic name is invalid."),
    RECORD_LIST_TOO_LARGE(18, false, "The request's record batches are larger than the server accepts."),
    NOT_ENOUGH_REPLICAS(19, true, "There are fewer in-sync replicas than min.insync.replicas."),
    NOT_ENOUGH_REPLICAS_AFTER_APPEND(20, true, "The record was written but the in-sync replica set shrank below min.insync.replicas."),
    INVALID_REQUIRED_ACKS(21, false, "acks must be -1 (all), 0 or 1."),
    ILLEGAL_GENERATION(22, false, "The generation id is not the group's current one."),
    INCONSISTENT_GROUP_PROTOCOL(23, false, "The member's protocol type or protocols do not match the group's."),
    INVALID_GROUP_ID(24, false, "The group id is empty or invalid."),
    UNKNOWN_MEMBER_ID(25, false, "The coordinator does not know this member id."),
    INVALID_SESSION_TIMEOUT(26, false, "The session timeout is outside group.min.session.timeout.ms - group.max.session.timeout.ms."),
    REBALANCE_IN_PROGRESS(27, false, "The group is rebalancing; the member must rejoin."),
    INVALID_COMMIT_OFFSET_SIZE(28, false, "The committed offset is invalid."),
    INVALID_TIMESTAMP(32, false, "A record timestamp is out of the accepted range."),
    UNSUPPORTED_VERSION(35, false, "The version of this API is not served (see ApiVersions)."),
    TOPIC_ALREADY_EXISTS(36, false, "A topic with this name already exists."),
    INVALID_PARTITIONS(37, false, "The number of partitions is invalid."),
    INVALID_REPLICATION_FACTOR(38, false, "The replication factor is invalid."),
    INVALID_REPLICA_ASSIGNMENT(39, false, "The replica assignment is invalid."),
    INVALID_CONFIG(40, false, "A configuration value is invalid."),
    NOT_CONTROLLER(41, true, "This node is not the active controller."),
    INVALID_REQUEST(42, false, "The request is malformed."),
    POLICY_VIOLATION(44, false, "The request breaks a configured policy."),
    OUT_OF_ORDER_SEQUENCE_NUMBER(45, false, "The batch's sequence number does not follow the producer's last one."),
    DUPLICATE_SEQUENCE_NUMBER(46, false, "The batch's sequence number repeats one already written."),
    INVALID_PRODUCER_EPOCH(47, false, "The producer's epoch is older than the one the partition knows."),
    INVALID_TXN_STATE(48, false, "The producer attempted a transactional operation in an invalid state (no transactions are served)."),
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED(53, false, "Transactional ids are not served (no transactions)."),
    KAFKA_STORAGE_ERROR(56, true, "A disk error occurred on the log directory holding this partition."),
    LOG_DIR_NOT_FOUND(57, false, "The log directory does not exist."),
    UNKNOWN_PRODUCER_ID(59, false, "The partition has no state for this producer id."),
    NON_EMPTY_GROUP(68, false, "The group has members."),
    GROUP_ID_NOT_FOUND(69, false, "The group does not exist."),
    FENCED_LEADER_EPOCH(74, true, "The leader epoch in the request is older than the epoch on the broker."),
    UNKNOWN_LEADER_EPOCH(75, true, "The leader epoch in the request is newer than the epoch on the broker."),
    UNSUPPORTED_COMPRESSION_TYPE(76, false, "The batch uses a compression codec this server does not decode."),
    STALE_BROKER_EPOCH(77, false, "The broker epoch does not match the broker's current registration."),
    MEMBER_ID_REQUIRED(79, false, "The member must rejoin with the member id the coordinator gave it."),
    PREFERRED_LEADER_NOT_AVAILABLE(80, true, "The preferred leader is not available to lead."),
    GROUP_MAX_SIZE_REACHED(81, false, "The group has group.max.size members already."),
    FENCED_INSTANCE_ID(82, false, "Another member uses this group.instance.id."),
    ELIGIBLE_LEADERS_NOT_AVAILABLE(83, true, "No replica that may lead is available."),
    ELECTION_NOT_NEEDED(84, false, "The partition has the leader the election would choose already."),
    INVALID_RECORD(87, false, "A record failed validation on the broker."),
    NO_REASSIGNMENT_IN_PROGRESS(85, false, "No partition reassignment is in progress."),
    GROUP_SUBSCRIBED_TO_TOPIC(86, false, "A member of the group is subscribed to the topic, so its offsets stay."),
    THROTTLING_QUOTA_EXCEEDED(89, true, "The throttling quota has been exceeded."),
    PRODUCER_FENCED(90, false, "A newer producer with the same id has the partition."),
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

    /** Every partition of every fetch answer is decoded through this: a table, not a fresh values() array each time. */
    private static final Map<Short, Errors> BY_CODE = Arrays.stream(values())
            .collect(Collectors.toUnmodifiableMap(e -> e.code, e -> e));

    public static Errors forCode(int code) {
        Errors e = code == (short) code ? BY_CODE.get((short) code) : null;
        return e != null ? e : UNKNOWN_SERVER_ERROR;
    }
}
