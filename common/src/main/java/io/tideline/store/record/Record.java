package io.tideline.store.record;

import java.util.Arrays;
import java.util.List;

/** One decoded record of a batch, with its absolute offset and timestamp. Key and value may be null. */
public record Record(long offset, long timestamp, byte[] key, byte[] value, List<Header> headers) {

    public Record {
        headers = List.copyOf(headers);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Record r && offset == r.offset && timestamp == r.timestamp
                && Arrays.equals(key, r.key) && Arrays.equals(value, r.value) && headers.equals(r.headers);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(offset) * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Record(offset=" + offset + ", timestamp=" + timestamp + ", key="
                + (key == null ? "null" : key.length + "B") + ", value="
                + (value == null ? "null" : value.length + "B") + ", headers=" + headers + ")";
    }
}
