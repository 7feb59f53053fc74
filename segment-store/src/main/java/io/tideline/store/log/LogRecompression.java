package io.tideline.store.log;

import io.tideline.store.config.LogConfig;
import io.tideline.store.record.BatchRecompressor;
import io.tideline.store.record.CompressionType;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;

/**
 * The leader's choice of codec for what it stores (docs/behaviours.md B210-B212): compression.type {@code producer}
 * keeps each batch's own codec, {@code uncompressed} stores codec none, and a codec name stores that codec. A batch
 * whose codec differs from the target is re-encoded by {@link BatchRecompressor}, one batch for one batch, so each
 * keeps its producer id, epoch and sequences for the idempotence checks. It runs on the leader path after the walk
 * and outside the locks (B122); followers store the leader's bytes as fetched. Stateless.
 */
final class LogRecompression {
    private LogRecompression() {
    }

    /** The codec {@code source} is stored with under compression.type {@code compressionType} (B210). */
    static CompressionType targetCodec(String compressionType, CompressionType source) {
        return switch (compressionType) {
            case LogConfig.COMPRESSION_TYPE_PRODUCER -> source;
            case LogConfig.COMPRESSION_TYPE_UNCOMPRESSED -> CompressionType.NONE;
            default -> codecNamed(compressionType);
        };
    }

    /**
     * {@code validated} with every batch in the topic's codec: the same object when none needs re-encoding, else
     * new records (and batches on them) in the same order, whose walk results still apply (the records are the same).
     */
    static ValidatedRecords toTopicCodec(ValidatedRecords validated, LogConfig config) {
        String compressionType = config.compressionType();
        // An append a record rule refuses is not worth re-encoding, and its refusal comes first (B216).
        if (LogConfig.COMPRESSION_TYPE_PRODUCER.equals(compressionType)
                || validated.walked.stream().anyMatch(LogValidator.RecordChecks::violated)) {
            return validated;
        }
        long maxRecordsBytes = Math.max(0, config.maxMessageBytes() - RecordBatch.RECORDS_OFFSET);
        int maxBatchBytes = Math.min(config.maxMessageBytes(), config.segmentBytes());
        // What the re-encoded batches of one append may add to the request's own bytes, all batches together
        // (B212): a request of many small batches that each inflate far must not hold many times the request.
        long growthLeft = config.maxMessageBytes();
        RecordBatch[] stored = new RecordBatch[validated.batches.size()];
        boolean changed = false;
        for (int i = 0; i < stored.length; i++) {
            RecordBatch batch = validated.batches.get(i);
            CompressionType target = targetCodec(compressionType, batch.compressionType());
            // A control batch is refused whole later (clients may not write one): not worth re-encoding (B214).
            if (target == batch.compressionType() || batch.isControlBatch()) {
                stored[i] = batch;
                continue;
            }
            long requestBound = batch.sizeInBytes() + growthLeft;
            if (requestBound < maxBatchBytes) {
                stored[i] = BatchRecompressor.recompress(batch, target, maxRecordsBytes, (int) requestBound,
                        "which would put the request's re-encoded batches more than max.message.bytes ("
                                + config.maxMessageBytes() + ") above its own " + validated.records.sizeInBytes());
            } else {
                stored[i] = BatchRecompressor.recompress(batch, target, maxRecordsBytes, maxBatchBytes,
                        "the most max.message.bytes (" + config.maxMessageBytes() + ") and segment.bytes ("
                                + config.segmentBytes() + ") allow");
            }
            growthLeft -= Math.max(0, stored[i].sizeInBytes() - batch.sizeInBytes());
            changed = true;
        }
        if (!changed) {
            return validated;
        }
        MemoryRecords records = MemoryRecords.of(stored);
        return new ValidatedRecords(records, records.batches(), validated.walked);
    }

    private static CompressionType codecNamed(String label) {
        for (CompressionType type : CompressionType.values()) {
            if (type.label.equals(label)) {
                return type;
            }
        }
        // LogConfig's validator admits only the names above; a new one needs a codec here first.
        throw new IllegalArgumentException("compression.type " + label + " names no codec");
    }
}
