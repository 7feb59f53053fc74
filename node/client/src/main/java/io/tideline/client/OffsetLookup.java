package io.tideline.client;

import io.tideline.client.ClusterSnapshot.Leader;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.proto.client.ListOffsetsPartition;
import io.tideline.proto.client.ListOffsetsPartitionResponse;
import io.tideline.proto.client.ListOffsetsRequest;
import io.tideline.proto.client.ListOffsetsResponse;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * ListOffsets for a set of partitions, each asked of its leader, retried on leader moves and
 * unreachable brokers until a deadline. Used for the earliest (log start offset, timestamp -2) and
 * latest (high watermark, -1) positions. Not thread-safe: one consumer thread uses it.
 */
final class OffsetLookup {
    static final long EARLIEST = -2L;
    static final long LATEST = -1L;

    private final MetadataManager metadata;
    private final BrokerChannels channels;
    private final Time time;
    private final int requestTimeoutMs;
    private final long retryBackoffMs;

    OffsetLookup(MetadataManager metadata, BrokerChannels channels, Time time, int requestTimeoutMs,
                 long retryBackoffMs) {
        this.metadata = metadata;
        this.channels = channels;
        this.time = time;
        this.requestTimeoutMs = requestTimeoutMs;
        this.retryBackoffMs = retryBackoffMs;
    }

    /**
     * The offsets for {@code queries} (partition to -2, -1 or a timestamp), as many as could be resolved
     * before {@code deadlineMs}; at least one round is tried even when the deadline has passed.
     *
     * @throws BootstrapException no broker reached yet, and none of bootstrap.servers accepted a connection
     * @throws TidelineClientException for a non-retriable error (the first one seen)
     */
    Map<TopicPartition, Long> lookup(Map<TopicPartition, Long> queries, long deadlineMs, Set<String> topics) {
        Map<TopicPartition, Long> remaining = new LinkedHashMap<>(queries);
        Map<TopicPartition, Long> found = new HashMap<>();
        boolean first = true;
        while (!remaining.isEmpty() && (first || time.milliseconds() < deadlineMs)) {
            if (!first) {
                time.sleep(Math.max(1, Math.min(retryBackoffMs, deadlineMs - time.milliseconds())));
            }
            first = false;
            if (metadata.updateRequested() || remaining.keySet().stream().anyMatch(
                    tp -> metadata.current().leader(tp).isEmpty())) {
                try {
                    metadata.refresh(topics);
                } catch (BootstrapException e) {
                    throw e;
                } catch (TidelineClientException e) {
                    continue;
                }
            }
            Map<BrokerAddress, Map<TopicPartition, Long>> byLeader = new LinkedHashMap<>();
            for (Map.Entry<TopicPartition, Long> e : remaining.entrySet()) {
                Leader leader = metadata.current().leader(e.getKey()).orElse(null);
                if (leader != null) {
                    byLeader.computeIfAbsent(leader.address(), a -> new LinkedHashMap<>()).put(e.getKey(), e.getValue());
                }
            }
            Map<BrokerAddress, CompletableFuture<ListOffsetsResponse>> calls = new LinkedHashMap<>();
            byLeader.forEach((leader, parts) -> calls.put(leader, send(leader, parts)));
            for (Map.Entry<BrokerAddress, CompletableFuture<ListOffsetsResponse>> call : calls.entrySet()) {
                String target = "ListOffsets to " + call.getKey();
                ListOffsetsResponse response;
                try {
                    response = Rpc.await(call.getValue(), requestTimeoutMs + 1_000L, target);
                } catch (TidelineClientException e) {
                    if (!Rpc.retriable(e)) {
                        throw e;
                    }
                    metadata.requestUpdate();
                    continue;
                }
                for (ListOffsetsPartitionResponse p : response.getPartitionsList()) {
                    TopicPartition tp = new TopicPartition(p.getTopic(), p.getPartition());
                    Errors error = Errors.forCode(p.getErrorCode());
                    if (error == Errors.NONE) {
                        found.put(tp, p.getOffset());
                        remaining.remove(tp);
                    } else if (error.retriable()) {
                        metadata.applyLeaderHint(tp, p.hasCurrentLeader() ? p.getCurrentLeader() : null);
                        metadata.requestUpdate();
                    } else {
                        throw new TidelineClientException(error, "ListOffsets for " + tp + ": " + error + ": "
                                + (p.getErrorMessage().isEmpty() ? error.defaultMessage() : p.getErrorMessage()));
                    }
                }
            }
        }
        return found;
    }

    private CompletableFuture<ListOffsetsResponse> send(BrokerAddress leader, Map<TopicPartition, Long> parts) {
        ListOffsetsRequest.Builder request = ListOffsetsRequest.newBuilder();
        parts.forEach((tp, ts) -> request.addPartitions(ListOffsetsPartition.newBuilder()
                .setTopic(tp.topic()).setPartition(tp.partition()).setTimestamp(ts)));
        String target = "ListOffsets to " + leader;
        try {
            var stub = channels.client(leader, requestTimeoutMs);
            return Rpc.call(target, stub::listOffsets, request.build());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(Rpc.transportError(target, e));
        }
    }
}
