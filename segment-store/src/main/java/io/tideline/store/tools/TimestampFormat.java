package io.tideline.store.tools;

import java.time.Instant;

/** How dump-log prints timestamps: ISO-8601 for people, or Kafka's epoch milliseconds for diffing with its tool. */
enum TimestampFormat {
    iso, epoch_ms;

    String format(long timestamp) {
        return this == epoch_ms || timestamp < 0 ? Long.toString(timestamp)
                : Instant.ofEpochMilli(timestamp).toString();
    }
}
