package io.tideline.common.config;

import java.util.List;

/** A STRING key restricted to a fixed set of values, compared case-sensitively (as Kafka does). */
public final class ValidString implements Validator {
    private final List<String> allowed;

    private ValidString(List<String> allowed) {
        this.allowed = allowed;
    }

    public static ValidString in(String... allowed) {
        if (allowed.length == 0) {
            throw new IllegalArgumentException("at least one allowed value is needed");
        }
        return new ValidString(List.of(allowed));
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (!(value instanceof String s) || !allowed.contains(s)) {
            throw new ConfigException(name, value, "String must be one of: " + String.join(", ", allowed));
        }
    }

    @Override
    public String describe() {
        return String.join(", ", allowed);
    }

    @Override
    public String toString() {
        return "[" + describe() + "]";
    }
}
