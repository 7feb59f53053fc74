package io.tideline.store.record;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Re-encodes one batch's records with another codec (docs/behaviours.md B210-B212). The records section of a v2
 * batch is the same bytes whatever its codec, so the source's records are piped, as they inflate, into the
 * target's compressing stream: keys, values, headers, timestamp and offset deltas come out byte for byte, and the
 * header keeps every field but the codec bits, the length and the CRC (producer id, epoch, base sequence,
 * transactional flag, timestamps, record count). Nothing is decoded into records.
 *
 * <p>Memory is bounded on both sides before it is used: inflating stops one byte past {@code maxRecordsBytes}
 * (B120), and the output, header included, grows in steps up to {@code maxBatchBytes} and no further; a result
 * that would pass it fails with MESSAGE_TOO_LARGE (B212). Stateless; each call uses its own buffers.
 */
public final class BatchRecompressor {
    private static final int CHUNK = 8 * 1024;
    private static final int INITIAL_OUTPUT = 16 * 1024;
    private static final int COMPRESSION_MASK = 0x07;

    private BatchRecompressor() {
    }

    /**
     * {@code source} (a whole, CRC-checked batch whose records the leader has walked) with its records in
     * {@code target}'s codec, as a new batch on a heap buffer of its own. {@code boundReason} ends the refusal's
     * message: where {@code maxBatchBytes} comes from.
     */
    public static RecordBatch recompress(RecordBatch source, CompressionType target, long maxRecordsBytes,
                                         int maxBatchBytes, String boundReason) {
        ByteBuffer payload = source.buffer();
        payload.position(RecordBatch.RECORDS_OFFSET);
        BoundedOutput out = new BoundedOutput(maxBatchBytes, Math.max(source.sizeInBytes(), INITIAL_OUTPUT));
        int chunkBound = (int) Math.min(Integer.MAX_VALUE - 8, maxRecordsBytes);
        // Both streams are closed on every path: zstd's hold native memory until then.
        try (InputStream in = RecordCompression.decompressing(source.compressionType(), payload, chunkBound);
             OutputStream compressing = RecordCompression.compressing(target, out)) {
            byte[] chunk = new byte[CHUNK];
            long inflated = 0;
            int n;
            while ((n = in.read(chunk, 0, (int) Math.min(CHUNK, maxRecordsBytes + 1 - inflated))) > 0) {
                inflated += n;
                if (inflated > maxRecordsBytes) {
                    throw tooLarge(source, "its records inflate past " + maxRecordsBytes + " bytes");
                }
                compressing.write(chunk, 0, n);
            }
        } catch (OutputBoundException e) {
            throw tooLarge(source, "recompressed with " + target.label + " it is larger than " + maxBatchBytes
                    + " bytes, " + boundReason);
        } catch (InflateBoundException e) {
            throw tooLarge(source, e.getMessage());
        } catch (IOException | RuntimeException e) {
            if (e instanceof TidelineException t) {
                throw t;
            }
            throw new TidelineException(Errors.CORRUPT_MESSAGE, "Batch at offset " + source.baseOffset() + ": "
                    + source.compressionType().label + " records do not decompress: " + e);
        }
        ByteBuffer batch = ByteBuffer.wrap(out.bytes, 0, out.size).order(ByteOrder.BIG_ENDIAN);
        ByteBuffer header = source.buffer();
        header.limit(RecordBatch.RECORDS_OFFSET);
        batch.put(header);
        batch.putInt(RecordBatch.LENGTH_OFFSET, out.size - RecordBatch.LOG_OVERHEAD);
        int attributes = (source.attributes() & ~COMPRESSION_MASK) | target.id;
        batch.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) attributes);
        batch.position(0);
        RecordBatch result = RecordBatch.wrap(batch);
        batch.putInt(RecordBatch.CRC_OFFSET, (int) result.computeChecksum());
        return RecordBatch.wrap(batch);
    }

    private static TidelineException tooLarge(RecordBatch source, String detail) {
        return new TidelineException(Errors.MESSAGE_TOO_LARGE, "Batch at offset " + source.baseOffset() + " ("
                + source.compressionType().label + "): " + detail);
    }

    /** The output passed its bound; never seen outside this class. */
    private static final class OutputBoundException extends IOException {
        OutputBoundException() {
            super("output bound reached");
        }
    }

    /**
     * A byte sink that starts with room for the batch header (filled in once the records are written), grows by
     * doubling up to {@code limit} bytes and refuses the byte past it. Closing it keeps its bytes.
     */
    private static final class BoundedOutput extends OutputStream {
        private final int limit;
        private byte[] bytes;
        private int size = RecordBatch.RECORDS_OFFSET;

        BoundedOutput(int limit, int initial) {
            this.limit = limit;
            this.bytes = new byte[Math.max(RecordBatch.RECORDS_OFFSET, Math.min(limit, initial))];
        }

        @Override
        public void write(int b) throws IOException {
            ensure(1);
            bytes[size++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ensure(len);
            System.arraycopy(b, off, bytes, size, len);
            size += len;
        }

        private void ensure(int more) throws IOException {
            if (more > limit - size) {
                throw new OutputBoundException();
            }
            if (size + more > bytes.length) {
                int grown = (int) Math.min(limit, Math.max((long) bytes.length * 2, (long) size + more));
                bytes = Arrays.copyOf(bytes, grown);
            }
        }
    }
}
