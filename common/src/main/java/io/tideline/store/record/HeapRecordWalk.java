package io.tideline.store.record;

import java.nio.ByteBuffer;

/**
 * The walk of {@link RecordBatch#forEachRecord} for an uncompressed batch on the heap, reading the backing array
 * directly: the leader runs it over every record it accepts, and the ByteBuffer-based decoder spends most of the
 * append's validation time in bounds checks and call overhead. It makes the same checks with the same errors as
 * {@link RecordsDecoder} (a record's fields must fill exactly its declared length, the records exactly the batch).
 */
final class HeapRecordWalk {
    private HeapRecordWalk() {
    }

    /** Walks {@code batch}, whose view {@code buffer} has an array, handing each record to {@code visitor}. */
    static void walk(RecordBatch batch, ByteBuffer buffer, RecordBatch.RecordVisitor visitor) {
        ArrayCursor in = new ArrayCursor(buffer.array(), buffer.arrayOffset() + RecordBatch.RECORDS_OFFSET,
                buffer.arrayOffset() + buffer.limit());
        int count = batch.recordCount();
        long baseTimestamp = batch.baseTimestamp();
        boolean logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
        long maxTimestamp = batch.maxTimestamp();
        for (int i = 0; i < count; i++) {
            int length = in.readVarint();
            if (in.malformed || length < 0 || length > in.end - in.pos) {
                throw RecordsDecoder.corrupt(batch, "record " + i + " declares " + length + " bytes, "
                        + (in.end - in.pos) + " remain");
            }
            int recordEnd = in.pos + length;
            in.pos++; // record attributes: unused in v2
            long timestampDelta = in.readVarlong();
            int offsetDelta = in.readVarint();
            int recordKeyLength = in.readVarint();
            boolean fieldsFit = in.skipField(recordKeyLength, recordEnd) && in.skipField(in.readVarint(), recordEnd);
            int headerCount = in.readVarint();
            for (int h = 0; h < headerCount && fieldsFit; h++) {
                int keyLength = in.readVarint();
                fieldsFit = keyLength >= 0 && in.skipField(keyLength, recordEnd) && in.skipField(in.readVarint(), recordEnd);
            }
            if (!fieldsFit || in.malformed || headerCount < 0 || in.pos != recordEnd) {
                throw RecordsDecoder.corrupt(batch, "record " + i + " is malformed: its fields do not fill exactly its "
                        + length + " bytes");
            }
            visitor.accept(offsetDelta, logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta, recordKeyLength >= 0);
        }
        if (in.pos != in.end) {
            throw RecordsDecoder.corrupt(batch, (in.end - in.pos) + " bytes follow the last of " + count + " records");
        }
    }

    /**
     * Reads zig-zag varints straight from an array; every read is checked against {@code end}. On
     * malformed input it sets {@link #malformed} (varints) or returns false (fields) and the caller throws,
     * which keeps these methods small enough to inline.
     */
    private static final class ArrayCursor {
        final byte[] a;
        final int end;
        int pos;
        boolean malformed;

        ArrayCursor(byte[] a, int pos, int end) {
            this.a = a;
            this.pos = pos;
            this.end = end;
        }

        int readVarint() {
            int p = pos;
            if (end - p >= 2) {
                int first = a[p];
                if (first >= 0) { // one byte: small deltas and counts
                    pos = p + 1;
                    return (first >>> 1) ^ -(first & 1);
                }
                int second = a[p + 1];
                if (second >= 0) { // two bytes: lengths up to 8 KiB
                    int value = (first & 0x7f) | (second << 7);
                    pos = p + 2;
                    return (value >>> 1) ^ -(value & 1);
                }
            }
            return (int) readVarlongSlow(5);
        }

        long readVarlong() {
            if (pos < end) {
                byte first = a[pos];
                if (first >= 0) {
                    pos++;
                    return (first >>> 1) ^ -(first & 1);
                }
            }
            return readVarlongSlow(10);
        }

        private long readVarlongSlow(int maxBytes) {
            long value = 0;
            for (int i = 0; i < maxBytes; i++) {
                if (pos >= end) {
                    break;
                }
                byte b = a[pos++];
                value |= (long) (b & 0x7f) << (7 * i);
                if (b >= 0) {
                    return (value >>> 1) ^ -(value & 1);
                }
            }
            malformed = true;
            return 0;
        }

        /** Skips a length-prefixed field (-1 = null); false if it does not lie within its record. */
        boolean skipField(int length, int recordEnd) {
            if (length < 0) {
                return true; // null field
            }
            if (length > recordEnd - pos) {
                return false;
            }
            pos += length;
            return true;
        }
    }
}
