package io.tideline.replication.server;

import io.tideline.common.TopicPartition;

/**
 * One partition of a replica fetch, as the leader receives it.
 *
 * @param currentLeaderEpoch the epoch the follower believes in (fencing)
 * @param fetchOffset        the follower's log end offset
 * @param lastFetchedEpoch   the epoch of the follower's last batch, -1 for an empty log
 * @param logStartOffset     the follower's log start offset (DeleteRecords' low watermark)
 * @param highWatermark      the follower's high watermark: a higher one here answers a parked fetch at once
 * @param maxBytes           replica.fetch.max.bytes
 */
public record FollowerFetch(TopicPartition topicPartition, int currentLeaderEpoch, long fetchOffset,
                            int lastFetchedEpoch, long logStartOffset, long highWatermark, int maxBytes) {
}
