package io.tideline.replication.server;

import io.tideline.common.TopicPartition;

/** Told when an I/O error surfaced from a local log, so the node can take its log dir offline. */
@FunctionalInterface
public interface StorageErrorListener {
    void onStorageError(TopicPartition tp, RuntimeException error);
}
