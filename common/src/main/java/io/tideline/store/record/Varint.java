package io.tideline.store.record;

import java.nio.ByteBuffer;

/** Zig-zag variable-length integers, as used inside v2 records (protobuf's encoding). */
public final class Varint {
    private Varint() {
    }

    public static int readVarint(ByteBuffer buffer) {
        int value = 0;
        int shift = 0;
        while (true) {
            if (shift > 28) {
                throw new IllegalArgumentException("varint is longer than 5 bytes");
            }
            byte b = buffer.get();
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
        }
        return (value >>> 1) ^ -(value & 1);
    }

    public static long readVarlong(ByteBuffer buffer) {
        long value = 0;
        int shift = 0;
        while (true) {
            if (shift > 63) {
                throw new IllegalArgumentException("varlong is longer than 10 bytes");
            }
            byte b = buffer.get();
            value |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
        }
        return (value >>> 1) ^ -(value & 1);
    }

    public static void writeVarint(int value, ByteBuffer buffer) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & 0xffffff80) != 0) {
            buffer.put((byte) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        buffer.put((byte) v);
    }

    public static void writeVarlong(long value, ByteBuffer buffer) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xffffffffffffff80L) != 0L) {
            buffer.put((byte) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        buffer.put((byte) v);
    }

    public static int sizeOfVarint(int value) {
        int v = (value << 1) ^ (value >> 31);
        int bytes = 1;
        while ((v & 0xffffff80) != 0) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    public static int sizeOfVarlong(long value) {
        long v = (value << 1) ^ (value >> 63);
        int bytes = 1;
        while ((v & 0xffffffffffffff80L) != 0L) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }
}
