package io.tideline.store.producer;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.time.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotent producers of one partition replica: for each producer id its epoch and last five
 * batches (Kafka's ProducerStateManager without transactions). The leader checks each client batch
 * against it ({@link #checkLeaderAppend}); every replica, leader or follower, adds each batch it writes
 * ({@link #update}), so a new leader knows every producer its predecessor did. The rules are
 * docs/kafka-protocol.md "Idempotent producers".
 *
 * <p>The state covers the batches below {@link #mapEndOffset()}, which follows the log end. It is
 * snapshotted beside the segments ({@link ProducerSnapshotFile}) and rebuilt on open from the newest
 * usable snapshot plus a replay of the batches after it ({@link #reload}).
 *
 * <p>Not thread-safe: the log's lock guards every call.
 */
public final class ProducerStateManager {
    private static final Logger log = LoggerFactory.getLogger(ProducerStateManager.class);

    /** Where replay finds the stored batches: every batch whose last offset is at or above {@code from}. */
    @FunctionalInterface
    public interface BatchSource {
        void replayFrom(long from, java.util.function.Consumer<BatchHeader> visitor) throws IOException;
    }

    /** producer.id.max.entries.per.partition's default (docs/behaviours.md B153). */
    public static final int MAX_PRODUCER_IDS_DEFAULT = 100_000;

    private final Path dir;
    private final TopicPartition topicPartition;
    private final Time time;
    private final TreeMap<Long, ProducerStateEntry> producers = new TreeMap<>();
    private long mapEndOffset;
    private int maxProducerIds = MAX_PRODUCER_IDS_DEFAULT;

    /** @param time the broker's clock: each entry's expiry counts from its last write by it (docs/behaviours.md B151) */
    public ProducerStateManager(Path dir, TopicPartition topicPartition, Time time) {
        this.dir = dir;
        this.topicPartition = topicPartition;
        this.time = time;
    }

    public long mapEndOffset() {
        return mapEndOffset;
    }

    public int producerCount() {
        return producers.size();
    }

    /** producer.id.max.entries.per.partition: checked on the leader only, for producer ids it does not know. */
    public void setMaxProducerIds(int maxProducerIds) {
        if (maxProducerIds < 1) {
            throw new IllegalArgumentException("producer.id.max.entries.per.partition must be at least 1: " + maxProducerIds);
        }
        this.maxProducerIds = maxProducerIds;
    }

    /** A copy of every producer's state, in producer id order. */
    public List<ProducerStateEntry> activeProducers() {
        List<ProducerStateEntry> copy = new ArrayList<>(producers.size());
        producers.values().forEach(e -> copy.add(e.copy()));
        return copy;
    }

    public Optional<ProducerStateEntry> entry(long producerId) {
        return Optional.ofNullable(producers.get(producerId)).map(ProducerStateEntry::copy);
    }

    // ---------------------------------------------------------------- leader checks

    /**
     * Checks a client's batches before the leader writes them (Kafka's rules, see the class comment of
     * docs/kafka-protocol.md "Idempotent producers"). Batches without a producer id pass untouched.
     *
     * @throws TidelineException INVALID_RECORD (an idempotent batch not alone in its partition's request,
     *                           or with a negative sequence), INVALID_TXN_STATE (a transactional batch: no
     *                           transactions are served), INVALID_PRODUCER_EPOCH (an epoch older than the
     *                           partition knows), OUT_OF_ORDER_SEQUENCE_NUMBER (a sequence that does not
     *                           follow the producer's last one, or a new epoch not starting at 0),
     *                           THROTTLING_QUOTA_EXCEEDED (a producer id the partition does not know while it
     *                           knows producer.id.max.entries.per.partition ids already)
     */
    public ProducerAppendOutcome checkLeaderAppend(List<BatchHeader> batches) {
        for (BatchHeader batch : batches) {
            if (batch.controlBatch()) {
                // Clients may not write control batches at all: the validator that runs next refuses them with
                // INVALID_RECORD, as Kafka does, whatever their transactional flag says.
                continue;
            }
            if (batch.transactional()) {
                throw new TidelineException(Errors.INVALID_TXN_STATE, "Transactional batches are not served ("
                        + topicPartition + ", producer id " + batch.producerId() + "): Tideline has no transactions");
            }
            if (batch.hasProducerId() && batches.size() != 1) {
                // Kafka's producer sends one batch per partition per request; more from one producer could not
                // be answered with one base offset if some were duplicates.
                throw new TidelineException(Errors.INVALID_RECORD, "An idempotent produce to " + topicPartition
                        + " must carry exactly one batch, got " + batches.size());
            }
        }
        BatchHeader batch = batches.get(0);
        if (!batch.hasProducerId()) {
            return ProducerAppendOutcome.APPEND;
        }
        if (batch.baseSequence() < 0) {
            throw new TidelineException(Errors.INVALID_RECORD, "Invalid sequence number " + batch.baseSequence()
                    + " in a batch of producer id " + batch.producerId() + " to " + topicPartition);
        }
        ProducerStateEntry entry = producers.get(batch.producerId());
        if (entry == null) {
            // Any producer id is taken at face value, as Kafka does; what a client can exhaust is the memory for
            // the ids, so their number is bounded, with a retriable push-back (docs/behaviours.md B153).
            if (producers.size() >= maxProducerIds) {
                throw new TidelineException(Errors.THROTTLING_QUOTA_EXCEEDED, topicPartition + " remembers "
                        + producers.size() + " producer ids, producer.id.max.entries.per.partition; producer id "
                        + batch.producerId() + " is new there and waits until one expires (producer.id.expiration.ms)");
            }
            // Kafka accepts any sequence from a producer id it has no state for (KIP-360): the state may have
            // expired (producer.id.expiration.ms) or been deleted with its segments while the producer lived.
            return ProducerAppendOutcome.APPEND;
        }
        Optional<BatchMetadata> duplicate = entry.findDuplicate(batch.producerEpoch(), batch.baseSequence(),
                batch.lastSequence());
        if (duplicate.isPresent()) {
            return ProducerAppendOutcome.duplicate(duplicate.get());
        }
        if (batch.producerEpoch() < entry.producerEpoch()) {
            throw new TidelineException(Errors.INVALID_PRODUCER_EPOCH, "Producer id " + batch.producerId() + " wrote to "
                    + topicPartition + " with epoch " + batch.producerEpoch() + ", older than its epoch "
                    + entry.producerEpoch() + " there");
        }
        if (batch.producerEpoch() > entry.producerEpoch()) {
            if (batch.baseSequence() != 0) {
                throw new TidelineException(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, "Producer id " + batch.producerId()
                        + " started epoch " + batch.producerEpoch() + " on " + topicPartition + " at sequence "
                        + batch.baseSequence() + "; a new epoch starts at 0");
            }
            return ProducerAppendOutcome.APPEND;
        }
        if (entry.lastSeq() >= 0 && !Sequences.follows(entry.lastSeq(), batch.baseSequence())) {
            throw new TidelineException(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, "Out of order sequence number for producer id "
                    + batch.producerId() + " on " + topicPartition + ": " + batch.baseSequence()
                    + " (incoming), " + entry.lastSeq() + " (last written)");
        }
        return ProducerAppendOutcome.APPEND;
    }

    // ---------------------------------------------------------------- updates

    /**
     * Adds a written batch (leader after the write, follower, replay); batches without a producer id and
     * control batches leave the state as it is. No validation: a follower trusts its leader's order.
     */
    public void update(BatchHeader batch) {
        update(batch, time.milliseconds());
    }

    private void update(BatchHeader batch, long appendTimeMs) {
        if (batch.hasProducerId() && !batch.controlBatch()) {
            producers.computeIfAbsent(batch.producerId(), id -> new ProducerStateEntry(id, batch.producerEpoch(),
                            batch.maxTimestamp()))
                    .addBatch(batch.producerEpoch(), new BatchMetadata(batch.baseSequence(), batch.lastSequence(),
                            batch.baseOffset(), batch.lastOffset(), batch.maxTimestamp()), appendTimeMs);
        }
        mapEndOffset = Math.max(mapEndOffset, batch.lastOffset() + 1);
    }

    /**
     * Forgets producer ids whose last batch this replica wrote {@code expirationMs} or more before {@code nowMs}
     * by its own clock (producer.id.expiration.ms); returns how many. Kafka counts from the batch's timestamp,
     * which a client sets: the broker's clock keeps a batch dated in the future from pinning its entry, and one
     * dated in the past from losing its retries' deduplication at once (docs/behaviours.md B151).
     */
    public int removeExpiredProducers(long nowMs, long expirationMs) {
        int before = producers.size();
        producers.values().removeIf(e -> nowMs - e.lastAppendTimeMs() >= expirationMs);
        return before - producers.size();
    }

    // ---------------------------------------------------------------- snapshots

    /** Writes the state at {@link #mapEndOffset()} as {@code <offset>.snapshot}, replacing one of that name. */
    public void takeSnapshot() throws IOException {
        ProducerSnapshotFile.write(ProducerSnapshotFile.file(dir, mapEndOffset), producers.values());
    }

    /**
     * Rebuilds the state from scratch for a log holding [logStartOffset, logEndOffset): snapshots above
     * {@code snapshotLimit} (not known to describe durable data) or above the log end are deleted; the newest
     * remaining one that reads back intact is loaded (an unusable one is reported in one WARN and deleted, and
     * the next older is tried); then the stored batches after it are replayed. Without any, everything from
     * the log start offset is replayed.
     */
    public void reload(long logStartOffset, long logEndOffset, long snapshotLimit, BatchSource source) throws IOException {
        producers.clear();
        long limit = Math.min(snapshotLimit, logEndOffset);
        TreeMap<Long, Path> snapshots = ProducerSnapshotFile.list(dir);
        for (Map.Entry<Long, Path> e : snapshots.tailMap(limit, false).entrySet()) {
            Files.deleteIfExists(e.getValue());
        }
        long from = logStartOffset;
        for (Map.Entry<Long, Path> e : snapshots.headMap(limit, true).descendingMap().entrySet()) {
            try {
                for (ProducerStateEntry entry : ProducerSnapshotFile.read(e.getValue())) {
                    producers.put(entry.producerId(), entry);
                }
                from = Math.max(e.getKey(), logStartOffset);
                break;
            } catch (ProducerSnapshotFile.CorruptSnapshotException corrupt) {
                log.warn("{}; ignoring it and rebuilding the producer state of {} from {}", corrupt.getMessage(),
                        topicPartition, "an older snapshot or the segments");
                Files.deleteIfExists(e.getValue());
                producers.clear();
            }
        }
        mapEndOffset = from;
        long replayFrom = from;
        // Neither a snapshot nor a segment records when the batches were written; the batch timestamp stands in,
        // capped at now so that a future-dated one cannot outlive the expiration counted from this reload.
        long nowMs = time.milliseconds();
        producers.values().forEach(e -> e.capAppendTime(nowMs));
        source.replayFrom(replayFrom, batch -> {
            if (batch.lastOffset() >= replayFrom) {
                update(batch, Math.min(batch.maxTimestamp(), nowMs));
            }
        });
        mapEndOffset = logEndOffset;
    }

    /** Removes every snapshot (the log restarts empty). */
    public void truncateFullyAndStartAt(long offset) throws IOException {
        producers.clear();
        for (Path p : ProducerSnapshotFile.list(dir).values()) {
            Files.deleteIfExists(p);
        }
        mapEndOffset = offset;
    }

    /**
     * Deletes the snapshots below {@code offset} (the first remaining segment's base offset after a deletion),
     * keeping the newest snapshot whatever its offset. The state in memory stays, as in Kafka: a producer whose
     * batches were deleted is still recognised until it expires.
     */
    public void deleteSnapshotsBefore(long offset) throws IOException {
        TreeMap<Long, Path> snapshots = ProducerSnapshotFile.list(dir);
        if (snapshots.isEmpty()) {
            return;
        }
        long newest = snapshots.lastKey();
        for (Map.Entry<Long, Path> e : snapshots.headMap(offset, false).entrySet()) {
            if (e.getKey() != newest) {
                Files.deleteIfExists(e.getValue());
            }
        }
    }

    public void deleteAllSnapshots() throws IOException {
        for (Path p : ProducerSnapshotFile.list(dir).values()) {
            Files.deleteIfExists(p);
        }
    }
}
