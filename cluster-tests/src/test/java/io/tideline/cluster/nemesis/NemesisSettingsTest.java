package io.tideline.cluster.nemesis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class NemesisSettingsTest {
    private static final Duration MINUTE = Duration.ofMinutes(1);

    private static NemesisSettings settings(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return NemesisSettings.from(p, MINUTE);
    }

    @Test
    void theBudgetDecidesUnlessRoundsOrASeedAreGiven() {
        assertEquals(new NemesisSettings(MINUTE, OptionalInt.empty(), OptionalLong.empty()), settings());
        assertEquals(Duration.ofMinutes(25), settings("nemesis.budget", "PT25M").budget());

        NemesisSettings budget = settings();
        assertTrue(budget.anotherRound(0, Duration.ofMinutes(5), Duration.ZERO), "always one round");
        assertTrue(budget.anotherRound(3, Duration.ofSeconds(40), Duration.ofSeconds(20)));
        assertFalse(budget.anotherRound(3, Duration.ofSeconds(41), Duration.ofSeconds(20)),
                "the longest round so far would overrun the budget");
    }

    @Test
    void roundsCountExactlyAndASeedRunsOneRound() {
        NemesisSettings rounds = settings("nemesis.rounds", "3", "nemesis.budget", "PT1S");
        assertTrue(rounds.anotherRound(2, Duration.ofHours(1), Duration.ofHours(1)));
        assertFalse(rounds.anotherRound(3, Duration.ZERO, Duration.ZERO));

        NemesisSettings seed = settings("nemesis.seed", "-4711", "nemesis.rounds", "3");
        assertEquals(OptionalLong.of(-4711), seed.seed());
        assertTrue(seed.anotherRound(0, Duration.ZERO, Duration.ZERO));
        assertFalse(seed.anotherRound(1, Duration.ZERO, Duration.ZERO));
    }

    @Test
    void aBadValueNamesTheProperties() {
        var e = assertThrows(IllegalArgumentException.class, () -> settings("nemesis.budget", "2 minutes"));
        assertTrue(e.getMessage().startsWith("bad nemesis settings (nemesis.budget=2 minutes"), e.getMessage());
    }
}
