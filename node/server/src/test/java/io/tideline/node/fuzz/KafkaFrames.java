package io.tideline.node.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.NullableSchema;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.TaggedFields;
import org.apache.kafka.common.protocol.types.Type;

/**
 * Kafka request frames for the fuzzer, written field by field from the request schema kafka-clients 4.4 has for
 * each API key and version ({@code ApiKeys.messageType.requestSchemas()}), so every field of every served version
 * gets boundary numbers, nulls, negative and lying array counts, huge arrays and strings, random UUIDs and record
 * batches; then, for some frames, mutations a parser must survive: bit flips, a wrong API key or version, a size
 * field that lies, a frame cut short, bytes inserted or removed; and frames of random bytes.
 *
 * <p>Not thread-safe: one per step.
 */
final class KafkaFrames {
    /** A frame to send, what it is (printed on a failure), and whether its size field matches its bytes. */
    record KafkaCase(String description, byte[] frame) {
    }

    private final FuzzValues values;
    private ByteArrayOutputStream out;
    /**
     * Whether this frame's structure lies too (null arrays and strings where none may be, counts and lengths the
     * bytes do not hold, unknown tagged fields): off for half the frames, so that those reach their API whole.
     */
    private boolean structural;

    KafkaFrames(FuzzValues values) {
        this.values = values;
    }

    /** A case for {@code key} at {@code version}, one of the versions the node serves (or a neighbour of it). */
    KafkaCase next(ApiKeys key, short version) {
        int mode = values.random().nextInt(100);
        if (mode < 8) {
            byte[] payload = values.bytes(values.chance(0.5) ? 24 : 2_000);
            return new KafkaCase("random bytes, " + payload.length + " in a frame", frame(payload));
        }
        if (mode < 12) {
            // A header naming the key and version, then random bytes for a body.
            ByteArrayOutputStream header = headerFor(key, version);
            byte[] body = values.bytes(300);
            header.write(body, 0, body.length);
            return new KafkaCase(key + " v" + version + " header with a random body of " + body.length + " bytes",
                    frame(header.toByteArray()));
        }
        byte[] payload = wellFormed(key, version);
        String description = key + " v" + version + " from its schema";
        if (mode < 60) {
            return new KafkaCase(description, frame(payload));
        }
        return mutate(description, payload);
    }

    /** Header and body written from the schema with values drawn per field. */
    byte[] wellFormed(ApiKeys key, short version) {
        structural = values.chance(0.5);
        out = headerFor(key, version);
        Schema schema = key.messageType.requestSchemas()[version];
        writeValue(schema, "request", 0);
        return out.toByteArray();
    }

    private ByteArrayOutputStream headerFor(ApiKeys key, short version) {
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        ByteArrayOutputStream saved = out;
        out = header;
        short headerVersion = key.requestHeaderVersion(version);
        writeShort(key.id);
        writeShort(version);
        writeInt(values.random().nextInt());
        if (values.chance(0.05)) {
            writeShort(-1);
        } else {
            writeString16(values.chance(0.05) ? values.hugeString() : "fuzzer");
        }
        if (headerVersion >= 2) {
            writeTaggedFields(TaggedFields.of(), 0);
        }
        out = saved;
        return header;
    }

    private boolean overBudget() {
        return out.size() > FuzzValues.MAX_CASE_BYTES;
    }

    private void writeValue(Type type, String name, int depth) {
        if (type instanceof NullableSchema nullable) {
            if (values.chance(0.1)) {
                out.write(-1);
            } else {
                out.write(1);
                writeStruct(nullable, depth);
            }
        } else if (type instanceof Schema schema) {
            writeStruct(schema, depth);
        } else if (type instanceof TaggedFields tagged) {
            writeTaggedFields(tagged, depth);
        } else if (type.isArray()) {
            writeArray(type, name, depth);
        } else {
            writePrimitive(type, name);
        }
    }

    private void writeStruct(Schema schema, int depth) {
        for (BoundField f : schema.fields()) {
            writeValue(f.def.type, f.def.name, depth + 1);
        }
    }

