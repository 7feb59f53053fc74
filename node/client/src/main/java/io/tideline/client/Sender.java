package io.tideline.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.proto.client.LeaderHint;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer's network thread: expires batches past delivery.timeout.ms, refreshes metadata when a
 * leader is unknown or moved, drains ready batches into one Produce request per leader, and turns the
 * answers into completed futures, retries (back to the head of the queue after retry.backoff.ms) or
 * failures. Answers arrive on gRPC threads; everything they touch is the accumulator (locked) or the
 * batch they own.
 */
final class Sender implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Sender.class);

    private final ProducerConfig config;
    private final RecordAccumulator accumulator;
    private final MetadataManager metadata;
    private final BrokerChannels channels;
    private final Set<String> topics;
    private final Time time;
    private volatile boolean running = true;
    private volatile boolean forceClose;
    private long lastRefreshMs = Long.MIN_VALUE / 2;

    Sender(ProducerConfig config, RecordAccumulator accumulator, MetadataManager metadata, BrokerChannels channels,
           Set<String> topics, Time time) {
        this.config = config;
        this.accumulator = accumulator;
        this.metadata = metadata;
        this.channels = channels;
        this.topics = topics;
        this.time = time;
    }

    @Override
    public void run() {
        try {
            while (running) {
                runOnce();
            }
            // close(): send what is queued, wait for what is in flight.
            while (!forceClose && accumulator.hasIncomplete()) {
                runOnce();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.error("producer network thread failed; failing every record not yet answered", e);
            forceClose = true;
        }
        if (forceClose) {
            TidelineClientException closed = new TidelineClientException(Errors.BROKER_NOT_AVAILABLE,
                    "The producer was closed before these records were acknowledged");
            accumulator.abortIncomplete().forEach(b -> b.fail(closed));
        }
    }

    void initiateClose() {
        running = false;
        accumulator.beginClose();
    }

    void forceClose() {
        forceClose = true;
        running = false;
        accumulator.wakeup();
    }

    void runOnce() throws InterruptedException {
        long now = time.milliseconds();
        for (ProducerBatch batch : accumulator.expire(now, config.deliveryTimeoutMs())) {
            batch.fail(expiredError(batch, now));
        }
        RecordAccumulator.Drained drained = accumulator.drain(now, metadata.current(), config.maxRequestSize());
        long wait = drained.nextCheckDelayMs();
        if (drained.leaderUnknown() || metadata.updateRequested()) {
            if (now - lastRefreshMs >= config.retryBackoffMs()) {
                lastRefreshMs = now;
                refreshMetadata();
                wait = 0;
            } else {
                wait = Math.min(wait, lastRefreshMs + config.retryBackoffMs() - now);
            }
        }
        drained.byLeader().forEach((leader, partitions) -> send(leader, partitions, now));
        // Expiry is checked on every turn; a queued batch must not outlive its deadline by a long wait.
        wait = Math.min(wait, config.deliveryTimeoutMs());
        accumulator.awaitWork(Math.max(0, wait));
    }

    private void refreshMetadata() {
        try {
            metadata.refresh(Set.copyOf(topics));
        } catch (TidelineClientException e) {
            log.debug("metadata refresh failed, retrying in {} ms: {}", config.retryBackoffMs(), e.getMessage());
        }
    }

    private void send(BrokerAddress leader, Map<TopicPartition, List<ProducerBatch>> partitions, long now) {
        ProduceRequest.Builder request = ProduceRequest.newBuilder()
                .setAcks(config.acks()).setTimeoutMs(config.requestTimeoutMs());
        partitions.forEach((tp, batches) -> {
            // The batches of a partition travel back to back in one records field; each is built once and
            // never modified (the leader stamps offsets into its own copy), so it is wrapped, not copied.
            ByteString records = ByteString.EMPTY;
            for (ProducerBatch batch : batches) {
                records = records.concat(UnsafeByteOperations.unsafeWrap(batch.toRecords().buffer()));
            }
            request.addPartitions(ProducePartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
                    .setRecords(records));
        });
        String target = "Produce to " + leader;
        CompletableFuture<ProduceResponse> call;
        try {
            var stub = channels.client(leader, config.requestTimeoutMs());
            call = Rpc.call(target, stub::produce, request.build());
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(Rpc.transportError(target, e));
        }
        if (config.acks() == 0) {
            // Nobody waits for the leader; the answer only unmutes the partitions (keeping the order).
            partitions.values().forEach(batches -> batches.forEach(b -> b.complete(-1)));
        }
        call.whenComplete((response, error) -> handle(partitions, response, error));
    }

    private void handle(Map<TopicPartition, List<ProducerBatch>> partitions, ProduceResponse response, Throwable error) {
        long now = time.milliseconds();
        if (config.acks() == 0) {
            partitions.values().forEach(batches -> batches.forEach(accumulator::completed));
            return;
        }
        if (error != null) {
            TidelineClientException cause = Rpc.transportError("Produce", Rpc.unwrap(error));
            boolean retriable = Rpc.retriable(cause);
            partitions.values().forEach(batches -> onError(batches, cause, retriable, null, now));
            return;
        }
        Map<TopicPartition, ProducePartitionResponse> answers = new HashMap<>();
        for (ProducePartitionResponse p : response.getPartitionsList()) {
            answers.put(new TopicPartition(p.getTopic(), p.getPartition()), p);
        }
        partitions.forEach((tp, batches) -> {
            ProducePartitionResponse answer = answers.get(tp);
            if (answer == null) {
                onError(batches, new TidelineClientException(Errors.UNKNOWN_SERVER_ERROR,
                        tp + ": the Produce answer does not mention this partition"), false, null, now);
                return;
            }
            Errors code = Errors.forCode(answer.getErrorCode());
            if (code == Errors.NONE) {
                // The leader appended the batches together: they hold consecutive offsets from the base.
                long base = answer.getBaseOffset();
                // Each batch's futures (and so the callbacks on them) complete before the accumulator lets it go:
                // close() returns once nothing is incomplete, and a caller that reads what its callbacks counted
                // after close() must find every record counted, as with Kafka's producer.
                for (ProducerBatch batch : batches) {
                    batch.complete(base);
                    accumulator.completed(batch);
                    base += batch.recordCount();
                }
            } else {
                String message = answer.getErrorMessage().isEmpty() ? code.defaultMessage() : answer.getErrorMessage();
                onError(batches, new TidelineClientException(code, tp + ": " + code + ": " + message),
                        code.retriable(), answer.hasCurrentLeader() ? answer.getCurrentLeader() : null, now);
            }
        });
    }

    /** The batches of one partition sent together failed together: retry them all in order, or fail them. */
    private void onError(List<ProducerBatch> batches, TidelineClientException error, boolean retriable,
                         LeaderHint hint, long now) {
        ProducerBatch first = batches.get(0);
        List<ProducerBatch> retry = new ArrayList<>();
        List<ProducerBatch> failed = new ArrayList<>();
        for (ProducerBatch batch : batches) {
            batch.lastError = error;
            boolean inTime = now - batch.createdMs < config.deliveryTimeoutMs();
            (retriable && inTime && batch.attempts <= config.retries() && !forceClose ? retry : failed).add(batch);
        }
        if (!retry.isEmpty()) {
            if (needsMetadata(error.error())) {
                metadata.applyLeaderHint(first.tp, hint);
                metadata.requestUpdate();
            }
            log.debug("retrying {} batch(es) for {} (attempt {}): {}", retry.size(), first.tp, first.attempts + 1,
                    error.getMessage());
            // Back at the head of the queue before the partition is unmuted by a failed batch below, so that
            // nothing queued after them can overtake them.
            accumulator.reenqueue(retry, now + config.retryBackoffMs());
        }
        for (ProducerBatch batch : failed) {
            RuntimeException failure = retriable && now - batch.createdMs >= config.deliveryTimeoutMs()
                    ? expiredError(batch, now) : error;
            log.warn("failed to deliver {} record(s) to {}: {}", batch.recordCount(), batch.tp, failure.getMessage());
            batch.fail(failure);
            accumulator.completed(batch);
        }
    }

    /** The leader may have moved (or the topic just appeared): the leader's own overload errors need no refresh. */
    private static boolean needsMetadata(Errors error) {
        return error != Errors.NOT_ENOUGH_REPLICAS && error != Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
    }

    private TidelineClientException expiredError(ProducerBatch batch, long now) {
        String last = batch.lastError == null ? "" : "; last error: " + batch.lastError.getMessage();
        return new TidelineClientException(Errors.REQUEST_TIMED_OUT, "Expiring " + batch.recordCount()
                + " record(s) for " + batch.tp + ": " + (now - batch.createdMs) + " ms has passed since batch creation "
                + "(delivery.timeout.ms=" + config.deliveryTimeoutMs() + ")" + last, batch.lastError);
    }
}
