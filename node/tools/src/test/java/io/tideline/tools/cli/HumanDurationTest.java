package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class HumanDurationTest {
    @Test
    void belowASecondInMilliseconds() {
        assertEquals("0 ms", HumanDuration.format(0));
        assertEquals("999 ms", HumanDuration.format(999));
    }

    @Test
    void belowAMinuteInSecondsToATenth() {
        assertEquals("1 s", HumanDuration.format(1_000));
        assertEquals("6.8 s", HumanDuration.format(6_808));
        assertEquals("2 s", HumanDuration.format(1_950));
        assertEquals("59.9 s", HumanDuration.format(59_949));
    }

    @Test
    void minutesWithSecondsThenHoursWithMinutesThenDaysWithHours() {
        assertEquals("1 min", HumanDuration.format(59_950));
        assertEquals("2 min 5 s", HumanDuration.format(125_400));
        assertEquals("1 h", HumanDuration.format(3_599_600));
        assertEquals("3 h 20 min", HumanDuration.format(12_000_000));
        assertEquals("1 d", HumanDuration.format(86_399_000));
        assertEquals("2 d 4 h", HumanDuration.format((2 * 24 + 4) * 3_600_000L));
        assertEquals("106751991167 d 7 h", HumanDuration.format(Long.MAX_VALUE));
    }

    @Test
    void aNegativeDurationIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> HumanDuration.format(-1));
    }
}
