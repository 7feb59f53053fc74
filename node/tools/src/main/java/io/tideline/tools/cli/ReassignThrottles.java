package io.tideline.tools.cli;

import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicResult;
import io.tideline.common.TopicPartition;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The replication throttles of a reassignment, as Kafka's tool sets and clears them: on each moved topic,
 * {@code leader.replication.throttled.replicas} (the replicas copied from) and
 * {@code follower.replication.throttled.replicas} (the replicas copied to); on each broker involved, the
 * rates {@code leader.replication.throttled.rate} and {@code follower.replication.throttled.rate}.
 * docs/behaviours.md says when they are cleared.
 */
final class ReassignThrottles {
    static final String LEADER_REPLICAS = "leader.replication.throttled.replicas";
    static final String FOLLOWER_REPLICAS = "follower.replication.throttled.replicas";
    static final String LEADER_RATE = "leader.replication.throttled.rate";
    static final String FOLLOWER_RATE = "follower.replication.throttled.rate";
    static final List<String> TOPIC_KEYS = List.of(LEADER_REPLICAS, FOLLOWER_REPLICAS);

    private final TidelineAdmin client;

    ReassignThrottles(TidelineAdmin client) {
        this.client = client;
    }

    /** Sets the topic-level throttled replicas of {@code moves}; returns the values set, per topic. */
    Map<String, Map<String, String>> setTopicThrottles(Map<TopicPartition, ReassignmentPlanner.Move> moves) {
        Map<String, String> leader = ReassignmentPlanner.leaderThrottles(moves);
        Map<String, String> follower = ReassignmentPlanner.followerThrottles(moves);
        Map<String, Map<String, String>> set = new TreeMap<>();
        for (String topic : leader.keySet()) {
            Map<String, String> configs = Map.of(LEADER_REPLICAS, leader.get(topic),
                    FOLLOWER_REPLICAS, follower.getOrDefault(topic, ""));
            check(client.alterTopicConfigs(topic, configs, List.of()), "cannot set the throttled replicas of topic '"
                    + topic + "'");
            set.put(topic, new TreeMap<>(configs));
        }
        return set;
    }

    /** Removes both throttled-replica lists from each topic (a topic without them is left as it is). */
    void clearTopicThrottles(Collection<String> topics) {
        for (String topic : new TreeSet<>(topics)) {
            check(client.alterTopicConfigs(topic, Map.of(), TOPIC_KEYS), "cannot clear the throttles of topic '"
                    + topic + "'");
        }
    }

    /** Kafka's broker-level throttle: both rates set to {@code bytesPerSecond} on each broker, as dynamic configs. */
    void setBrokerRates(Collection<Integer> brokers, long bytesPerSecond) {
        Map<String, String> rates = Map.of(LEADER_RATE, Long.toString(bytesPerSecond),
                FOLLOWER_RATE, Long.toString(bytesPerSecond));
        for (int broker : new TreeSet<>(brokers)) {
            client.alterBrokerConfigs(OptionalInt.of(broker), rates, List.of());
        }
    }

    /** Removes both rates from each broker's dynamic configs (its static or default rate applies again). */
    void clearBrokerRates(Collection<Integer> brokers) {
        for (int broker : new TreeSet<>(brokers)) {
            client.alterBrokerConfigs(OptionalInt.of(broker), Map.of(), List.of(LEADER_RATE, FOLLOWER_RATE));
        }
    }

    /** Kafka's "Clearing broker-level throttles on brokers 1,2,3" (singular for one). */
    static String brokersLine(Set<Integer> brokers) {
        return "Clearing broker-level throttles on broker" + (brokers.size() == 1 ? "" : "s") + " "
                + String.join(",", brokers.stream().map(String::valueOf).toList());
    }

    /** Kafka's "Clearing topic-level throttles on topic t" (plural for several). */
    static String topicsLine(Set<String> topics) {
        return "Clearing topic-level throttles on topic" + (topics.size() == 1 ? "" : "s") + " " + String.join(",", topics);
    }

    private static void check(TopicResult result, String what) {
        if (!result.isSuccess()) {
            throw CliException.failed(what + ": " + result.error() + ": " + result.message());
        }
    }
}
