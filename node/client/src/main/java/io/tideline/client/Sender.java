package io.tideline.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.proto.client.InitProducerIdRequest;
import io.tideline.proto.client.InitProducerIdResponse;
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
 *
 * <p>With idempotence it first takes a producer id (InitProducerId, on this thread, before anything is drained),
 * and again to bump the epoch after a sequenced batch failed for good (docs/client.md, "Idempotence").
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
    /** Null without idempotence. */
    private final ProducerIdempotence idempotence;
    private long lastInitProducerIdMs = Long.MIN_VALUE / 2;

    Sender(ProducerConfig config, RecordAccumulator accumulator, MetadataManager metadata, BrokerChannels channels,
           Set<String> topics, Time time) {
        this(config, accumulator, metadata, channels, topics, time, null);
    }

    Sender(ProducerConfig config, RecordAccumulator accumulator, MetadataManager metadata, BrokerChannels channels,
           Set<String> topics, Time time, ProducerIdempotence idempotence) {
        this.idempotence = idempotence;
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
            if (idempotence != null && batch.hasSequence()) {
                failSequenced(batch, expiredError(batch, now), false);
            } else {
                batch.fail(expiredError(batch, now));
            }
        }
        if (idempotence != null && idempotence.needsInitProducerId() && accumulator.hasIncomplete()) {
            if (now - lastInitProducerIdMs >= config.retryBackoffMs()) {
                lastInitProducerIdMs = now;
                initProducerId();
            } else {
                accumulator.awaitWork(lastInitProducerIdMs + config.retryBackoffMs() - now);
                return;
            }
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
        if (idempotence != null && idempotence.needsInitProducerId()) {
            // Nothing new drains until InitProducerId succeeds: try again after the backoff, not after a long wait.
            wait = Math.min(wait, config.retryBackoffMs());
        }
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

    /**
     * Kafka's InitProducerId over gRPC: a new id, or with the current one an epoch bump. Any broker answers; a
     * failure is tried again after retry.backoff.ms while batches wait (their delivery.timeout.ms still runs).
     */
    private void initProducerId() {
        boolean bump = idempotence.hasProducerId();
        InitProducerIdRequest request = InitProducerIdRequest.newBuilder()
                .setProducerId(bump ? idempotence.producerId() : -1)
                .setProducerEpoch(bump ? idempotence.epoch() : -1).build();
        for (BrokerAddress address : metadata.candidates()) {
            String target = "InitProducerId to " + address;
            try {
                var stub = channels.client(address, config.requestTimeoutMs());
                InitProducerIdResponse response = Rpc.await(Rpc.call(target, stub::initProducerId, request),
                        config.requestTimeoutMs() + 1_000L, target);
                metadata.brokerAnswered();
                Errors error = Errors.forCode(response.getErrorCode());
                if (error != Errors.NONE) {
                    log.info("{} answered {}; trying again in {} ms", target, error, config.retryBackoffMs());
                    return;
                }
                idempotence.setProducerIdAndEpoch(response.getProducerId(), (short) response.getProducerEpoch());
                log.info("producer id {} epoch {}{}", response.getProducerId(), response.getProducerEpoch(),
                        bump ? " (epoch bump after a failed batch: every partition restarts at sequence 0)" : "");
                accumulator.wakeup();
                return;
            } catch (TidelineClientException e) {
                log.debug("{} failed: {}", target, e.getMessage());
            }
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
            partitions.values().forEach(batches -> {
                if (idempotence != null) {
                    batches.forEach(b -> onIdempotentError(b, cause, retriable, null, now));
                } else {
                    onError(batches, cause, retriable, null, now);
                }
            });
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
            if (idempotence != null) {
                // One batch per partition and request with idempotence.
                ProducerBatch batch = batches.get(0);
                if (code == Errors.NONE || code == Errors.DUPLICATE_SEQUENCE_NUMBER) {
                    // DUPLICATE_SEQUENCE_NUMBER: written before, offset unknown (Kafka's producer does the same).
                    batch.complete(code == Errors.NONE ? answer.getBaseOffset() : -1);
                    idempotence.acknowledged(batch);
                    accumulator.completed(batch);
                } else {
                    String message = answer.getErrorMessage().isEmpty() ? code.defaultMessage() : answer.getErrorMessage();
                    onIdempotentError(batch, new TidelineClientException(code, tp + ": " + code + ": " + message),
                            code.retriable(), answer.hasCurrentLeader() ? answer.getCurrentLeader() : null, now);
                }
                return;
            }
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

    /**
     * A sequenced batch failed. OUT_OF_ORDER_SEQUENCE_NUMBER for a batch sent while an earlier one of its partition
     * was unresolved means it overtook that one (two requests of one connection may be served concurrently):
     * retried after it, alone, where the same answer is conclusive. Any other failure is retried
     * as without idempotence, or, when final, fails the batch and those after it ({@link #failSequenced}).
     */
    private void onIdempotentError(ProducerBatch batch, TidelineClientException error, boolean retriable, LeaderHint hint,
                                   long now) {
        if (batch.doomed != null) {
            batch.lastError = error;
            failSequenced(batch, batch.doomed, true);
            return;
        }
        boolean overtook = error.error() == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER && !batch.sentAsFirst;
        // An overtaking batch did nothing wrong and the leader is fine: it goes again as soon as the batches
        // before it are answered (the accumulator holds it until then), without retry.backoff.ms.
        onError(List.of(batch), error, retriable || overtook, !overtook, hint, now);
    }

    /**
     * A sequenced batch failed for good: the leader will not take a later sequence of its partition past the hole,
     * so the partition's later sequenced batches fail with OUT_OF_ORDER_SEQUENCE_NUMBER, in order (those in flight
     * when their answer comes, unless it is a success), and the producer bumps its epoch once every batch of the
     * old epoch is resolved, restarting each partition at sequence 0. What failed this way was not written, unless
     * the first failure was a lost answer past delivery.timeout.ms.
     *
     * @param inFlight whether the batch is in flight (else the accumulator has let it go already)
     */
    private void failSequenced(ProducerBatch batch, RuntimeException failure, boolean inFlight) {
        // Before any future completes: a record sent from a callback (or right after a join) must not be sequenced
        // under the old epoch, past the hole.
        if (!idempotence.bumpRequired()) {
            log.warn("a batch of producer id {} epoch {} to {} failed for good ({}); bumping the epoch once the "
                    + "batches in flight are answered", batch.producerId, batch.producerEpoch, batch.tp, failure.getMessage());
        }
        idempotence.requestBump();
        batch.fail(failure);
        idempotence.resolved(batch);
        if (inFlight) {
            accumulator.completed(batch);
        }
        List<ProducerBatch> later = idempotence.unresolvedAfter(batch);
        if (!later.isEmpty()) {
            TidelineClientException cause = new TidelineClientException(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, batch.tp
                    + ": an earlier batch of this partition (sequence " + batch.baseSequence + ", epoch "
                    + batch.producerEpoch + ") failed, so this one cannot be written after it: " + failure.getMessage(),
                    failure);
            List<ProducerBatch> queued = accumulator.removeQueued(later);
            for (ProducerBatch b : later) {
                if (queued.contains(b)) {
                    b.fail(cause);
                    idempotence.resolved(b);
                } else {
                    b.doomed = cause;
                }
            }
            // removeQueued signalled the network thread before these were resolved: it may have looked for a bump
            // in between, found one unresolved, and gone to sleep for up to delivery.timeout.ms. Resolving them is
            // what makes the bump due, so it must be signalled after, or a record waits out its delivery timeout.
            accumulator.wakeup();
        }
    }

    /** The batches of one partition sent together failed together: retry them all in order, or fail them. */
    private void onError(List<ProducerBatch> batches, TidelineClientException error, boolean retriable,
                         LeaderHint hint, long now) {
        onError(batches, error, retriable, true, hint, now);
    }

    /** @param backoff whether a retry waits retry.backoff.ms */
    private void onError(List<ProducerBatch> batches, TidelineClientException error, boolean retriable,
                         boolean backoff, LeaderHint hint, long now) {
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
            accumulator.reenqueue(retry, backoff ? now + config.retryBackoffMs() : now);
        }
        for (ProducerBatch batch : failed) {
            RuntimeException failure = retriable && now - batch.createdMs >= config.deliveryTimeoutMs()
                    ? expiredError(batch, now) : error;
            log.warn("failed to deliver {} record(s) to {}: {}", batch.recordCount(), batch.tp, failure.getMessage());
            if (idempotence != null && batch.hasSequence()) {
                failSequenced(batch, failure, true);
                continue;
            }
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