    private void writeTaggedFields(TaggedFields tagged, int depth) {
        if (!structural || values.chance(0.85)) {
            writeUnsignedVarint(0);
            return;
        }
        List<Map.Entry<Integer, Field>> known = List.copyOf(tagged.fields().entrySet());
        int count = values.between(1, 3);
        writeUnsignedVarint(count);
        int tag = 0;
        for (int i = 0; i < count; i++) {
            ByteArrayOutputStream saved = out;
            out = new ByteArrayOutputStream();
            if (!known.isEmpty() && values.chance(0.6)) {
                Map.Entry<Integer, Field> e = known.get(values.random().nextInt(known.size()));
                tag = e.getKey();
                writeValue(e.getValue().type, e.getValue().name, depth + 1);
            } else {
                tag = values.chance(0.2) ? tag : tag + values.between(1, 5000);
                byte[] b = values.bytes(20);
                out.write(b, 0, b.length);
            }
            byte[] field = out.toByteArray();
            out = saved;
            writeUnsignedVarint(tag);
            writeUnsignedVarint(values.chance(0.1) ? values.random().nextInt(Integer.MAX_VALUE) : field.length);
            out.write(field, 0, field.length);
        }
    }

    private void writeArray(Type type, String name, int depth) {
        boolean compact = type.getClass().getSimpleName().startsWith("Compact");
        Type element = type.arrayElementType().orElseThrow();
        int roll = values.random().nextInt(100);
        int count;
        int written;
        if (roll < 5 && (structural || type.isNullable())) {
            count = -1; // null: refused by a parser when the field is not nullable
            written = 0;
        } else if (roll < 9 && structural) {
            count = (int) values.boundary(); // a count the bytes behind it do not hold
            written = values.between(0, 3);
        } else if (roll < 14 && depth < 2 && !overBudget()) {
            count = values.between(100, 1_000);
            written = count;
        } else if (roll < 35 || overBudget() || depth > 5) {
            count = 0;
            written = 0;
        } else {
            count = values.between(1, 4);
            written = count;
        }
        if (compact) {
            writeUnsignedVarint(count + 1);
        } else {
            writeInt(count);
        }
        for (int i = 0; i < written && !overBudget(); i++) {
            writeValue(element, name, depth + 1);
        }
    }

    private void writePrimitive(Type type, String name) {
        boolean compact = type == Type.COMPACT_STRING || type == Type.COMPACT_NULLABLE_STRING
                || type == Type.COMPACT_BYTES || type == Type.COMPACT_NULLABLE_BYTES || type == Type.COMPACT_RECORDS
                || type == Type.COMPACT_NULLABLE_RECORDS;
        if (type == Type.BOOLEAN) {
            out.write(values.chance(0.9) ? values.random().nextInt(2) : values.random().nextInt(256));
        } else if (type == Type.INT8) {
            out.write((int) values.number(name));
        } else if (type == Type.INT16 || type == Type.UINT16) {
            writeShort((int) values.number(name));
        } else if (type == Type.INT32 || type == Type.UNSIGNED_INT32) {
            writeInt((int) values.number(name));
        } else if (type == Type.INT64) {
            writeLong(values.number(name));
        } else if (type == Type.FLOAT64) {
            writeLong(Double.doubleToRawLongBits(values.chance(0.5) ? Double.NaN : values.random().nextGaussian()));
        } else if (type == Type.VARINT) {
            writeVarint((int) values.number(name));
        } else if (type == Type.VARLONG) {
            writeVarlong(values.number(name));
        } else if (type == Type.UUID) {
            Uuid id = values.uuid();
            writeLong(id.getMostSignificantBits());
            writeLong(id.getLeastSignificantBits());
        } else if (type == Type.STRING || type == Type.NULLABLE_STRING || type == Type.COMPACT_STRING
                || type == Type.COMPACT_NULLABLE_STRING) {
            if (values.chance(0.05) && (structural || type.isNullable())) {
                writeLength(-1, compact, false);
            } else {
                byte[] s = values.string(name).getBytes(StandardCharsets.UTF_8);
                if (!structural && !compact && s.length > Short.MAX_VALUE) {
                    s = java.util.Arrays.copyOf(s, Short.MAX_VALUE);
                }
                int length = structural && values.chance(0.03) ? (int) values.boundary() : s.length;
                writeLength(length, compact, false);
                out.write(s, 0, s.length);
            }
        } else if (type == Type.BYTES || type == Type.NULLABLE_BYTES || type == Type.COMPACT_BYTES
                || type == Type.COMPACT_NULLABLE_BYTES || type == Type.RECORDS || type == Type.COMPACT_RECORDS
                || type == Type.NULLABLE_RECORDS || type == Type.COMPACT_NULLABLE_RECORDS) {
            if (values.chance(0.05) && (structural || type.isNullable())) {
                writeLength(-1, compact, true);
            } else {
                boolean records = type.toString().contains("RECORDS") || name.contains("records");
                byte[] b = records ? values.records() : values.bytes(64);
                writeLength(structural && values.chance(0.03) ? (int) values.boundary() : b.length, compact, true);
                out.write(b, 0, b.length);
            }
        } else {
            throw new IllegalStateException("no generator for type " + type + " of field " + name);
        }
    }

