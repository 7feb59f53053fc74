package io.tideline.store.cleaner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OffsetMapTest {

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void slotsAreTheMemoryDividedByTheEntrySize() {
        assertEquals(1000, new OffsetMap(24 * 1000).slots());
        assertEquals(1000, new OffsetMap(24 * 1000 + 23).slots());
        assertThrows(IllegalArgumentException.class, () -> new OffsetMap(23));
    }

    @Test
    void getReturnsTheLatestOffsetPutForEachKey() {
        OffsetMap map = new OffsetMap(24 * 4096);
        for (int i = 0; i < 3000; i++) {
            map.put(key(i % 1000), i);
        }
        assertEquals(1000, map.size());
        for (int k = 0; k < 1000; k++) {
            assertEquals(2000L + k, map.get(key(k)));
        }
        assertEquals(-1L, map.get(key(5000)));
        assertEquals(2999L, map.latestOffset());
        assertEquals(1000.0 / 4096, map.utilization());
    }

    @Test
    void aMapCanBeFilledToTheLastSlotAndThenRefusesNewKeys() {
        OffsetMap map = new OffsetMap(24 * 64);
        for (int i = 0; i < 64; i++) {
            map.put(key(i), i);
        }
        for (int i = 0; i < 64; i++) {
            assertEquals((long) i, map.get(key(i)));
        }
        assertThrows(IllegalStateException.class, () -> map.put(key(100), 100));
    }

    @Test
    void clearEmptiesTheMapForTheNextCleaning() {
        OffsetMap map = new OffsetMap(24 * 100);
        map.put(key(1), 7);
        map.clear();
        assertEquals(0, map.size());
        assertEquals(-1L, map.latestOffset());
        assertEquals(-1L, map.get(key(1)));
    }

    @Test
    void offsetZeroIsAnEntryNotAFreeSlot() {
        OffsetMap map = new OffsetMap(24 * 10);
        map.put(key(1), 0);
        assertEquals(0L, map.get(key(1)));
        assertEquals(1, map.size());
        map.put(key(2), 1);
        assertEquals(2, map.size());
    }

    @Test
    void probesStayShortBelowTheLoadFactor() {
        OffsetMap map = new OffsetMap(24 * 10_000);
        for (int i = 0; i < 5000; i++) {
            map.put(key(i), i);
        }
        assertTrue(map.collisionRate() < 2.0, "probes per lookup at half load: " + map.collisionRate());
    }
}
