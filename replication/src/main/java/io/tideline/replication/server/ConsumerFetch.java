package io.tideline.replication.server;

import io.tideline.common.TopicPartition;

/**
 * One partition of a consumer fetch.
 *
 * @param currentLeaderEpoch the leader epoch the client knows, -1 to skip the check
 * @param maxBytes           max.partition.fetch.bytes (the first batch comes whole even if larger)
 */
public record ConsumerFetch(TopicPartition topicPartition, long fetchOffset, int maxBytes, int currentLeaderEpoch) {
}
