package io.tideline.node.kafka;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;

/**
 * A {@link Writable} that lays a response frame out as Netty messages: pooled byte buffers for the message
 * fields, and a {@link SliceRegion} for each {@link SliceRecords} records field in between, so stored batches go
 * out by file transfer. Not thread-safe: one response, on one event loop.
 */
final class FrameWriter implements Writable {
    /** The first buffer's size: a whole small answer (Metadata, ApiVersions) fits, a large one grows it. */
    private static final int INITIAL_BUFFER = 1024;

    private final ByteBufAllocator alloc;
    private final List<Object> parts = new ArrayList<>();
    private ByteBuf current;

    FrameWriter(ByteBufAllocator alloc) {
        this.alloc = alloc;
        this.current = alloc.ioBuffer(INITIAL_BUFFER);
    }

    /** The parts in order; the caller owns them from here (writes them, or releases them). */
    List<Object> finish() {
        parts.add(current);
        current = null;
        return parts;
    }

    /** Releases what was written so far (the parts' slices too): the response will not be sent. */
    void discard() {
        parts.forEach(ReferenceCountUtil::safeRelease);
        parts.clear();
        if (current != null) {
            current.release();
            current = null;
        }
    }

    @Override
    public void writeRecords(BaseRecords records) {
        if (records instanceof SliceRecords slice) {
            parts.add(current);
            parts.add(new SliceRegion(slice));
            current = alloc.ioBuffer(INITIAL_BUFFER);
        } else {
            Writable.super.writeRecords(records);
        }
    }

    @Override
    public void writeByte(byte val) {
        current.writeByte(val);
    }

    @Override
    public void writeShort(short val) {
        current.writeShort(val);
    }

    @Override
    public void writeInt(int val) {
        current.writeInt(val);
    }

    @Override
    public void writeLong(long val) {
        current.writeLong(val);
    }

    @Override
    public void writeDouble(double val) {
        current.writeDouble(val);
    }

    @Override
    public void writeByteArray(byte[] arr) {
        current.writeBytes(arr);
    }

    @Override
    public void writeByteBuffer(ByteBuffer buf) {
        current.writeBytes(buf.duplicate());
    }

    @Override
    public void writeUnsignedVarint(int value) {
        int v = value;
        while ((v & ~0x7F) != 0) {
            current.writeByte((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        current.writeByte(v);
    }

    @Override
    public void writeVarint(int value) {
        writeUnsignedVarint((value << 1) ^ (value >> 31));
    }

    @Override
    public void writeVarlong(long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & ~0x7FL) != 0) {
            current.writeByte(((int) v & 0x7F) | 0x80);
            v >>>= 7;
        }
        current.writeByte((int) v);
    }
}
