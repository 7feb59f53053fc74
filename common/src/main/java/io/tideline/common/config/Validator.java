package io.tideline.common.config;

/**
 * Checks one already-typed configuration value. {@link ConfigDef} calls it for supplied values and for
 * defaults (at definition time), never with {@code null}: a key whose default is {@code null} is simply
 * unset.
 */
public interface Validator {

    /**
     * @param name  the key, for the message
     * @param value the parsed value, of the key's {@link ConfigDef.Type}
     * @throws ConfigException naming the key, the value and the rule it breaks
     */
    void ensureValid(String name, Object value);

    /** The accepted values, as shown in the "Valid values" column of the generated docs. */
    String describe();
}
