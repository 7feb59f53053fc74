package io.tideline.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.client.internals.Murmur2;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Reference values of the 32-bit MurmurHash2 with Kafka's seed, as Kafka's own producer computes them. */
class Murmur2Test {

    private static int hash(String s) {
        return Murmur2.hash(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void matchesTheReferenceHashes() {
        assertEquals(-973932308, hash("21"));
        assertEquals(-790332482, hash("foobar"));
        assertEquals(-985981536, hash("a-little-bit-long-string"));
        assertEquals(-1486304829, hash("a-little-bit-longer-string"));
        assertEquals(-58897971, hash("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"));
        assertEquals(479470107, hash("abc"));
    }

    @Test
    void partitionIsTheHashWithoutItsSignBitModuloTheCount() {
        assertEquals((-973932308 & 0x7fffffff) % 7, Murmur2.partition("21".getBytes(StandardCharsets.UTF_8), 7));
    }
}
