package io.tideline.client;

/** Kafka's election types, with Kafka's wire values. */
public enum ElectionType {
    /** Move leadership back to the first replica of each partition, if it is in sync. */
    PREFERRED(0),
    /** Give a partition without a leader one, even a replica that was not in sync: records may be lost. */
    UNCLEAN(1);

    private final int value;

    ElectionType(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }
}
