package io.tideline.replication.follower;

import io.tideline.common.TopicPartition;

/**
 * One partition of a replica fetch, as the leader receives it.
 *
 * @param currentLeaderEpoch the epoch the follower believes in (fencing)
 * @param fetchOffset        where to read from: the follower's log end offset, or for a fetch sent ahead
 *                           (pipelining) the end of the batches the follower is appending meanwhile
 * @param lastFetchedEpoch   the epoch of the follower's last batch, -1 for an empty log
 * @param logStartOffset     the follower's log start offset (DeleteRecords' low watermark)
 * @param highWatermark      the follower's high watermark: a higher one here answers a parked fetch at once
 * @param maxBytes           replica.fetch.max.bytes
 * @param logEndOffset       what the follower has appended, at most {@code fetchOffset}: the position the leader
 *                           records (below {@code fetchOffset} only for a fetch sent ahead)
 */
public record FollowerFetch(TopicPartition topicPartition, int currentLeaderEpoch, long fetchOffset,
                            int lastFetchedEpoch, long logStartOffset, long highWatermark, int maxBytes,
                            long logEndOffset) {
    public FollowerFetch {
        if (logEndOffset > fetchOffset) {
            throw new IllegalArgumentException("log end offset " + logEndOffset + " is past fetch offset " + fetchOffset
                    + " for " + topicPartition);
        }
    }

    /** A fetch at the follower's log end offset (not sent ahead). */
    public FollowerFetch(TopicPartition topicPartition, int currentLeaderEpoch, long fetchOffset, int lastFetchedEpoch,
                         long logStartOffset, long highWatermark, int maxBytes) {
        this(topicPartition, currentLeaderEpoch, fetchOffset, lastFetchedEpoch, logStartOffset, highWatermark, maxBytes,
                fetchOffset);
    }
}