    private KafkaCase mutate(String description, byte[] payload) {
        StringBuilder what = new StringBuilder(description).append(", mutated:");
        byte[] p = payload;
        int sizeField = -1;
        int mutations = values.between(1, 4);
        for (int i = 0; i < mutations; i++) {
            int kind = values.random().nextInt(8);
            switch (kind) {
                case 0 -> {
                    int at = values.random().nextInt(p.length);
                    int bit = values.random().nextInt(8);
                    p[at] ^= (byte) (1 << bit);
                    what.append(" bit ").append(bit).append(" of byte ").append(at).append(" flipped;");
                }
                case 1 -> {
                    int at = values.random().nextInt(p.length);
                    byte b = (byte) (values.chance(0.5) ? 0xFF : values.chance(0.5) ? 0x80 : 0x7F);
                    p[at] = b;
                    what.append(" byte ").append(at).append(" set to ").append(b).append(';');
                }
                case 2 -> {
                    short key = (short) (values.chance(0.5) ? values.between(-2, 100) : values.boundary());
                    ByteBuffer.wrap(p).putShort(0, key);
                    what.append(" api key set to ").append(key).append(';');
                }
                case 3 -> {
                    short version = (short) (values.chance(0.6) ? ByteBuffer.wrap(p).getShort(2)
                            + (values.chance(0.5) ? 1 : -1) : values.boundary());
                    ByteBuffer.wrap(p).putShort(2, version);
                    what.append(" version set to ").append(version).append(';');
                }
                case 4 -> {
                    int keep = values.random().nextInt(p.length);
                    p = Arrays.copyOf(p, keep);
                    what.append(" cut to ").append(keep).append(" bytes;");
                }
                case 5 -> {
                    int at = values.random().nextInt(p.length + 1);
                    byte[] ins = values.bytes(16);
                    byte[] n = new byte[p.length + ins.length];
                    System.arraycopy(p, 0, n, 0, at);
                    System.arraycopy(ins, 0, n, at, ins.length);
                    System.arraycopy(p, at, n, at + ins.length, p.length - at);
                    p = n;
                    what.append(' ').append(ins.length).append(" random bytes inserted at ").append(at).append(';');
                }
                case 6 -> {
                    int at = values.random().nextInt(p.length);
                    int len = Math.min(p.length - at, values.between(1, 16));
                    byte[] n = new byte[p.length - len];
                    System.arraycopy(p, 0, n, 0, at);
                    System.arraycopy(p, at + len, n, at, p.length - at - len);
                    p = n;
                    what.append(' ').append(len).append(" bytes removed at ").append(at).append(';');
                }
                default -> {
                    sizeField = values.chance(0.5) ? p.length + values.between(-8, 9) : (int) values.boundary();
                    what.append(" size field set to ").append(sizeField).append(';');
                }
            }
            if (p.length < 4) {
                p = Arrays.copyOf(p, 4);
            }
        }
        byte[] frame = frame(p);
        if (sizeField != -1) {
            ByteBuffer.wrap(frame).putInt(0, sizeField);
        }
        return new KafkaCase(what.toString(), frame);
    }

    static byte[] frame(byte[] payload) {
        return ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).array();
    }

    /** A string's length is an int16, a bytes field's an int32; compact ones are an unsigned varint of length + 1. */
    private void writeLength(int length, boolean compact, boolean bytesField) {
        if (compact) {
            writeUnsignedVarint(length + 1);
        } else if (bytesField) {
            writeInt(length);
        } else {
            writeShort(length);
        }
    }

    private void writeString16(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeShort(b.length);
        out.write(b, 0, b.length);
    }

    private void writeShort(int v) {
        out.write(v >>> 8);
        out.write(v);
    }

    private void writeInt(int v) {
        writeShort(v >>> 16);
        writeShort(v);
    }

    private void writeLong(long v) {
        writeInt((int) (v >>> 32));
        writeInt((int) v);
    }

    private void writeUnsignedVarint(int v) {
        while ((v & 0xFFFFFF80) != 0) {
            out.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }

    private void writeVarint(int v) {
        writeUnsignedVarint((v << 1) ^ (v >> 31));
    }

    private void writeVarlong(long v) {
        long z = (v << 1) ^ (v >> 63);
        while ((z & 0xFFFFFFFFFFFFFF80L) != 0) {
            out.write((int) ((z & 0x7F) | 0x80));
            z >>>= 7;
        }
        out.write((int) z);
    }
}
