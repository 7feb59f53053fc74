package io.tideline.cluster.nemesis;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Properties;

/**
 * How long a nemesis run goes on, from system properties: {@code nemesis.budget} (an ISO-8601 duration such
 * as {@code PT25M}; rounds start while the budget is not spent), {@code nemesis.rounds} (exactly that many
 * rounds, whatever the budget) and {@code nemesis.seed} (one round with that seed: the rerun of a failure).
 */
public record NemesisSettings(Duration budget, OptionalInt rounds, OptionalLong seed) {
    public static final String BUDGET = "nemesis.budget";
    public static final String ROUNDS = "nemesis.rounds";
    public static final String SEED = "nemesis.seed";

    public static NemesisSettings from(Properties properties, Duration defaultBudget) {
        String budget = properties.getProperty(BUDGET);
        String rounds = properties.getProperty(ROUNDS);
        String seed = properties.getProperty(SEED);
        try {
            return new NemesisSettings(budget == null || budget.isBlank() ? defaultBudget : Duration.parse(budget),
                    rounds == null || rounds.isBlank() ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(rounds)),
                    seed == null || seed.isBlank() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(seed)));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("bad nemesis settings (" + BUDGET + "=" + budget + ", " + ROUNDS + "="
                    + rounds + ", " + SEED + "=" + seed + "): " + e.getMessage(), e);
        }
    }

    /**
     * Whether to start round {@code done + 1}: with a seed only the first; with a round count until that many;
     * otherwise while the time left covers the longest round so far, so the run ends near its budget.
     */
    public boolean anotherRound(int done, Duration elapsed, Duration longestRound) {
        if (seed.isPresent()) {
            return done == 0;
        }
        if (rounds.isPresent()) {
            return done < rounds.getAsInt();
        }
        return done == 0 || elapsed.plus(longestRound).compareTo(budget) <= 0;
    }
}
