package io.tideline.node.fuzz;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;

/**
 * gRPC request messages for the fuzzer, built through their protobuf descriptors: every field of the request
 * type and of the messages nested in it gets a value drawn by {@link FuzzValues} for its name (boundary and
 * negative numbers, names the node has or not, huge strings, record batches valid or damaged, enum numbers
 * nobody declared), repeated fields from none to thousands of entries; and, for some calls, raw bytes in place of
 * the message (a protobuf the server cannot parse, or a valid one damaged).
 *
 * <p>Not thread-safe: one per step.
 */
final class GrpcMessages {
    private final FuzzValues values;

    GrpcMessages(FuzzValues values) {
        this.values = values;
    }

    /** A message of {@code prototype}'s type with random fields. */
    Message next(Message prototype) {
        Message.Builder b = prototype.newBuilderForType();
        fill(b, 0, new int[] {0});
        return b.build();
    }

    /** Bytes sent in place of a message: random, or {@code valid} with bytes flipped, cut or appended. */
    byte[] damaged(byte[] valid) {
        int kind = values.random().nextInt(4);
        if (kind == 0 || valid.length == 0) {
            return values.bytes(200);
        }
        byte[] b = valid.clone();
        if (kind == 1) {
            for (int i = values.between(1, 4); i > 0; i--) {
                b[values.random().nextInt(b.length)] ^= (byte) (1 << values.random().nextInt(8));
            }
            return b;
        }
        if (kind == 2) {
            return java.util.Arrays.copyOf(b, values.random().nextInt(b.length));
        }
        byte[] tail = values.bytes(30);
        byte[] n = java.util.Arrays.copyOf(b, b.length + tail.length);
        System.arraycopy(tail, 0, n, b.length, tail.length);
        return n;
    }

    /** {@code size[0]} estimates the bytes built so far, so that nested repeated fields stay within budget. */
    private void fill(Message.Builder b, int depth, int[] size) {
        for (FieldDescriptor f : b.getDescriptorForType().getFields()) {
            if (values.chance(0.15)) {
                continue; // left at its default
            }
            if (f.isRepeated()) {
                int count = repeatedCount(depth, size);
                for (int i = 0; i < count && size[0] < FuzzValues.MAX_CASE_BYTES; i++) {
                    Object v = value(b, f, depth, size);
                    b.addRepeatedField(f, v);
                }
            } else {
                b.setField(f, value(b, f, depth, size));
            }
        }
    }

    private int repeatedCount(int depth, int[] size) {
        int roll = values.random().nextInt(100);
        if (roll < 30 || depth > 4 || size[0] >= FuzzValues.MAX_CASE_BYTES) {
            return 0;
        }
        if (roll < 38 && depth < 2) {
            return values.between(100, 1_000);
        }
        return values.between(1, 4);
    }

    private Object value(Message.Builder parent, FieldDescriptor f, int depth, int[] size) {
        String name = f.getName();
        switch (f.getJavaType()) {
            case INT -> {
                size[0] += 5;
                return (int) values.number(name);
            }
            case LONG -> {
                size[0] += 10;
                return values.number(name);
            }
            case BOOLEAN -> {
                size[0] += 1;
                return values.chance(0.5);
            }
            case FLOAT -> {
                return (float) values.random().nextGaussian();
            }
            case DOUBLE -> {
                return values.chance(0.3) ? Double.NaN : values.random().nextGaussian();
            }
            case STRING -> {
                String s = name.contains("topic_id") && values.chance(0.6) ? values.uuid().toString()
                        : values.string(name);
                size[0] += s.length() + 2;
                return s;
            }
            case BYTE_STRING -> {
                byte[] b = name.contains("records") ? values.records() : values.bytes(64);
                size[0] += b.length + 3;
                return ByteString.copyFrom(b);
            }
            case ENUM -> {
                EnumDescriptor e = f.getEnumType();
                if (values.chance(0.2)) {
                    return e.findValueByNumberCreatingIfUnknown((int) values.boundary());
                }
                return e.getValues().get(values.random().nextInt(e.getValues().size()));
            }
            case MESSAGE -> {
                Message.Builder nested = parent.newBuilderForField(f);
                size[0] += 2;
                fill(nested, depth + 1, size);
                return nested.build();
            }
            default -> throw new IllegalStateException("no generator for " + f.getFullName());
        }
    }
}
