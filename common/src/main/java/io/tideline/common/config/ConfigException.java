package io.tideline.common.config;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;

/**
 * A configuration value that cannot be used: wrong type, refused by its validator, or a required key
 * that is missing. The message always names the key (and the value, when there is one) so that an
 * operator can fix the file from the message alone; {@link #key()} carries the key for code that reports
 * it per field (e.g. an AlterConfigs response).
 */
public final class ConfigException extends TidelineException {
    private final String key;

    /** {@code Invalid value <value> for configuration <key>: <reason>}. */
    public ConfigException(String key, Object value, String reason) {
        super(Errors.INVALID_CONFIG, "Invalid value " + value + " for configuration " + key
                + (reason == null || reason.isEmpty() ? "" : ": " + reason));
        this.key = key;
    }

    /** A message that is not about one value, e.g. a missing required key; it must name {@code key}. */
    public ConfigException(String key, String message) {
        super(Errors.INVALID_CONFIG, message);
        this.key = key;
    }

    /** The configuration key at fault. */
    public String key() {
        return key;
    }
}
