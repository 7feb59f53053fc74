package io.tideline.client;

/**
 * Which time a record's timestamp is, as the topic's message.timestamp.type chose when its batch was
 * written. The client's own type, so that the client API does not expose the store's classes.
 */
public enum TimestampType {
    /** The producer's timestamp. */
    CREATE_TIME("CreateTime"),
    /** The leader's clock when it appended the batch. */
    LOG_APPEND_TIME("LogAppendTime");

    private final String label;

    TimestampType(String label) {
        this.label = label;
    }

    /** Kafka's name for it, as its tools print it: CreateTime or LogAppendTime. */
    public String label() {
        return label;
    }
}
