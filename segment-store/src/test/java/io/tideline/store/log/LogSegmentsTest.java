package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.time.MockTime;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lookups of {@link LogSegments} over three empty segments based at 0, 10 and 20. */
class LogSegmentsTest {
    @TempDir
    Path dir;

    private final LogSegments segments = new LogSegments();
    private LogSegment s0;
    private LogSegment s10;
    private LogSegment s20;

    @BeforeEach
    void setUp() throws IOException {
        MockTime time = new MockTime();
        s0 = LogSegment.open(dir, 0L, 4096, 4096, 0L, false, time);
        s10 = LogSegment.open(dir, 10L, 4096, 4096, 0L, false, time);
        s20 = LogSegment.open(dir, 20L, 4096, 4096, 0L, true, time);
        segments.addAll(List.of(s20, s0, s10));
    }

    @AfterEach
    void tearDown() {
        for (LogSegment segment : List.of(s0, s10, s20)) {
            segment.close();
        }
    }

    @Test
    void ordersByBaseOffsetWithTheLastActive() {
        assertEquals(List.of(s0, s10, s20), segments.snapshot());
        assertSame(s20, segments.activeSegment());
        assertSame(s0, segments.firstSegment());
        assertEquals(0L, segments.firstBaseOffset());
        assertEquals(3, segments.size());
    }

    @Test
    void findsTheSegmentHoldingAnOffsetAndTheNextOne() {
        assertSame(s0, segments.floorSegment(9L));
        assertSame(s10, segments.floorSegment(10L));
        assertSame(s20, segments.floorSegment(1_000L));
        assertSame(s10, segments.higherSegment(0L));
        assertNull(segments.higherSegment(20L));
    }

    @Test
    void rangesStartAtTheSegmentHoldingTheirFirstOffset() {
        assertEquals(List.of(s10, s20), new ArrayList<>(segments.from(15L)));
        assertEquals(List.of(s0, s10), new ArrayList<>(segments.holding(5L, 20L)));
        assertEquals(List.of(s10), new ArrayList<>(segments.holding(10L, 11L)));
        assertEquals(List.of(s20), segments.segmentsAbove(10L));
    }

    @Test
    void containsOnlyTheSegmentObjectItHolds() throws IOException {
        assertTrue(segments.contains(s10));
        Path otherDir = Files.createDirectories(dir.resolve("other"));
        LogSegment other = LogSegment.open(otherDir, 10L, 4096, 4096, 0L, false, new MockTime());
        try {
            assertFalse(segments.contains(other));
        } finally {
            other.close();
        }
        segments.remove(10L);
        assertFalse(segments.contains(s10));
        assertSame(s20, segments.higherSegment(0L));
    }

    @Test
    void emptyAfterClear() {
        segments.clear();
        assertNull(segments.firstSegment());
        assertNull(segments.floorSegment(5L));
        assertEquals(0L, segments.sizeInBytes());
    }
}
