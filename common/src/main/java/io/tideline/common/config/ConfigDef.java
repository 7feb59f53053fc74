package io.tideline.common.config;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The single declaration of a set of configuration keys: name, type, default, validator, importance and
 * documentation. Everything else is derived from it: {@link #parse parsing} into typed values,
 * {@link AbstractConfig#logValues startup logging} and the {@link #toMarkdownTable table in the docs}.
 *
 * <p>A key has one of three kinds of default:
 * <ul>
 *   <li>a value: used when the key is absent; it is parsed and validated when the key is defined, so a
 *       bad default fails at class initialisation rather than on some operator's broker;</li>
 *   <li>{@code null}: the key is optional and unset when absent (e.g. {@code log.retention.ms}, which
 *       falls back to {@code log.retention.hours}); validators never see {@code null};</li>
 *   <li>{@link #NO_DEFAULT}: the key is required.</li>
 * </ul>
 *
 * <p>Values may be given as strings (trimmed, as read from a properties file) or already typed
 * (Integer, Long or any integral Number, Boolean, List of strings). A {@code null} value counts as
 * absent. Keys not defined here are ignored by {@link #parse}; see {@link #unknownKeys}.
 *
 * <p>Not thread-safe while keys are being defined; once built (typically in a static initialiser and
 * never modified after) it is safe to share between threads.
 */
public final class ConfigDef {

    /** Marks a required key. */
    public static final Object NO_DEFAULT = new Object() {
        @Override
        public String toString() {
            return "NO_DEFAULT";
        }
    };

    public enum Type {
        INT, LONG, DOUBLE, BOOLEAN, STRING,
        /** Comma-separated strings; each entry is trimmed. */
        LIST;

        /** Lower-case name, as shown in the docs. */
        public String displayName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public enum Importance {
        HIGH, MEDIUM, LOW
    }

    /**
     * One declared key.
     *
     * @param defaultValue the parsed default; {@code null} for an optional key without one and for a
     *                     required key (see {@link #required})
     * @param validator    {@code null} when any value of the type is accepted
     */
    public record ConfigKey(String name, Type type, Object defaultValue, boolean required, Validator validator,
                            Importance importance, String documentation) {
    }

    private final Map<String, ConfigKey> keys;

    public ConfigDef() {
        this.keys = new LinkedHashMap<>();
    }

    /** A copy of {@code base} that can be extended without changing {@code base}. */
    public ConfigDef(ConfigDef base) {
        this.keys = new LinkedHashMap<>(base.keys);
    }

    /**
     * Declares a key.
     *
     * @param defaultValue a value (string or typed), {@code null} for optional-and-unset, or
     *                     {@link #NO_DEFAULT} for required
     * @param validator    may be {@code null}
     * @throws IllegalArgumentException if the key is already defined
     * @throws ConfigException          if the default does not parse or is refused by the validator
     */
    public ConfigDef define(String name, Type type, Object defaultValue, Validator validator,
                            Importance importance, String documentation) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(importance, "importance");
        Objects.requireNonNull(documentation, "documentation");
        if (keys.containsKey(name)) {
            throw new IllegalArgumentException("Configuration " + name + " is defined twice");
        }
        boolean required = defaultValue == NO_DEFAULT;
        Object parsedDefault = null;
        if (!required && defaultValue != null) {
            parsedDefault = parseType(name, defaultValue, type);
            if (validator != null) {
                validator.ensureValid(name, parsedDefault);
            }
        }
        keys.put(name, new ConfigKey(name, type, parsedDefault, required, validator, importance, documentation));
        return this;
    }

    /** Declares a key whose every value of {@code type} is valid. */
    public ConfigDef define(String name, Type type, Object defaultValue, Importance importance,
                            String documentation) {
        return define(name, type, defaultValue, null, importance, documentation);
    }

    /** Declares a required key without a validator. */
    public ConfigDef define(String name, Type type, Importance importance, String documentation) {
        return define(name, type, NO_DEFAULT, null, importance, documentation);
    }

    /** The declared keys, in definition order. */
    public Map<String, ConfigKey> configKeys() {
        return Collections.unmodifiableMap(keys);
    }

    /** The declared key names, in definition order. */
    public Set<String> names() {
        return Collections.unmodifiableSet(keys.keySet());
    }

    /**
     * Parses and validates every declared key.
     *
     * @return key to typed value (Integer, Long, Double, Boolean, String, or an immutable List of String;
     *         {@code null} for an unset optional key), in definition order, unmodifiable
     * @throws ConfigException for the first bad value or missing required key, naming it
     */
    public Map<String, Object> parse(Map<String, ?> props) {
        Objects.requireNonNull(props, "props");
        Map<String, Object> values = new LinkedHashMap<>();
        for (ConfigKey key : keys.values()) {
            values.put(key.name(), parseValue(key, props.get(key.name())));
        }
        return Collections.unmodifiableMap(values);
    }

    /** The supplied keys that are not declared here, sorted; for callers that warn about typos. */
    public Set<String> unknownKeys(Map<String, ?> props) {
        Set<String> unknown = new TreeSet<>(props.keySet());
        unknown.removeAll(keys.keySet());
        return Collections.unmodifiableSet(unknown);
    }

    private static Object parseValue(ConfigKey key, Object raw) {
        if (raw == null) {
            if (key.required()) {
                throw new ConfigException(key.name(),
                        "Missing required configuration \"" + key.name() + "\" which has no default value.");
            }
            return key.defaultValue();
        }
        Object value = parseType(key.name(), raw, key.type());
        if (key.validator() != null) {
            key.validator().ensureValid(key.name(), value);
        }
        return value;
    }

    /**
     * Converts {@code value} (a string or an already-typed value) to {@code type}.
     *
     * @throws ConfigException naming the key and the value when it does not convert
     */
    public static Object parseType(String name, Object value, Type type) {
        Objects.requireNonNull(value, "value");
        return switch (type) {
            case INT -> {
                Long l = toLong(value);
                if (l == null || l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) {
                    throw wrongType(name, value, "Expected a 32-bit integer");
                }
                yield l.intValue();
            }
            case LONG -> {
                Long l = toLong(value);
                if (l == null) {
                    throw wrongType(name, value, "Expected a 64-bit integer");
                }
                yield l;
            }
            case DOUBLE -> {
                if (value instanceof Number n) {
                    yield n.doubleValue();
                }
                if (value instanceof String s) {
                    try {
                        yield Double.parseDouble(s.trim());
                    } catch (NumberFormatException e) {
                        // fall through to the error below
                    }
                }
                throw wrongType(name, value, "Expected a number");
            }
            case BOOLEAN -> {
                if (value instanceof Boolean b) {
                    yield b;
                }
                if (value instanceof String s) {
                    String t = s.trim();
                    if (t.equalsIgnoreCase("true")) {
                        yield Boolean.TRUE;
                    }
                    if (t.equalsIgnoreCase("false")) {
                        yield Boolean.FALSE;
                    }
                }
                throw wrongType(name, value, "Expected a boolean (true or false)");
            }
            case STRING -> {
                if (value instanceof String s) {
                    yield s.trim();
                }
                throw wrongType(name, value, "Expected a string");
            }
            case LIST -> {
                if (value instanceof String s) {
                    String t = s.trim();
                    if (t.isEmpty()) {
                        yield List.of();
                    }
                    List<String> entries = new ArrayList<>();
                    // limit -1 keeps trailing empty entries, so a validator can refuse "a,b,".
                    for (String entry : t.split(",", -1)) {
                        entries.add(entry.trim());
                    }
                    yield List.copyOf(entries);
                }
                if (value instanceof List<?> list) {
                    List<String> entries = new ArrayList<>(list.size());
                    for (Object entry : list) {
                        if (!(entry instanceof String s)) {
                            throw wrongType(name, value, "Expected a list of strings");
                        }
                        entries.add(s.trim());
                    }
                    yield List.copyOf(entries);
                }
                throw wrongType(name, value, "Expected a comma-separated list");
            }
        };
    }

    /** The exact long value of an integral Number or a decimal string; null when there is none. */
    private static Long toLong(Object value) {
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        try {
            if (value instanceof String s) {
                return Long.parseLong(s.trim());
            }
            if (value instanceof BigInteger bi) {
                return bi.longValueExact();
            }
            if (value instanceof Number n) {
                // Doubles, BigDecimals, atomics: accepted only when they hold a whole number in range.
                return new BigDecimal(n.toString()).longValueExact();
            }
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
        return null;
    }

    private static ConfigException wrongType(String name, Object value, String expected) {
        String reason = value instanceof String ? expected
                : expected + ", got " + value.getClass().getSimpleName();
        return new ConfigException(name, value, reason);
    }

    /**
     * The definitions as a Markdown table (name, type, default, valid values, importance, description),
     * one row per key in definition order, for the generated configuration docs.
     */
    public String toMarkdownTable() {
        StringBuilder sb = new StringBuilder();
        sb.append("| Name | Type | Default | Valid values | Importance | Description |\n");
        sb.append("|------|------|---------|--------------|------------|-------------|\n");
        for (ConfigKey key : keys.values()) {
            sb.append("| `").append(key.name()).append("` | ")
                    .append(key.type().displayName()).append(" | ")
                    .append(markdownDefault(key)).append(" | ")
                    .append(cell(key.validator() == null ? "" : key.validator().describe())).append(" | ")
                    .append(key.importance().name().toLowerCase(Locale.ROOT)).append(" | ")
                    .append(cell(key.documentation())).append(" |\n");
        }
        return sb.toString();
    }

    private static String markdownDefault(ConfigKey key) {
        if (key.required()) {
            return "(required)";
        }
        if (key.defaultValue() == null) {
            return "(unset)";
        }
        String text = formatValue(key.defaultValue());
        return text.isEmpty() ? "\"\"" : "`" + cell(text) + "`";
    }

    /** A typed value as an operator would write it: lists comma-joined, everything else via toString. */
    public static String formatValue(Object value) {
        if (value instanceof List<?> list) {
            StringBuilder sb = new StringBuilder();
            for (Object entry : list) {
                if (sb.length() > 0) {
                    sb.append(',');
                }
                sb.append(entry);
            }
            return sb.toString();
        }
        return String.valueOf(value);
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\r", "").replace("\n", " ");
    }
}
