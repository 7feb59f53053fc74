package io.tideline.client;

import io.tideline.client.ClusterSnapshot.Leader;
import io.tideline.client.SubscriptionState.PartitionState;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.time.Time;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchPartitionResponse;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.FetchResponse;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One fetch round: a Fetch request to each leader for the assigned partitions that have a position and
 * nothing buffered, then the answers into the buffers. Batches come whole, so records below the
 * position inside a returned batch are dropped here. Not thread-safe: runs on the consumer's thread.
 */
final class Fetcher {
    private final ConsumerConfig config;
    private final SubscriptionState subscriptions;
    private final MetadataManager metadata;
    private final BrokerChannels channels;
    private final OutOfRangeHandler outOfRange;
    private final Time time;

    Fetcher(ConsumerConfig config, SubscriptionState subscriptions, MetadataManager metadata, BrokerChannels channels,
            OutOfRangeHandler outOfRange, Time time) {
        this.config = config;
        this.subscriptions = subscriptions;
        this.metadata = metadata;
        this.channels = channels;
        this.outOfRange = outOfRange;
        this.time = time;
    }

    private record Sent(Map<TopicPartition, Long> offsets, CompletableFuture<FetchResponse> call) {
    }

    /**
     * Fetches once, waiting at most {@code maxWaitMs} at the brokers.
     *
     * @return whether any request was sent (false: nothing fetchable, e.g. every leader unknown)
     * @throws OffsetOutOfRangeException under auto.offset.reset=none, after the whole round was processed
     * @throws TidelineClientException   for a non-retriable error
     */
    boolean fetchOnce(int maxWaitMs) {
        long now = time.milliseconds();
        Map<BrokerAddress, Map<TopicPartition, Long>> byLeader = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, PartitionState> e : subscriptions.states().entrySet()) {
            PartitionState s = e.getValue();
            if (s.position == null || s.pendingReset != null || s.hasBuffer() || s.retryAtMs > now) {
                continue;
            }
            Leader leader = metadata.current().leader(e.getKey()).orElse(null);
            if (leader == null) {
                metadata.requestUpdate();
                continue;
            }
            byLeader.computeIfAbsent(leader.address(), a -> new LinkedHashMap<>()).put(e.getKey(), s.position);
        }
        Map<BrokerAddress, Sent> calls = new LinkedHashMap<>();
        byLeader.forEach((leader, offsets) -> calls.put(leader, new Sent(offsets, send(leader, offsets, maxWaitMs))));
        RuntimeException first = null;
        for (Map.Entry<BrokerAddress, Sent> call : calls.entrySet()) {
            String target = "Fetch to " + call.getKey();
            try {
                FetchResponse response = Rpc.await(call.getValue().call(),
                        maxWaitMs + config.requestTimeoutMs() + 1_000L, target);
                for (FetchPartitionResponse p : response.getPartitionsList()) {
                    try {
                        handle(p, call.getValue().offsets());
                    } catch (TidelineClientException e) {
                        first = first == null ? e : first;
                    }
                }
            } catch (TidelineClientException e) {
                if (!Rpc.retriable(e)) {
                    first = first == null ? e : first;
                }
                backOff(call.getValue().offsets().keySet());
                metadata.requestUpdate();
            }
        }
        if (first != null) {
            throw first;
        }
        return !calls.isEmpty();
    }

    private CompletableFuture<FetchResponse> send(BrokerAddress leader, Map<TopicPartition, Long> offsets,
                                                  int maxWaitMs) {
        FetchRequest.Builder request = FetchRequest.newBuilder()
                .setMaxWaitMs(maxWaitMs).setMinBytes(config.fetchMinBytes()).setMaxBytes(config.fetchMaxBytes());
        offsets.forEach((tp, offset) -> request.addPartitions(FetchPartition.newBuilder()
                .setTopic(tp.topic()).setPartition(tp.partition()).setFetchOffset(offset)
                .setPartitionMaxBytes(config.maxPartitionFetchBytes()).setCurrentLeaderEpoch(-1)));
        String target = "Fetch to " + leader;
        try {
            var stub = channels.client(leader, maxWaitMs + (long) config.requestTimeoutMs());
            return Rpc.call(target, stub::fetch, request.build());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(Rpc.transportError(target, e));
        }
    }

    private void handle(FetchPartitionResponse p, Map<TopicPartition, Long> requested) {
        TopicPartition tp = new TopicPartition(p.getTopic(), p.getPartition());
        Long fetchOffset = requested.get(tp);
        PartitionState s = subscriptions.states().get(tp);
        // An answer for a partition not asked for, or whose position moved since, is stale.
        if (fetchOffset == null || s == null || s.position == null || s.position.longValue() != fetchOffset) {
            return;
        }
        Errors error = Errors.forCode(p.getErrorCode());
        if (p.getHighWatermark() >= 0) {
            s.highWatermark = p.getHighWatermark();
        }
        if (p.getLogStartOffset() >= 0) {
            s.logStartOffset = p.getLogStartOffset();
        }
        switch (error) {
            case NONE -> buffer(tp, s, p);
            case OFFSET_OUT_OF_RANGE -> {
                if (p.getLogStartOffset() < 0 || p.getHighWatermark() < 0) {
                    // Without both bounds the policy's target is unknown: look it up as for a new partition.
                    if (config.autoOffsetReset() == OffsetResetStrategy.NONE) {
                        throw new OffsetOutOfRangeException(tp, fetchOffset, s.logStartOffset, s.highWatermark);
                    }
                    s.pendingReset = config.autoOffsetReset();
                    return;
                }
                s.position = outOfRange.onOutOfRange(tp, fetchOffset, p.getLogStartOffset(), p.getHighWatermark());
            }
            default -> {
                if (!error.retriable()) {
                    throw new TidelineClientException(error, "Fetch for " + tp + " at offset " + fetchOffset + ": "
                            + error + ": " + (p.getErrorMessage().isEmpty() ? error.defaultMessage()
                            : p.getErrorMessage()));
                }
                metadata.applyLeaderHint(tp, p.hasCurrentLeader() ? p.getCurrentLeader() : null);
                metadata.requestUpdate();
                if (error != Errors.NOT_LEADER_OR_FOLLOWER || !p.hasCurrentLeader()) {
                    s.retryAtMs = time.milliseconds() + config.retryBackoffMs();
                }
            }
        }
    }

    private void buffer(TopicPartition tp, PartitionState s, FetchPartitionResponse p) {
        if (p.getRecords().isEmpty()) {
            return;
        }
        long position = s.position;
        long upTo = position;
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(p.getRecords().toByteArray()));
        try {
            for (RecordBatch batch : records.batches()) {
                if (batch.lastOffset() < position) {
                    continue;
                }
                batch.ensureValid();
                upTo = Math.max(upTo, batch.nextOffset());
                if (batch.isControlBatch()) {
                    continue;
                }
                for (Record r : batch.records()) {
                    if (r.offset() >= position) {
                        s.buffered.addLast(new ConsumerRecord(tp.topic(), tp.partition(), r.offset(), r.timestamp(),
                                r.key(), r.value()));
                    }
                }
            }
        } catch (TidelineException e) {
            s.clearBuffer();
            throw new TidelineClientException(e.error(), "Fetch for " + tp + " at offset " + position
                    + " returned an invalid batch: " + e.getMessage(), e);
        }
        if (upTo > position) {
            s.bufferedUpTo = upTo;
        }
    }

    private void backOff(Iterable<TopicPartition> partitions) {
        long retryAt = time.milliseconds() + config.retryBackoffMs();
        for (TopicPartition tp : partitions) {
            PartitionState s = subscriptions.states().get(tp);
            if (s != null) {
                s.retryAtMs = retryAt;
            }
        }
    }
}
