package io.tideline.replication.fetcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.time.MockTime;
import org.junit.jupiter.api.Test;

class ReplicationQuotaTest {
    private final MockTime time = new MockTime();

    @Test
    void bytesOverTheRateAreDebtRepaidAtTheRate() {
        ReplicationQuota quota = new ReplicationQuota(1000, time);
        assertFalse(quota.isExceeded());
        assertEquals(0, quota.throttleTimeMs());

        quota.record(500);
        assertTrue(quota.isExceeded());
        assertEquals(500, quota.throttleTimeMs());
        time.advance(250);
        assertTrue(quota.isExceeded());
        assertEquals(250, quota.throttleTimeMs());
        time.advance(250);
        assertFalse(quota.isExceeded());
        assertEquals(0, quota.throttleTimeMs());
    }

    @Test
    void oneRecordIsTakenWholeEvenWhenFarLargerThanTheRate() {
        ReplicationQuota quota = new ReplicationQuota(1000, time);
        quota.record(5000);
        assertEquals(5000, quota.throttleTimeMs());
        time.advance(4999);
        assertTrue(quota.isExceeded());
        time.advance(1);
        assertFalse(quota.isExceeded());
    }

    @Test
    void idleTimeSavesAtMostATenthOfASecond() {
        ReplicationQuota quota = new ReplicationQuota(1000, time);
        time.advance(60_000);
        quota.record(100);
        assertFalse(quota.isExceeded(), "a tenth of a second of tokens was saved");
        quota.record(50);
        assertTrue(quota.isExceeded(), "but no more");
        assertEquals(50, quota.throttleTimeMs());
    }

    @Test
    void aSenderThatWaitsOutTheThrottleRunsAtTheRate() {
        ReplicationQuota quota = new ReplicationQuota(1_000_000, time);
        long start = time.milliseconds();
        long sent = 0;
        while (time.milliseconds() - start < 10_000) {
            if (quota.isExceeded()) {
                time.advance(quota.throttleTimeMs());
            } else {
                quota.record(65_536);
                sent += 65_536;
            }
        }
        double rate = sent / ((time.milliseconds() - start) / 1000.0);
        // Within one record plus the saved tenth of a second, over ten seconds.
        assertTrue(Math.abs(rate - 1_000_000) <= (65_536 + 100_000) / 10.0, "rate " + rate);
        assertEquals(sent, quota.totalRecorded());
    }

    @Test
    void aNewRateAppliesToTheDebtAlreadyOwed() {
        ReplicationQuota quota = new ReplicationQuota(1000, time);
        quota.record(1000);
        assertEquals(1000, quota.throttleTimeMs());
        quota.setRate(2000);
        assertEquals(2000, quota.rate());
        assertEquals(500, quota.throttleTimeMs());
        time.advance(500);
        assertFalse(quota.isExceeded());
    }

    @Test
    void timeBeforeARateChangeRepaysDebtAtTheOldRate() {
        ReplicationQuota quota = new ReplicationQuota(1000, time);
        quota.record(1000);
        time.advance(500);
        quota.setRate(2000);
        // 500 bytes were repaid at 1000 B/s; the other 500 take 250 ms at 2000 B/s.
        assertEquals(250, quota.throttleTimeMs());
    }

    @Test
    void loweringTheRateShrinksTheSavedTokens() {
        ReplicationQuota quota = new ReplicationQuota(10_000, time);
        time.advance(10_000);
        quota.setRate(1000);
        quota.record(101);
        assertTrue(quota.isExceeded(), "at most a tenth of a second at the new rate is left");
    }

    @Test
    void aRateMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new ReplicationQuota(0, time));
        ReplicationQuota quota = new ReplicationQuota(1000, time);
        assertThrows(IllegalArgumentException.class, () -> quota.setRate(-1));
        assertEquals(1000, quota.rate());
    }

    @Test
    void unlimitedIsNeverExceededButStillCounts() {
        ReplicationQuota quota = ReplicationQuota.unlimited(time);
        assertTrue(quota.isUnlimited());
        quota.record(Long.MAX_VALUE / 4);
        quota.record(1);
        assertFalse(quota.isExceeded());
        assertEquals(0, quota.throttleTimeMs());
        assertEquals(Long.MAX_VALUE / 4 + 1, quota.totalRecorded());
        assertFalse(new ReplicationQuota(1, time).isUnlimited());
    }

    @Test
    void unlimitedCanBeLimitedLater() {
        ReplicationQuota quota = ReplicationQuota.unlimited(time);
        quota.record(10_000);
        quota.setRate(1000);
        assertFalse(quota.isExceeded(), "bytes sent while unlimited are no debt");
        quota.record(200);
        assertTrue(quota.isExceeded());
    }
}
