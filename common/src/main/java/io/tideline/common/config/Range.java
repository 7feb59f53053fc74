package io.tideline.common.config;

/**
 * A numeric bound for INT, LONG and DOUBLE keys. Integral values are compared exactly as longs; a
 * double on either side switches to double comparison.
 */
public final class Range implements Validator {
    private final Number min;
    private final Number max;

    private Range(Number min, Number max) {
        this.min = min;
        this.max = max;
    }

    /** Accepts values {@code >= min}. */
    public static Range atLeast(Number min) {
        if (min == null) {
            throw new IllegalArgumentException("min must not be null");
        }
        return new Range(min, null);
    }

    /** Accepts values in {@code [min, max]}, both ends included. */
    public static Range between(Number min, Number max) {
        if (min == null || max == null) {
            throw new IllegalArgumentException("min and max must not be null");
        }
        if (compare(min, max) > 0) {
            throw new IllegalArgumentException("min " + min + " is greater than max " + max);
        }
        return new Range(min, max);
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (!(value instanceof Number n)) {
            throw new ConfigException(name, value, "Value must be a number");
        }
        if (max == null) {
            if (compare(n, min) < 0) {
                throw new ConfigException(name, value, "Value must be at least " + min);
            }
        } else if (compare(n, min) < 0 || compare(n, max) > 0) {
            throw new ConfigException(name, value, "Value must be between " + min + " and " + max);
        }
    }

    @Override
    public String describe() {
        return max == null ? "[" + min + ",...]" : "[" + min + ",...," + max + "]";
    }

    @Override
    public String toString() {
        return describe();
    }

    private static int compare(Number a, Number b) {
        if (isFloating(a) || isFloating(b)) {
            return Double.compare(a.doubleValue(), b.doubleValue());
        }
        return Long.compare(a.longValue(), b.longValue());
    }

    private static boolean isFloating(Number n) {
        return n instanceof Double || n instanceof Float;
    }
}
