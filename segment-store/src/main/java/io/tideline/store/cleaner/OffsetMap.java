package io.tideline.store.cleaner;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The cleaner's dedupe map: the MD5 digest of a record key to the latest offset seen for it, in one
 * fixed buffer (Kafka's SkimpyOffsetMap). Each slot is 24 bytes, the 16-byte digest and the offset
 * plus one (0 marks a free slot), so {@code memoryBytes / 24} keys fit, and the cleaner fills it only
 * to its load factor (docs/behaviours.md B182). Open addressing with linear probing from the first
 * eight digest bytes; a put hashes into a reused array and allocates nothing.
 *
 * <p>Two keys with the same digest count as one key: MD5's 128 bits make that as unlikely as
 * Kafka accepts it to be. Not thread-safe: one cleaner thread owns a map.
 */
public final class OffsetMap {
    public static final int HASH_SIZE = 16;
    public static final int ENTRY_SIZE = HASH_SIZE + 8;

    private final ByteBuffer bytes;
    private final int slots;
    private final MessageDigest digest;
    private final byte[] hash = new byte[HASH_SIZE];
    private int entries;
    private long latestOffset = -1L;
    private long lookups;
    private long probes;

    /** A map in {@code memoryBytes} of heap (at least one slot), allocated once. */
    public OffsetMap(int memoryBytes) {
        if (memoryBytes < ENTRY_SIZE) {
            throw new IllegalArgumentException("an offset map needs at least " + ENTRY_SIZE + " bytes, got " + memoryBytes);
        }
        this.slots = memoryBytes / ENTRY_SIZE;
        this.bytes = ByteBuffer.allocate(slots * ENTRY_SIZE);
        try {
            this.digest = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides MD5", e);
        }
    }

    public int slots() {
        return slots;
    }

    public int size() {
        return entries;
    }

    /** The highest offset put since the last {@link #clear()}, or -1. */
    public long latestOffset() {
        return latestOffset;
    }

    /** Share of the slots in use. */
    public double utilization() {
        return (double) entries / slots;
    }

    /** Average slots visited per lookup or put so far: near 1 while the load factor is respected. */
    public double collisionRate() {
        return lookups == 0 ? 0 : (double) probes / lookups;
    }

    /** Records {@code offset} as the latest for {@code key}; offsets are put in increasing order. */
    public void put(byte[] key, long offset) {
        int position = find(key);
        if (position < 0) {
            throw new IllegalStateException("the offset map is full (" + slots + " slots)");
        }
        if (bytes.getLong(position + HASH_SIZE) == 0) {
            bytes.put(position, hash);
            entries++;
        }
        bytes.putLong(position + HASH_SIZE, offset + 1);
        latestOffset = offset;
    }

    /** The latest offset put for {@code key}, or -1 when the key is not in the map. */
    public long get(byte[] key) {
        int position = find(key);
        return position < 0 ? -1 : bytes.getLong(position + HASH_SIZE) - 1;
    }

    /** Empties the map for the next cleaning (the buffer is reused). */
    public void clear() {
        Arrays.fill(bytes.array(), (byte) 0);
        entries = 0;
        latestOffset = -1L;
        lookups = 0;
        probes = 0;
    }

    /** The byte position of the key's slot, or of the free slot where it would go; -1 when neither exists. */
    private int find(byte[] key) {
        digest.update(key);
        try {
            digest.digest(hash, 0, HASH_SIZE);
        } catch (DigestException e) {
            throw new IllegalStateException(e);
        }
        lookups++;
        int slot = (int) Math.floorMod(longAt(0) ^ longAt(8), (long) slots);
        for (int attempt = 0; attempt < slots; attempt++) {
            probes++;
            int position = slot * ENTRY_SIZE;
            if (bytes.getLong(position + HASH_SIZE) == 0 || matches(position)) {
                return position;
            }
            slot = slot + 1 == slots ? 0 : slot + 1;
        }
        return -1;
    }

    private long longAt(int from) {
        long value = 0;
        for (int i = from; i < from + 8; i++) {
            value = (value << 8) | (hash[i] & 0xffL);
        }
        return value;
    }

    private boolean matches(int position) {
        for (int i = 0; i < HASH_SIZE; i++) {
            if (bytes.get(position + i) != hash[i]) {
                return false;
            }
        }
        return true;
    }
}
