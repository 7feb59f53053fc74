package io.tideline.store.record;

import java.util.Arrays;
import java.util.Objects;

/** A record header: a UTF-8 key and a nullable byte value. */
public record Header(String key, byte[] value) {
    public Header {
        Objects.requireNonNull(key, "header key");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Header h && key.equals(h.key) && Arrays.equals(value, h.value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return key + "=" + (value == null ? "null" : value.length + " bytes");
    }
}
