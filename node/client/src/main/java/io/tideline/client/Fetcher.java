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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fetches for the assigned partitions, at most one request in flight per leader, as Kafka's consumer
 * does: {@link #sendFetches} asks each leader without a request in flight for its partitions that have a
 * position and nothing buffered, and {@link #collect} puts the answers into the buffers. The consumer
 * sends the next fetches as soon as it hands out the last buffered records of a partition, so the
 * application works on one answer while the next is on its way. Batches come whole, so records below
 * the position inside a returned batch are dropped here. Not thread-safe: runs on the consumer's thread.
 */
final class Fetcher {
    private final ConsumerConfig config;
    private final SubscriptionState subscriptions;
    private final MetadataManager metadata;
    private final BrokerChannels channels;
    private final OutOfRangeHandler outOfRange;
    private final Time time;
    /** The request in flight to each leader, with the offsets it asked for. */
    private final Map<BrokerAddress, Sent> inFlight = new LinkedHashMap<>();

    Fetcher(ConsumerConfig config, SubscriptionState subscriptions, MetadataManager metadata, BrokerChannels channels,
            OutOfRangeHandler outOfRange, Time time) {
        this.config = config;
        this.subscriptions = subscriptions;
        this.metadata = metadata;
        this.channels = channels;
        this.outOfRange = outOfRange;
        this.time = time;
    }

    private record Sent(Map<TopicPartition, Long> offsets, Map<TopicPartition, Integer> seekEpochs,
                        CompletableFuture<FetchResponse> call, long deadlineMs) {
    }

    /**
     * Sends a fetch, waiting at most {@code maxWaitMs} at the broker, to each leader that has fetchable
     * partitions and no request in flight.
     *
     * @return how many requests are in flight now (0: nothing fetchable, e.g. every leader unknown)
     */
    int sendFetches(int maxWaitMs) {
        long now = time.milliseconds();
        Map<BrokerAddress, Map<TopicPartition, Long>> byLeader = new LinkedHashMap<>();
        Map<TopicPartition, Integer> epochs = new LinkedHashMap<>();
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
            if (!inFlight.containsKey(leader.address())) {
                byLeader.computeIfAbsent(leader.address(), a -> new LinkedHashMap<>()).put(e.getKey(), s.position);
                epochs.put(e.getKey(), s.seekEpoch);
            }
        }
        long deadline = now + maxWaitMs + config.requestTimeoutMs() + 1_000L;
        byLeader.forEach((leader, offsets) -> inFlight.put(leader, new Sent(offsets, epochs,
                send(leader, offsets, maxWaitMs), deadline)));
        return inFlight.size();
    }

    /**
     * Puts every answer that arrived into the buffers; when none has yet, waits up to {@code maxWaitMs}
     * for the first. A request past its deadline fails as REQUEST_TIMED_OUT and its partitions back off.
     *
     * @throws OffsetOutOfRangeException under auto.offset.reset=none, after every answer at hand was processed
     * @throws TidelineClientException   for a non-retriable error
     */
    void collect(long maxWaitMs) {
        if (inFlight.isEmpty()) {
            return;
        }
        if (inFlight.values().stream().noneMatch(sent -> sent.call().isDone()) && maxWaitMs > 0) {
            long earliestDeadline = inFlight.values().stream().mapToLong(Sent::deadlineMs).min().orElseThrow();
            long wait = Math.max(0, Math.min(maxWaitMs, earliestDeadline - time.milliseconds()));
            try {
                CompletableFuture.anyOf(inFlight.values().stream().map(Sent::call).toArray(CompletableFuture[]::new))
                        .get(wait, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (TimeoutException | ExecutionException e) {
                // Nothing answered yet, or an answer failed: both are looked at below.
            }
        }
        RuntimeException first = null;
        long now = time.milliseconds();
        for (Iterator<Map.Entry<BrokerAddress, Sent>> it = inFlight.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<BrokerAddress, Sent> call = it.next();
            Sent sent = call.getValue();
            String target = "Fetch to " + call.getKey();
            if (!sent.call().isDone() && now < sent.deadlineMs()) {
                continue;
            }
            it.remove();
            try {
                FetchResponse response = Rpc.await(sent.call(), 0, target);
                for (FetchPartitionResponse p : response.getPartitionsList()) {
                    try {
                        handle(p, sent);
                    } catch (TidelineClientException e) {
                        first = first == null ? e : first;
                    }
                }
            } catch (TidelineClientException e) {
                if (!Rpc.retriable(e)) {
                    first = first == null ? e : first;
                }
                backOff(sent.offsets().keySet());
                metadata.requestUpdate();
            }
        }
        if (first != null) {
            throw first;
        }
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

    private void handle(FetchPartitionResponse p, Sent sent) {
        TopicPartition tp = new TopicPartition(p.getTopic(), p.getPartition());
        Long fetchOffset = sent.offsets().get(tp);
        PartitionState s = subscriptions.states().get(tp);
        // An answer for a partition not asked for, sought or reset since (even to the same offset: records
        // come from a fetch made after the seek), or whose position moved, is stale.
        if (fetchOffset == null || s == null || s.position == null || s.position.longValue() != fetchOffset
                || s.seekEpoch != sent.seekEpochs().get(tp) || s.pendingReset != null || s.hasBuffer()) {
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
        // A view of the answer's bytes: records are decoded out of it, nothing writes to it.
        MemoryRecords records = MemoryRecords.readableRecords(p.getRecords().asReadOnlyByteBuffer());
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
                TimestampType timestampType =
                        batch.timestampType() == io.tideline.store.record.TimestampType.LOG_APPEND_TIME
                                ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
                for (Record r : batch.records()) {
                    if (r.offset() >= position) {
                        s.buffered.addLast(new ConsumerRecord(tp.topic(), tp.partition(), r.offset(), r.timestamp(),
                                timestampType, r.key(), r.value()));
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
