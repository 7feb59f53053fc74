package io.tideline.store.record;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Walks the records of a compressed batch as they inflate, never holding more than one read chunk of them
 * (plus, when materialising, the record being copied). Every inflated byte is counted and the walk stops at
 * {@code maxRecordsBytes}: a batch whose records inflate past it fails with MESSAGE_TOO_LARGE, and so does a
 * record whose declared length exceeds what remains of the bound; malformed or truncated data fails with
 * CORRUPT_MESSAGE (B120, B121). A length read from the data is bounded by what remains of its record, and the
 * record's by what remains of the bound, before anything is sized by it. Not thread-safe; one walk per call.
 */
final class CompressedRecordWalk {
    private static final int CHUNK = 8 * 1024;
    /** A field longer than this is copied as its bytes arrive rather than into an array of its declared length. */
    private static final int EAGER_FIELD = 64 * 1024;

    private final RecordBatch batch;
    private final InputStream in;
    private final long limit;
    private final byte[] buf = new byte[CHUNK];
    private int pos;
    private int end;
    /** Inflated bytes taken from {@link #in} so far. */
    private long inflated;
    private boolean eof;

    private CompressedRecordWalk(RecordBatch batch, InputStream in, long limit) {
        this.batch = batch;
        this.in = in;
        this.limit = limit;
    }

    /**
     * Walks {@code batch}'s records (compressed with its codec) with the checks of {@link RecordBatch#records()};
     * copies them into {@code out} when it is not null, else hands each to {@code visitor}.
     */
    static void walk(RecordBatch batch, ByteBuffer payload, long maxRecordsBytes, List<Record> out,
                     RecordBatch.RecordVisitor visitor) {
        int chunkBound = (int) Math.min(Integer.MAX_VALUE - 8, maxRecordsBytes);
        try (InputStream in = RecordCompression.decompressing(batch.compressionType(), payload, chunkBound)) {
            new CompressedRecordWalk(batch, in, maxRecordsBytes).run(out, visitor);
        } catch (InflateBoundException e) {
            throw tooLarge(batch, maxRecordsBytes, e.getMessage());
        } catch (IOException | RuntimeException e) {
            if (e instanceof TidelineException t) {
                throw t;
            }
            throw corrupt(batch, batch.compressionType().label + " records do not decompress: " + e);
        }
    }

    private void run(List<Record> out, RecordBatch.RecordVisitor visitor) throws IOException {
        int count = batch.recordCount();
        long base = batch.baseOffset();
        long baseTimestamp = batch.baseTimestamp();
        boolean logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
        long maxTimestamp = batch.maxTimestamp();
        boolean materialise = out != null;
        for (int i = 0; i < count; i++) {
            int length = readVarint();
            if (length < 0) {
                throw corrupt(batch, "record " + i + " declares a negative length " + length);
            }
            if (length > limit - consumed()) {
                throw tooLarge(batch, limit, "record " + i + " declares " + length + " bytes, "
                        + (limit - consumed()) + " remain of the bound");
            }
            long recordEnd = consumed() + length;
            readByte(); // record attributes: unused in v2
            long timestampDelta = readVarlong();
            int offsetDelta = readVarint();
            int recordKeyLength = readVarint();
            byte[] key = field(recordKeyLength, recordEnd, materialise, i);
            byte[] value = field(readVarint(), recordEnd, materialise, i);
            int headerCount = readVarint();
            if (headerCount < 0) {
                throw corrupt(batch, "record " + i + " has a negative header count");
            }
            List<Header> headers = materialise ? new ArrayList<>(Math.min(headerCount, 64)) : null;
            for (int h = 0; h < headerCount; h++) {
                int keyLength = readVarint();
                if (keyLength < 0) {
                    throw corrupt(batch, "record " + i + " has a null header key");
                }
                byte[] hk = field(keyLength, recordEnd, materialise, i);
                byte[] hv = field(readVarint(), recordEnd, materialise, i);
                if (materialise) {
                    headers.add(new Header(new String(hk, StandardCharsets.UTF_8), hv));
                }
            }
            if (consumed() != recordEnd) {
                throw corrupt(batch, "record " + i + " length does not match its fields");
            }
            long timestamp = logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
            if (materialise) {
                out.add(new Record(base + offsetDelta, timestamp, key, value, headers));
            } else {
                visitor.accept(offsetDelta, timestamp, recordKeyLength >= 0);
            }
        }
        if (pos < end || fill()) {
            throw corrupt(batch, "bytes follow the last of " + count + " records");
        }
    }

    /** Bytes handed to the walk so far. */
    private long consumed() {
        return inflated - (end - pos);
    }

    /** Refills {@link #buf}; false at the end of the inflated records. Never inflates more than the bound plus one byte. */
    private boolean fill() throws IOException {
        if (eof) {
            return false;
        }
        long room = limit - inflated;
        if (room <= 0) {
            if (in.read() < 0) {
                eof = true;
                return false;
            }
            throw tooLarge(batch, limit, "the records inflate past it");
        }
        int n = in.read(buf, 0, (int) Math.min(buf.length, room));
        if (n < 0) {
            eof = true;
            return false;
        }
        pos = 0;
        end = n;
        inflated += n;
        return true;
    }

    private byte readByte() throws IOException {
        while (pos == end) {
            if (!fill()) {
                throw corrupt(batch, "records are truncated");
            }
        }
        return buf[pos++];
    }

    private int readVarint() throws IOException {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            byte b = readByte();
            value |= (b & 0x7f) << shift;
            if (b >= 0) {
                return (value >>> 1) ^ -(value & 1);
            }
        }
        throw corrupt(batch, "a varint is longer than 5 bytes");
    }

    private long readVarlong() throws IOException {
        long value = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            byte b = readByte();
            value |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return (value >>> 1) ^ -(value & 1);
            }
        }
        throw corrupt(batch, "a varlong is longer than 10 bytes");
    }

    /** A length-prefixed field (-1 = null) of record {@code index}: copied, or skipped when not materialising. */
    private byte[] field(int length, long recordEnd, boolean copy, int index) throws IOException {
        if (length < 0) {
            return null;
        }
        if (length > recordEnd - consumed()) {
            throw corrupt(batch, "record " + index + " has a field of " + length + " bytes that overruns its record");
        }
        byte[] bytes = copy ? new byte[Math.min(length, EAGER_FIELD)] : null;
        int done = 0;
        while (done < length) {
            if (pos == end && !fill()) {
                throw corrupt(batch, "records are truncated");
            }
            int n = Math.min(length - done, end - pos);
            if (copy) {
                if (bytes.length < done + n) {
                    bytes = Arrays.copyOf(bytes, (int) Math.min(length, Math.max(done + n, 2L * bytes.length)));
                }
                System.arraycopy(buf, pos, bytes, done, n);
            }
            pos += n;
            done += n;
        }
        return bytes;
    }

    private static TidelineException corrupt(RecordBatch batch, String detail) {
        return RecordsDecoder.corrupt(batch, detail);
    }

    private static TidelineException tooLarge(RecordBatch batch, long limit, String detail) {
        return new TidelineException(Errors.MESSAGE_TOO_LARGE, "Batch at offset " + batch.baseOffset() + " ("
                + batch.compressionType().label + "): its records may inflate to at most " + limit + " bytes; " + detail);
    }
}
