package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;

/**
 * One partition's answer to an election: NONE (elected), ELECTION_NOT_NEEDED (it has the leader the
 * election would give it), or why not (PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE,
 * UNKNOWN_TOPIC_OR_PARTITION, ...).
 */
public record ElectionResult(TopicPartition partition, Errors error, String message) {

    /** Elected, or nothing to do: what Kafka's tool does not count as a failure. */
    public boolean isSuccess() {
        return error == Errors.NONE || error == Errors.ELECTION_NOT_NEEDED;
    }
}
