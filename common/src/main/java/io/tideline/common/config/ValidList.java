package io.tideline.common.config;

import java.util.List;

/**
 * A LIST key that must hold at least one entry and no blank entries ({@code "a,,b"} or a trailing comma
 * is almost always a typo, and a blank log directory would resolve to the working directory).
 */
public final class ValidList implements Validator {
    private static final ValidList NON_EMPTY = new ValidList(List.of());

    /** The values an entry may take; empty: any non-blank entry. */
    private final List<String> allowed;

    private ValidList(List<String> allowed) {
        this.allowed = allowed;
    }

    public static ValidList nonEmpty() {
        return NON_EMPTY;
    }

    /** A non-empty list whose every entry is one of {@code allowed} (exact match, as Kafka's ValidList). */
    public static ValidList in(String... allowed) {
        return new ValidList(List.of(allowed));
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (!(value instanceof List<?> list)) {
            throw new ConfigException(name, value, "Value must be a list");
        }
        if (list.isEmpty()) {
            throw new ConfigException(name, "\"\"", "Value must be a non-empty list");
        }
        for (Object entry : list) {
            if (entry == null || entry.toString().isBlank()) {
                throw new ConfigException(name, String.join(",", list.stream().map(String::valueOf).toList()),
                        "List entries must not be blank");
            }
            if (!allowed.isEmpty() && !allowed.contains(entry.toString())) {
                throw new ConfigException(name, String.join(",", list.stream().map(String::valueOf).toList()),
                        "Invalid value " + entry + "; each entry must be one of " + String.join(", ", allowed));
            }
        }
    }

    @Override
    public String describe() {
        return allowed.isEmpty() ? "non-empty list" : "non-empty list of " + String.join(", ", allowed);
    }

    @Override
    public String toString() {
        return describe();
    }
}
