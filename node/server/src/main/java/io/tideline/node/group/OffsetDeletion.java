package io.tideline.node.group;

import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.DeleteGroupOffsets;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;

/**
 * OffsetDelete (docs/kafka-protocol.md, Consumer groups), Kafka's rules for a classic group: an Empty group
 * loses the offsets named; a consumer group with members keeps those of topics a member subscribes to
 * (GROUP_SUBSCRIBED_TO_TOPIC) and loses the others; a group of another protocol type with members is
 * NON_EMPTY_GROUP. The subscriptions are checked here, in the coordinator's memory; the quorum then removes the
 * offsets the image holds.
 */
public final class OffsetDeletion {
    /** The protocol type of Kafka's consumers, whose member metadata is a ConsumerProtocolSubscription. */
    private static final String CONSUMER = "consumer";

    /** The top-level error, and per partition of the request ({@link RequestPartitionKey}) the partition's error. */
    public record Outcome(Errors error, Map<String, Errors> partitions) {
        /** A partition's error; only meaningful when {@link #error()} is NONE. */
        public Errors partition(String topic, int partition) {
            return partitions.getOrDefault(RequestPartitionKey.of(topic, partition), Errors.NONE);
        }
    }

    private final GroupRegistry registry;
    private final GroupAdmin admin;

    OffsetDeletion(GroupRegistry registry, GroupAdmin admin) {
        this.registry = registry;
        this.admin = admin;
    }

    /** @param partitions topic -> partitions, in the request's order */
    CompletableFuture<Outcome> delete(String groupId, Map<String, List<Integer>> partitions) {
        Errors owner = registry.ownership(groupId);
        if (owner != Errors.NONE) {
            return done(owner);
        }
        GroupRegistry.Lookup found = registry.find(groupId, false);
        if (found.error() != Errors.NONE) {
            return done(found.error());
        }
        ClassicGroup g = found.group();
        if (g == null) {
            return done(Errors.GROUP_ID_NOT_FOUND);
        }
        Map<String, Errors> results = new LinkedHashMap<>();
        DeleteGroupOffsets.Builder command = DeleteGroupOffsets.newBuilder().setGroupId(groupId);
        synchronized (g) {
            if (g.is(GroupState.DEAD)) {
                return done(Errors.GROUP_ID_NOT_FOUND);
            }
            Set<String> subscribed = Set.of();
            if (!g.is(GroupState.EMPTY)) {
                if (!CONSUMER.equals(g.protocolType)) {
                    return done(Errors.NON_EMPTY_GROUP);
                }
                subscribed = subscribedTopics(g);
            }
            for (Map.Entry<String, List<Integer>> t : partitions.entrySet()) {
                boolean kept = subscribed == null || subscribed.contains(t.getKey());
                for (int p : t.getValue()) {
                    results.put(RequestPartitionKey.of(t.getKey(), p), kept ? Errors.GROUP_SUBSCRIBED_TO_TOPIC : Errors.NONE);
                    if (!kept) {
                        command.addPartitions(TopicPartitionRef.newBuilder().setTopic(t.getKey()).setPartition(p));
                    }
                }
            }
        }
        if (command.getPartitionsCount() == 0) {
            return CompletableFuture.completedFuture(new Outcome(Errors.NONE, results));
        }
        return admin.submit(ControllerCommand.newBuilder().setDeleteGroupOffsets(command)).thenApply(response -> {
            if (response == null) {
                return new Outcome(Errors.COORDINATOR_NOT_AVAILABLE, Map.of());
            }
            Errors error = Errors.forCode(response.getErrorCode());
            if (error == Errors.NONE && response.getResultsCount() > 0) {
                admin.forget(groupId);
            }
            return error == Errors.NONE ? new Outcome(Errors.NONE, results) : new Outcome(error, Map.of());
        });
    }

    /**
     * Every topic any member subscribes to under any protocol it offered, or null when a member's metadata does
     * not parse: then every topic counts as subscribed, so nothing a consumer may be reading loses its offset.
     */
    private static Set<String> subscribedTopics(ClassicGroup g) {
        Set<String> topics = new HashSet<>();
        for (GroupMember m : g.members.values()) {
            for (byte[] metadata : m.protocols.values()) {
                try {
                    topics.addAll(ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(metadata)).topics());
                } catch (RuntimeException e) {
                    return null;
                }
            }
        }
        return topics;
    }

    private static CompletableFuture<Outcome> done(Errors error) {
        return CompletableFuture.completedFuture(new Outcome(error, Map.of()));
    }
}
