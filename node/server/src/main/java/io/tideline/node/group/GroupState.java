package io.tideline.node.group;

/** Kafka's classic group states, with the names DescribeGroups and ListGroups print. */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String kafkaName;

    GroupState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    public String kafkaName() {
        return kafkaName;
    }
}
