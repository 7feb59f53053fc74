package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.replication.purgatory.DelayedOperation;
import io.tideline.replication.purgatory.DelayedOperations;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Consumer fetches at the leader: records up to the high watermark only; OFFSET_OUT_OF_RANGE (with both
 * bounds) below the log start offset or past the log end offset; an offset between the high watermark
 * and the log end answers empty (Kafka's behaviour: those records are not committed yet). Long-polls in
 * the same purgatory as replica fetches, which the manager triggers whenever a high watermark advances.
 */
final class ConsumerFetchHandler {
    private final Function<TopicPartition, Optional<Partition>> partitions;
    private final DelayedOperations<TopicPartition> purgatory;
    private final java.util.function.Predicate<TopicPartition> offline;

    ConsumerFetchHandler(Function<TopicPartition, Optional<Partition>> partitions,
                         DelayedOperations<TopicPartition> purgatory, java.util.function.Predicate<TopicPartition> offline) {
        this.partitions = partitions;
        this.purgatory = purgatory;
        this.offline = offline;
    }

    /**
     * @param slices answer with the open segment bytes ({@link ConsumerFetchResult#slice()}) instead of reading
     *               them into the heap; the caller then owns every slice of the answer
     */
    CompletableFuture<Map<TopicPartition, ConsumerFetchResult>> fetch(List<ConsumerFetch> fetches, int minBytes,
                                                                      int maxBytes, int maxWaitMs, boolean slices) {
        CompletableFuture<Map<TopicPartition, ConsumerFetchResult>> future = new CompletableFuture<>();
        Map<TopicPartition, ConsumerFetchResult> first = read(fetches, maxBytes, slices);
        if (maxWaitMs <= 0 || fetches.isEmpty() || satisfied(first, minBytes)) {
            future.complete(first);
            return future;
        }
        // Not enough yet: the long poll reads again when it completes, so these slices are never sent.
        closeSlices(first);
        DelayedOperation delayed = new DelayedOperation(maxWaitMs) {
            @Override
            protected boolean tryComplete() {
                return ready(fetches, minBytes) && forceComplete();
            }

            @Override
            protected void onComplete(boolean expired) {
                try {
                    Map<TopicPartition, ConsumerFetchResult> results = read(fetches, maxBytes, slices);
                    if (!future.complete(results)) {
                        closeSlices(results);
                    }
                } catch (RuntimeException e) {
                    future.completeExceptionally(e);
                }
            }
        };
        purgatory.tryCompleteElseWatch(delayed, fetches.stream().map(ConsumerFetch::topicPartition).toList());
        return future;
    }

    private static boolean satisfied(Map<TopicPartition, ConsumerFetchResult> results, int minBytes) {
        long bytes = 0;
        for (ConsumerFetchResult r : results.values()) {
            if (r.error() != Errors.NONE) {
                return true;
            }
            bytes += r.sizeInBytes();
        }
        return bytes >= minBytes;
    }

    private boolean ready(List<ConsumerFetch> fetches, int minBytes) {
        long bytes = 0;
        for (ConsumerFetch fetch : fetches) {
            Optional<Partition> partition = partitions.apply(fetch.topicPartition());
            if (partition.isEmpty() || !partition.get().isLeader()) {
                return true;
            }
            Log log = partition.get().log();
            long hw = log.highWatermark();
            if (fetch.fetchOffset() < log.logStartOffset() || fetch.fetchOffset() > log.logEndOffset()) {
                return true;
            }
            if (hw > fetch.fetchOffset()) {
                bytes += LeaderFetchHandler.availableBytes(log, fetch.fetchOffset(), fetch.maxBytes(), hw);
            }
            if (bytes >= minBytes) {
                return true;
            }
        }
        return false;
    }

    static void closeSlices(Map<TopicPartition, ConsumerFetchResult> results) {
        results.values().forEach(ConsumerFetchResult::closeSlice);
    }

    private Map<TopicPartition, ConsumerFetchResult> read(List<ConsumerFetch> fetches, int maxBytes, boolean slices) {
        Map<TopicPartition, ConsumerFetchResult> results = new LinkedHashMap<>();
        int bytes = 0;
        try {
            for (ConsumerFetch fetch : fetches) {
                ConsumerFetchResult r = readOne(fetch, Math.max(0, maxBytes - bytes), bytes == 0, slices);
                bytes += r.sizeInBytes();
                results.put(fetch.topicPartition(), r);
            }
        } catch (RuntimeException e) {
            // A later partition failed unexpectedly: the slices already opened are never handed over.
            closeSlices(results);
            throw e;
        }
        return results;
    }

    private ConsumerFetchResult readOne(ConsumerFetch fetch, int remaining, boolean first, boolean slices) {
        TopicPartition tp = fetch.topicPartition();
        Optional<Partition> found = partitions.apply(tp);
        if (found.isEmpty()) {
            return offline.test(tp)
                    ? ConsumerFetchResult.error(Errors.KAFKA_STORAGE_ERROR, "the log dir of " + tp + " failed here", -1, -1, -1, -1)
                    : ConsumerFetchResult.error(Errors.NOT_LEADER_OR_FOLLOWER, "this broker does not host " + tp, -1, -1, -1, -1);
        }
        Partition partition = found.get();
        Optional<LeaderAndIsr> metadata = partition.metadata();
        int leaderId = metadata.map(LeaderAndIsr::leaderId).orElse(-1);
        int leaderEpoch = metadata.map(LeaderAndIsr::leaderEpoch).orElse(-1);
        Log log = partition.log();
        long hw = log.highWatermark();
        long lso = log.logStartOffset();
        if (!partition.isLeader()) {
            return ConsumerFetchResult.error(Errors.NOT_LEADER_OR_FOLLOWER, "this broker does not lead " + tp
                    + (leaderId >= 0 ? "; broker " + leaderId + " does" : "; it has no leader"), -1, -1, leaderId, leaderEpoch);
        }
        if (fetch.currentLeaderEpoch() >= 0 && fetch.currentLeaderEpoch() != leaderEpoch) {
            Errors e = fetch.currentLeaderEpoch() < leaderEpoch ? Errors.FENCED_LEADER_EPOCH : Errors.UNKNOWN_LEADER_EPOCH;
            return ConsumerFetchResult.error(e, "leader epoch " + fetch.currentLeaderEpoch() + " asked, " + leaderEpoch
                    + " here", hw, lso, leaderId, leaderEpoch);
        }
        long leo = log.logEndOffset();
        if (fetch.fetchOffset() < lso || fetch.fetchOffset() > leo) {
            partition.recordOffsetOutOfRange();
            return ConsumerFetchResult.error(Errors.OFFSET_OUT_OF_RANGE, "offset " + fetch.fetchOffset()
                    + " is outside [" + lso + ", " + hw + "] (log start offset, high watermark) of " + tp, hw, lso,
                    leaderId, leaderEpoch);
        }
        if (fetch.fetchOffset() >= hw || remaining <= 0) {
            return new ConsumerFetchResult(Errors.NONE, null, MemoryRecords.EMPTY, hw, lso, leaderId, leaderEpoch);
        }
        int readBytes = Math.max(1, Math.min(remaining, fetch.maxBytes()));
        try {
            if (slices) {
                // Handed over open: the caller sends the file bytes as they are and closes the slice.
                FetchDataInfo info = log.read(fetch.fetchOffset(), readBytes, hw, first);
                return new ConsumerFetchResult(Errors.NONE, null, MemoryRecords.EMPTY, info.highWatermark(),
                        info.logStartOffset(), leaderId, leaderEpoch, info.records());
            }
            try (FetchDataInfo info = log.read(fetch.fetchOffset(), readBytes, hw, first)) {
                return new ConsumerFetchResult(Errors.NONE, null, info.records().toMemoryRecords(), info.highWatermark(),
                        info.logStartOffset(), leaderId, leaderEpoch);
            }
        } catch (TidelineException e) {
            return ConsumerFetchResult.error(e.error(), e.getMessage(), log.highWatermark(), log.logStartOffset(),
                    leaderId, leaderEpoch);
        } catch (IOException e) {
            return ConsumerFetchResult.error(Errors.KAFKA_STORAGE_ERROR, "reading " + tp + " failed: " + e.getMessage(),
                    hw, lso, leaderId, leaderEpoch);
        }
    }
}
