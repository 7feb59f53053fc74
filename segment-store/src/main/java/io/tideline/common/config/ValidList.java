package io.tideline.common.config;

import java.util.List;

/**
 * A LIST key that must hold at least one entry and no blank entries ({@code "a,,b"} or a trailing comma
 * is almost always a typo, and a blank log directory would resolve to the working directory).
 */
public final class ValidList implements Validator {
    private static final ValidList NON_EMPTY = new ValidList();

    private ValidList() {
    }

    public static ValidList nonEmpty() {
        return NON_EMPTY;
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
        }
    }

    @Override
    public String describe() {
        return "non-empty list";
    }

    @Override
    public String toString() {
        return describe();
    }
}
