package io.tideline.store.record;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.xxhash.XXHashFactory;
import org.xerial.snappy.SnappyOutputStream;

/**
 * The stream formats of the records section of a v2 batch, one per codec, as Kafka's clients write them
 * (docs/storage.md, Compression): gzip (RFC 1952), snappy in snappy-java's framing ({@link SnappyChunkInputStream}),
 * lz4 as one LZ4 frame with independent 64 KiB blocks, zstd as zstd frames. Decompressing streams hand out
 * inflated bytes as they are read: nothing here inflates a whole batch, and the caller bounds what it reads (B120).
 */
public final class RecordCompression {
    /** Kafka's producer default for {@code compression.zstd.level}. */
    private static final int ZSTD_LEVEL = 3;
    private static final int GZIP_BUFFER = 8 * 1024;

    private RecordCompression() {
    }

    /**
     * A stream of the inflated records of {@code compressed} (the records section of one batch). Its codec may
     * throw IOException or a RuntimeException on malformed input; the caller reports either as CORRUPT_MESSAGE.
     * A snappy chunk is inflated whole, so none may declare more than {@code maxChunkBytes} (B121).
     */
    public static InputStream decompressing(CompressionType type, ByteBuffer compressed, int maxChunkBytes)
            throws IOException {
        return switch (type) {
            case NONE -> new ByteBufferInputStream(compressed);
            case GZIP -> new GZIPInputStream(new ByteBufferInputStream(compressed), GZIP_BUFFER);
            case SNAPPY -> new SnappyChunkInputStream(compressed, maxChunkBytes);
            case LZ4 -> new LZ4FrameInputStream(new ByteBufferInputStream(compressed),
                    LZ4Factory.fastestInstance().safeDecompressor(), XXHashFactory.fastestInstance().hash32());
            case ZSTD -> new ZstdInputStreamNoFinalizer(new ByteBufferInputStream(compressed));
        };
    }

    /** A stream that compresses what is written to it into {@code out}, in the format Kafka's readers expect. */
    public static OutputStream compressing(CompressionType type, OutputStream out) throws IOException {
        return switch (type) {
            case NONE -> out;
            case GZIP -> new GZIPOutputStream(out, GZIP_BUFFER);
            case SNAPPY -> new SnappyOutputStream(out);
            case LZ4 -> new LZ4FrameOutputStream(out, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB,
                    LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE);
            case ZSTD -> new ZstdOutputStreamNoFinalizer(out, ZSTD_LEVEL);
        };
    }

    /** Reads a buffer's remaining bytes without copying them first. */
    static final class ByteBufferInputStream extends InputStream {
        private final ByteBuffer buffer;

        ByteBufferInputStream(ByteBuffer buffer) {
            this.buffer = buffer.duplicate();
        }

        @Override
        public int read() {
            return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (!buffer.hasRemaining()) {
                return -1;
            }
            int n = Math.min(len, buffer.remaining());
            buffer.get(b, off, n);
            return n;
        }

        @Override
        public long skip(long n) {
            int skipped = (int) Math.max(0, Math.min(n, buffer.remaining()));
            buffer.position(buffer.position() + skipped);
            return skipped;
        }

        @Override
        public int available() {
            return buffer.remaining();
        }
    }

    /** {@code length} bytes of {@code plain} from {@code offset}, compressed whole (a producer's batch). */
    static byte[] compress(CompressionType type, byte[] plain, int offset, int length) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(length / 2 + 64);
        try (OutputStream out = compressing(type, bytes)) {
            out.write(plain, offset, length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
