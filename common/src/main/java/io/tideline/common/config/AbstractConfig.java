package io.tideline.common.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

import org.slf4j.Logger;

/**
 * The supplied settings and their parsed, validated values under one {@link ConfigDef}. Subclasses read
 * the typed getters once in their constructor into final fields, apply their cross-field rules there,
 * and expose plain accessors; nothing re-parses later.
 *
 * <p>Immutable and safe to share between threads.
 */
public abstract class AbstractConfig {
    private final ConfigDef definition;
    private final Map<String, Object> originals;
    private final Map<String, Object> values;

    /**
     * @param originals the settings as supplied (strings or typed values); copied
     * @throws ConfigException if a value is invalid or a required key is missing
     */
    protected AbstractConfig(ConfigDef definition, Map<String, ?> originals) {
        this.definition = Objects.requireNonNull(definition, "definition");
        this.originals = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(originals)));
        this.values = definition.parse(this.originals);
    }

    /** The settings as supplied, including keys the definition does not know. */
    public Map<String, Object> originals() {
        return originals;
    }

    /** Every declared key with its effective value (defaults filled in), in definition order. */
    public Map<String, Object> values() {
        return values;
    }

    /** The supplied keys that the definition does not know (typos, or settings for another component). */
    public Set<String> unknownKeys() {
        return definition.unknownKeys(originals);
    }

    /** True when the effective value of {@code key} came from its default rather than the settings. */
    public boolean isDefault(String key) {
        requireKey(key);
        return originals.get(key) == null;
    }

    /** The effective value of a declared key; {@code null} for an unset optional key. */
    public Object get(String key) {
        requireKey(key);
        return values.get(key);
    }

    public Integer getInt(String key) {
        return (Integer) typed(key, ConfigDef.Type.INT);
    }

    public Long getLong(String key) {
        return (Long) typed(key, ConfigDef.Type.LONG);
    }

    public Double getDouble(String key) {
        return (Double) typed(key, ConfigDef.Type.DOUBLE);
    }

    public Boolean getBoolean(String key) {
        return (Boolean) typed(key, ConfigDef.Type.BOOLEAN);
    }

    public String getString(String key) {
        return (String) typed(key, ConfigDef.Type.STRING);
    }

    @SuppressWarnings("unchecked")
    public List<String> getList(String key) {
        return (List<String>) typed(key, ConfigDef.Type.LIST);
    }

    /**
     * One line per declared key, sorted by name: {@code key = value (default)} or
     * {@code key = value (custom)}. This is what {@link #logValues} prints.
     */
    public List<String> describeValues() {
        List<String> lines = new ArrayList<>(values.size());
        for (Map.Entry<String, Object> e : new TreeMap<>(values).entrySet()) {
            lines.add(e.getKey() + " = " + ConfigDef.formatValue(e.getValue())
                    + (isDefault(e.getKey()) ? " (default)" : " (custom)"));
        }
        return lines;
    }

    /**
     * Logs every effective value at INFO in a single message, so that the block an operator reads at
     * startup is not interleaved with other threads' lines.
     */
    public void logValues(Logger log) {
        StringBuilder sb = new StringBuilder(getClass().getSimpleName()).append(" values:");
        for (String line : describeValues()) {
            sb.append(System.lineSeparator()).append('\t').append(line);
        }
        log.info(sb.toString());
    }

    private Object typed(String key, ConfigDef.Type expected) {
        ConfigDef.ConfigKey def = requireKey(key);
        if (def.type() != expected) {
            throw new IllegalArgumentException("Configuration " + key + " is of type " + def.type().displayName()
                    + ", not " + expected.displayName());
        }
        return values.get(key);
    }

    private ConfigDef.ConfigKey requireKey(String key) {
        ConfigDef.ConfigKey def = definition.configKeys().get(key);
        if (def == null) {
            throw new ConfigException(key, "Unknown configuration " + key);
        }
        return def;
    }
}
