package io.tideline.client;

/** One group as ListGroups names it: its id, Kafka's state name (Empty, Stable, ...) and protocol type. */
public record ConsumerGroupListing(String groupId, String state, String protocolType) {
}
