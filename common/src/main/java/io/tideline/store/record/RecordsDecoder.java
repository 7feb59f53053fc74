package io.tideline.store.record;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the records of one batch for {@link RecordBatch#records()} and {@link RecordBatch#forEachRecord}: it picks
 * the walk (the heap array walk, the compressed walk, or the ByteBuffer walk here) and holds the checks they share.
 * A batch's records must parse to exactly its declared count and size, or the walk throws CORRUPT_MESSAGE naming
 * the record. Stateless.
 */
final class RecordsDecoder {
    private RecordsDecoder() {
    }

    /** Every record of {@code batch} (whose view is {@code buffer}), copied out; compressed ones inflate unbounded. */
    static List<Record> records(RecordBatch batch, ByteBuffer buffer) {
        List<Record> records = new ArrayList<>(Math.min(batch.recordCount(), 1 << 16));
        decode(batch, buffer, Long.MAX_VALUE, records, null);
        return records;
    }

    /** Hands each record to {@code visitor}; compressed records may inflate to at most {@code maxRecordsBytes}. */
    static void forEachRecord(RecordBatch batch, ByteBuffer buffer, long maxRecordsBytes,
                              RecordBatch.RecordVisitor visitor) {
        if (batch.compressionType() == CompressionType.NONE && buffer.hasArray()) {
            HeapRecordWalk.walk(batch, buffer, visitor);
        } else {
            decode(batch, buffer, maxRecordsBytes, null, visitor);
        }
    }

    static TidelineException corrupt(RecordBatch batch, String detail) {
        return new TidelineException(Errors.CORRUPT_MESSAGE, "Batch at offset " + batch.baseOffset() + ": " + detail);
    }

    /** The ByteBuffer walk: copies each record into {@code out} if it is not null, else hands it to {@code visitor}. */
    private static void decode(RecordBatch batch, ByteBuffer buffer, long maxRecordsBytes, List<Record> out,
                               RecordBatch.RecordVisitor visitor) {
        ByteBuffer payload = buffer.duplicate();
        payload.position(RecordBatch.RECORDS_OFFSET).limit(buffer.limit());
        if (batch.compressionType() != CompressionType.NONE) {
            CompressedRecordWalk.walk(batch, payload, maxRecordsBytes, out, visitor);
            return;
        }
        boolean materialise = out != null;
        int count = batch.recordCount();
        long base = batch.baseOffset();
        long baseTimestamp = batch.baseTimestamp();
        boolean logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
        long maxTimestamp = batch.maxTimestamp();
        try {
            for (int i = 0; i < count; i++) {
                int length = Varint.readVarint(payload);
                if (length < 0 || length > payload.remaining()) {
                    throw corrupt(batch, "record " + i + " declares " + length + " bytes, " + payload.remaining() + " remain");
                }
                int end = payload.position() + length;
                payload.get(); // record attributes: unused in v2
                long timestampDelta = Varint.readVarlong(payload);
                int offsetDelta = Varint.readVarint(payload);
                int recordKeyLength = Varint.readVarint(payload);
                byte[] key = readBytes(payload, recordKeyLength, end, materialise);
                byte[] value = readBytes(payload, Varint.readVarint(payload), end, materialise);
                int headerCount = Varint.readVarint(payload);
                if (headerCount < 0) {
                    throw corrupt(batch, "record " + i + " has a negative header count");
                }
                List<Header> headers = materialise ? new ArrayList<>(Math.min(headerCount, 64)) : null;
                for (int h = 0; h < headerCount; h++) {
                    int keyLength = Varint.readVarint(payload);
                    if (keyLength < 0) {
                        throw corrupt(batch, "record " + i + " has a null header key");
                    }
                    byte[] hk = readBytes(payload, keyLength, end, materialise);
                    byte[] hv = readBytes(payload, Varint.readVarint(payload), end, materialise);
                    if (materialise) {
                        headers.add(new Header(new String(hk, java.nio.charset.StandardCharsets.UTF_8), hv));
                    }
                }
                if (payload.position() != end) {
                    throw corrupt(batch, "record " + i + " length does not match its fields");
                }
                long timestamp = logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
                if (materialise) {
                    out.add(new Record(base + offsetDelta, timestamp, key, value, headers));
                } else {
                    visitor.accept(offsetDelta, timestamp, recordKeyLength >= 0);
                }
            }
        } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
            throw corrupt(batch, "records are truncated or malformed (" + e.getMessage() + ")");
        }
        if (payload.hasRemaining()) {
            throw corrupt(batch, payload.remaining() + " bytes follow the last of " + count + " records");
        }
    }

    /** The field's bytes, or null for a null field; with {@code copy} false the field is only skipped. */
    private static byte[] readBytes(ByteBuffer payload, int length, int recordEnd, boolean copy) {
        if (length < 0) {
            return null;
        }
        if (payload.position() + length > recordEnd) {
            throw new IllegalArgumentException("field of " + length + " bytes overruns its record");
        }
        if (!copy) {
            payload.position(payload.position() + length);
            return null;
        }
        byte[] bytes = new byte[length];
        payload.get(bytes);
        return bytes;
    }
}
