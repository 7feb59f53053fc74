package io.tideline.client.internals;

/**
 * MurmurHash2 (32-bit, seed 0x9747b28c), the hash Kafka's default partitioner applies to record keys,
 * written here from the algorithm's definition: the same key lands on the same partition number as it
 * would with a Kafka producer, so data moved between the two keeps its per-key placement.
 */
public final class Murmur2 {
    private static final int SEED = 0x9747b28c;
    private static final int M = 0x5bd1e995;
    private static final int R = 24;

    private Murmur2() {
    }

    public static int hash(byte[] data) {
        int length = data.length;
        int h = SEED ^ length;
        int whole = length & ~3;
        for (int i = 0; i < whole; i += 4) {
            // Four bytes read little-endian, whatever the platform.
            int k = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16
                    | (data[i + 3] & 0xff) << 24;
            k *= M;
            k ^= k >>> R;
            k *= M;
            h *= M;
            h ^= k;
        }
        int tail = length & 3;
        if (tail == 3) {
            h ^= (data[whole + 2] & 0xff) << 16;
        }
        if (tail >= 2) {
            h ^= (data[whole + 1] & 0xff) << 8;
        }
        if (tail >= 1) {
            h ^= data[whole] & 0xff;
            h *= M;
        }
        h ^= h >>> 13;
        h *= M;
        h ^= h >>> 15;
        return h;
    }

    /** The partition for {@code key} among {@code numPartitions}: the hash with its sign bit cleared, modulo. */
    public static int partition(byte[] key, int numPartitions) {
        if (numPartitions <= 0) {
            throw new IllegalArgumentException("numPartitions must be positive: " + numPartitions);
        }
        return (hash(key) & 0x7fffffff) % numPartitions;
    }
}
