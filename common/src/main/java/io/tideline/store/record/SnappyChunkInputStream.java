package io.tideline.store.record;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyCodec;

/**
 * Inflates snappy records in snappy-java's stream format, which Kafka's producer writes:
 *
 * <pre>
 *  header  8-byte magic (0x82 "SNAPPY" 0), int32 version, int32 compatible version   (16 bytes)
 *  chunk   int32 compressed length | raw snappy block                                 (repeated)
 * </pre>
 *
 * All ints big-endian; a header may recur between chunks (concatenated streams). Input that does not open with
 * the magic is one raw snappy block, which is what some non-Java clients send and what Kafka's reader accepts.
 *
 * <p>Snappy inflates a block only whole, into an array of the length the block declares. That length is bounded
 * by {@code maxChunkBytes} before anything is allocated (B121); the compressed length by what the batch holds.
 * Not thread-safe.
 */
final class SnappyChunkInputStream extends InputStream {
    private static final byte[] MAGIC = SnappyCodec.getMagicHeader();
    private static final int HEADER_SIZE = SnappyCodec.headerSize();

    private final ByteBuffer in;
    private final int maxChunkBytes;
    private final boolean framed;
    private byte[] compressed = new byte[0];
    private byte[] chunk = new byte[0];
    private int pos;
    private int end;

    SnappyChunkInputStream(ByteBuffer input, int maxChunkBytes) throws IOException {
        this.in = input.duplicate().order(ByteOrder.BIG_ENDIAN);
        this.maxChunkBytes = maxChunkBytes;
        this.framed = startsWithMagic();
        if (framed) {
            skipHeader();
        }
    }

    private boolean startsWithMagic() {
        if (in.remaining() < MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (in.get(in.position() + i) != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    private void skipHeader() throws IOException {
        if (in.remaining() < HEADER_SIZE) {
            throw new IOException("snappy stream header is truncated");
        }
        in.position(in.position() + HEADER_SIZE);
    }

    /** Inflates the next chunk; false at the end of the input. */
    private boolean nextChunk() throws IOException {
        while (in.hasRemaining()) {
            int length;
            if (!framed) {
                length = in.remaining();
            } else if (startsWithMagic()) {
                skipHeader();
                continue;
            } else {
                if (in.remaining() < Integer.BYTES) {
                    throw new IOException("snappy chunk length is truncated");
                }
                length = in.getInt();
                if (length < 0 || length > in.remaining()) {
                    throw new IOException("snappy chunk declares " + length + " bytes, " + in.remaining() + " remain");
                }
            }
            int offset = load(length);
            int inflated = Snappy.uncompressedLength(compressed, offset, length);
            if (inflated < 0 || inflated > maxChunkBytes) {
                throw new InflateBoundException("a snappy chunk declares " + Integer.toUnsignedString(inflated)
                        + " inflated bytes, more than the " + maxChunkBytes + " allowed");
            }
            if (chunk.length < inflated) {
                chunk = new byte[inflated];
            }
            end = Snappy.uncompress(compressed, offset, length, chunk, 0);
            pos = 0;
            if (end > 0) {
                return true;
            }
        }
        return false;
    }

    /** Makes the next {@code length} input bytes readable as an array; returns their offset in {@link #compressed}. */
    private int load(int length) {
        if (in.hasArray()) {
            compressed = in.array();
            int offset = in.arrayOffset() + in.position();
            in.position(in.position() + length);
            return offset;
        }
        if (compressed.length < length) {
            compressed = Arrays.copyOf(compressed, length);
        }
        in.get(compressed, 0, length);
        return 0;
    }

    @Override
    public int read() throws IOException {
        if (pos == end && !nextChunk()) {
            return -1;
        }
        return chunk[pos++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos == end && !nextChunk()) {
            return -1;
        }
        int n = Math.min(len, end - pos);
        System.arraycopy(chunk, pos, b, off, n);
        pos += n;
        return n;
    }
}
