package io.tideline.store.producer;

/**
 * What the producer state remembers of one idempotent batch: its sequence range, the offsets it was
 * written at and its max timestamp. A retry of the batch is recognised by (epoch, firstSeq, lastSeq)
 * and answered with these offsets.
 */
public record BatchMetadata(int firstSeq, int lastSeq, long firstOffset, long lastOffset, long timestamp) {
}
