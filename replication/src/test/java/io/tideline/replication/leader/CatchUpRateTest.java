package io.tideline.replication.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CatchUpRateTest {

    @Test
    void rateIsTheLogEndsProgressOverTheSpanToNow() {
        CatchUpRate rate = new CatchUpRate(10_000, 10);
        rate.record(0, 100);
        rate.record(5_000, 600);
        CatchUpRate.Span span = rate.span(5_000).orElseThrow();
        assertEquals(100.0, span.offsetsPerSecond(), 1e-9);
        assertEquals(200.0, span.perSecond(1_000), 1e-9, "1000 bytes over 5 s");
    }

    @Test
    void aFollowerThatStoppedFetchingSlowsToZeroWithinAWindow() {
        CatchUpRate rate = new CatchUpRate(10_000, 10);
        rate.record(0, 0);
        rate.record(2_000, 200);
        assertEquals(100.0, rate.span(2_000).orElseThrow().offsetsPerSecond(), 1e-9);
        assertEquals(20.0, rate.span(10_000).orElseThrow().offsetsPerSecond(), 1e-9, "200 offsets over 10 s");
        assertTrue(rate.span(12_001).isEmpty(), "nothing left in the window");
    }

    @Test
    void staysBoundedHoweverOftenTheFollowerFetches() {
        CatchUpRate rate = new CatchUpRate(10_000, 8);
        for (long t = 0; t <= 60_000; t += 3) {
            rate.record(t, t);
            assertTrue(rate.size() <= 8, "at " + t + ": " + rate.size());
        }
        CatchUpRate.Span span = rate.span(60_000).orElseThrow();
        assertEquals(60_000, span.newest().logEndOffset(), "the newest position is always the last fetch");
        assertTrue(span.spanMs() <= 10_000 && span.spanMs() >= 10_000 - 10_000 / 7 - 3, span.toString());
        assertEquals(1_000.0, span.offsetsPerSecond(), 1e-6);
    }

    @Test
    void aTruncationReportsNoProgressRatherThanANegativeRate() {
        CatchUpRate rate = new CatchUpRate(10_000, 10);
        rate.record(0, 500);
        rate.record(3_000, 100);
        assertEquals(0.0, rate.span(3_000).orElseThrow().offsetsPerSecond());
    }

    @Test
    void oneFetchIsNoRate() {
        CatchUpRate rate = new CatchUpRate();
        rate.record(0, 10);
        assertTrue(rate.span(0).isEmpty());
        assertThrows(IllegalArgumentException.class, () -> new CatchUpRate(0, 4));
    }
}
