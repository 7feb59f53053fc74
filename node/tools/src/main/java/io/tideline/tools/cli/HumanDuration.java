package io.tideline.tools.cli;

import java.util.Locale;

/**
 * A duration as people write it, for what the CLI prints to a person: "850 ms", "6.8 s", "2 min 5 s", "3 h 20 min",
 * "2 d 4 h". Two units at most, because a time left or taken is an estimate; ISO-8601 ({@code PT6.808S}) stays for
 * JSON output, where a program reads it. Stateless and thread-safe.
 */
public final class HumanDuration {
    private static final long SECOND = 1_000;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;

    private HumanDuration() {
    }

    /** {@code millis} (not negative) rounded to its largest two units; below a minute, seconds to a tenth. */
    public static String format(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("a negative duration: " + millis + " ms");
        }
        if (millis < SECOND) {
            return millis + " ms";
        }
        if (millis < MINUTE - 50) {
            // Tenths, rounded half up; 59.95 s and above would print "60.0 s", so they go to the minute form.
            long tenths = (millis + 50) / 100;
            return tenths % 10 == 0 ? tenths / 10 + " s" : String.format(Locale.ROOT, "%d.%d s", tenths / 10, tenths % 10);
        }
        if (millis < HOUR - SECOND / 2) {
            return twoUnits(Math.round(millis / (double) SECOND), 60, "min", "s");
        }
        if (millis < DAY - MINUTE / 2) {
            return twoUnits(Math.round(millis / (double) MINUTE), 60, "h", "min");
        }
        return twoUnits(Math.round(millis / (double) HOUR), 24, "d", "h");
    }

    private static String twoUnits(long small, long perLarge, String largeUnit, String smallUnit) {
        long large = small / perLarge;
        long rest = small % perLarge;
        return rest == 0 ? large + " " + largeUnit : large + " " + largeUnit + " " + rest + " " + smallUnit;
    }
}
