package io.tideline.store.producer;

import io.tideline.store.record.RecordBatch;

/**
 * The header fields of a stored or incoming batch that producer state is built from. Replay reads
 * them from the segment files without loading the records.
 */
public record BatchHeader(long producerId, short producerEpoch, int baseSequence, int lastOffsetDelta,
                          long baseOffset, long maxTimestamp, boolean transactional, boolean controlBatch) {
    /** The producer id of a batch written without idempotence (Kafka's NO_PRODUCER_ID). */
    public static final long NO_PRODUCER_ID = -1L;

    public boolean hasProducerId() {
        return producerId > NO_PRODUCER_ID;
    }

    public long lastOffset() {
        return baseOffset + lastOffsetDelta;
    }

    /** The header of an in-memory batch (a leader's or follower's incoming one, after offsets are set). */
    public static BatchHeader of(RecordBatch batch) {
        return new BatchHeader(batch.producerId(), batch.producerEpoch(), batch.baseSequence(), batch.lastOffsetDelta(),
                batch.baseOffset(), batch.maxTimestamp(), batch.isTransactional(), batch.isControlBatch());
    }

    public int lastSequence() {
        return Sequences.increment(baseSequence, lastOffsetDelta);
    }
}
