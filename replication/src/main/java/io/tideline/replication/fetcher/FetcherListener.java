package io.tideline.replication.fetcher;

import io.tideline.common.TopicPartition;
import io.tideline.replication.follower.FailureReason;
import java.util.Optional;

/** What the fetchers tell the replica manager. Called on fetcher threads; must not block long. */
public interface FetcherListener {
    FetcherListener NONE = new FetcherListener() {
    };

    /** A replica became FAILED (reason present) or left FAILED through a rebuild (empty). */
    default void onFailureChanged(TopicPartition tp, Optional<FailureReason> reason) {
    }

    /** Writing a follower's local log failed with an I/O error: its log dir may have failed. */
    default void onStorageError(TopicPartition tp, RuntimeException error) {
    }

    /** A follower appended {@code bytes} of records fetched from its leader (ReplicationBytesInPerSec). */
    default void onAppended(TopicPartition tp, int bytes) {
    }

    /** The local log of a follower changed (appended, truncated, start offset moved). */
    default void onLogChanged(TopicPartition tp) {
    }
}
