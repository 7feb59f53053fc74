package io.tideline.node.fuzz;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The values one fuzz step draws, all from one seeded {@link Random}: boundary numbers, names from the node's own
 * topics or not, huge strings, record batches that are valid, damaged or random. A field's name steers the choice
 * (a timeout is mostly short, so that a step rarely parks; a topic name is mostly one the node has), since a
 * request full of unknown names stops at the first lookup and never reaches the code behind it.
 *
 * <p>Not thread-safe: one per step.
 */
final class FuzzValues {
    /** Each step's bytes stay under this, so a step never builds more than the node's frame bound takes. */
    static final int MAX_CASE_BYTES = 256 * 1024;

    private static final long[] BOUNDARIES = {0, 1, -1, 2, 3, -2, 7, 127, 128, 255, 256, 32767, -32768, 65535,
        Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE - 1, Long.MAX_VALUE, Long.MIN_VALUE};

    private final Random random;
    private final List<String> topics;
    private final List<Uuid> topicIds;

    FuzzValues(Random random, List<String> topics, List<Uuid> topicIds) {
        this.random = random;
        this.topics = topics;
        this.topicIds = topicIds;
    }

    Random random() {
        return random;
    }

    boolean chance(double p) {
        return random.nextDouble() < p;
    }

    int between(int fromInclusive, int toExclusive) {
        return fromInclusive + random.nextInt(toExclusive - fromInclusive);
    }

    /** A number for a field called {@code name}, to be narrowed to the field's width by the caller. */
    long number(String name) {
        String n = name.toLowerCase();
        if (n.contains("timeout") || n.contains("wait") || n.endsWith("_ms")) {
            return chance(0.85) ? pick(0, 1, 10, 50, -1) : boundary();
        }
        if (n.equals("acks")) {
            return chance(0.85) ? pick(-1, 0, 1) : boundary();
        }
        if (n.contains("partition") || n.equals("index")) {
            return chance(0.8) ? pick(0, 1, 2, 3, -1) : boundary();
        }
        if (n.contains("replica") || n.contains("broker") || n.contains("node") || n.contains("leader")) {
            return chance(0.7) ? pick(1, 0, -1, 2) : boundary();
        }
        return chance(0.6) ? boundary() : random.nextInt(1000) - 10;
    }

    long boundary() {
        return chance(0.15) ? random.nextLong() : BOUNDARIES[random.nextInt(BOUNDARIES.length)];
    }

    private long pick(long... values) {
        return values[random.nextInt(values.length)];
    }

    /** A string for a field called {@code name}; never null (nullability is the caller's). */
    String string(String name) {
        String n = name.toLowerCase();
        boolean topicLike = n.contains("topic") || n.equals("name") || n.equals("names") || n.equals("resource_name");
        if (topicLike && chance(0.7) && !topics.isEmpty()) {
            return topics.get(random.nextInt(topics.size()));
        }
        int kind = random.nextInt(10);
        return switch (kind) {
            case 0 -> "";
            case 1 -> hugeString();
            case 2 -> "fuzz-new-" + random.nextInt(20);
            case 3 -> pickString("..", ".", "a/b", "__consumer_offsets", "x".repeat(249), "x".repeat(250),
                    "retention.ms", "segment.bytes", "cleanup.policy", "min.insync.replicas", "max.message.bytes",
                    "-1", "0", "2147483648", "true", "NaN");
            case 4 -> new String(new char[] {(char) (0xD800 + random.nextInt(0x800)), 'a', '\u0000', '\u00e9'});
            default -> randomAscii(between(1, 20));
        };
    }

    private String pickString(String... values) {
        return values[random.nextInt(values.length)];
    }

    String hugeString() {
        return "h".repeat(chance(0.5) ? between(256, 40_000) : 32_767);
    }

    String randomAscii(int length) {
        char[] c = new char[length];
        for (int i = 0; i < length; i++) {
            c[i] = (char) between(0x21, 0x7f);
        }
        return new String(c);
    }

    Uuid uuid() {
        if (!topicIds.isEmpty() && chance(0.6)) {
            return topicIds.get(random.nextInt(topicIds.size()));
        }
        return chance(0.3) ? Uuid.ZERO_UUID : new Uuid(random.nextLong(), random.nextLong());
    }

    byte[] bytes(int maxLength) {
        byte[] b = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(b);
        return b;
    }

    /**
     * A records field: well-formed batches in every codec kafka-clients writes (small: none inflates to more
     * than a few KB), such a batch with a byte flipped or cut short, or random bytes.
     */
    byte[] records() {
        int kind = random.nextInt(10);
        if (kind < 4) {
            return validBatch();
        }
        if (kind < 7) {
            byte[] b = validBatch();
            for (int i = 1 + random.nextInt(3); i > 0; i--) {
                b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
            }
            return b;
        }
        if (kind < 8) {
            byte[] b = validBatch();
            return java.util.Arrays.copyOf(b, random.nextInt(b.length));
        }
        return bytes(300);
    }

    /**
     * One of {@link #BATCHES}: compressing a fresh batch for each of a Produce's thousands of partitions takes
     * seconds per request (zstd and gzip set up a context each time), so batches are built once per JVM.
     */
    byte[] validBatch() {
        return BATCHES.get(random.nextInt(BATCHES.size())).clone();
    }

    /** Four batches in each codec kafka-clients writes, of 1-4 records, timestamped when the class loads. */
    private static final List<byte[]> BATCHES = buildBatches();

    private static List<byte[]> buildBatches() {
        Compression[] codecs = {Compression.NONE, Compression.gzip().build(), Compression.snappy().build(),
            Compression.lz4().build(), Compression.zstd().build()};
        FuzzValues v = new FuzzValues(new Random(0), List.of(), List.of());
        List<byte[]> out = new java.util.ArrayList<>();
        for (Compression codec : codecs) {
            for (int i = 0; i < 4; i++) {
                out.add(v.validBatch(codec));
            }
        }
        return List.copyOf(out);
    }

    byte[] validBatch(Compression codec) {
        int count = 1 + random.nextInt(4);
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(), ("k" + i).getBytes(StandardCharsets.UTF_8),
                    randomAscii(between(1, 40)).getBytes(StandardCharsets.UTF_8));
        }
        ByteBuffer b = MemoryRecords.withRecords(codec, records).buffer();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
