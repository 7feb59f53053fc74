package io.tideline.tools.cli;

import io.tideline.client.ConsumerGroupDescription;
import io.tideline.client.ConsumerGroupDescription.Member;
import io.tideline.common.TopicPartition;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The text of {@code consumer-groups}, in kafka-consumer-groups' columns: a partition row per assigned partition
 * (members with the most partitions first, partitions in order) and then per committed offset no member holds,
 * "-" for what is unknown or absent. Stateless.
 */
final class ConsumerGroupsOutput {
    static final String MISSING = "-";

    /** One partition row of --describe. */
    record Row(String group, String topic, String partition, String currentOffset, String logEndOffset, String lag,
               String consumerId, String host, String clientId) {
    }

    private ConsumerGroupsOutput() {
    }

    /** The partitions --describe needs the log end offsets of: every assigned or committed one. */
    static Set<TopicPartition> partitions(ConsumerGroupDescription g) {
        Set<TopicPartition> all = new HashSet<>(g.offsets().keySet());
        g.members().forEach(m -> all.addAll(m.assignment()));
        return all;
    }

    static List<Row> rows(ConsumerGroupDescription g, Map<TopicPartition, Long> logEnd) {
        List<Row> rows = new ArrayList<>();
        Set<TopicPartition> assigned = new HashSet<>();
        List<Member> members = g.members().stream().filter(m -> !m.assignment().isEmpty())
                .sorted(Comparator.comparingInt((Member m) -> m.assignment().size()).reversed()).toList();
        for (Member m : members) {
            List<TopicPartition> tps = m.assignment().stream()
                    .sorted(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition)).toList();
            for (TopicPartition tp : tps) {
                assigned.add(tp);
                rows.add(row(g, tp, logEnd, m.memberId(), m.host(), m.clientId()));
            }
        }
        new TreeMap<>(g.offsets()).keySet().stream().filter(tp -> !assigned.contains(tp))
                .forEach(tp -> rows.add(row(g, tp, logEnd, MISSING, MISSING, MISSING)));
        return rows;
    }

    private static Row row(ConsumerGroupDescription g, TopicPartition tp, Map<TopicPartition, Long> logEnd,
                           String consumerId, String host, String clientId) {
        Long committed = g.offsets().get(tp);
        Long end = logEnd.get(tp);
        String lag = committed == null || committed < 0 || end == null ? MISSING : String.valueOf(end - committed);
        return new Row(g.groupId(), tp.topic(), String.valueOf(tp.partition()),
                committed == null || committed < 0 ? MISSING : committed.toString(),
                end == null ? MISSING : end.toString(), lag, consumerId, host, clientId);
    }

    /**
     * What kafka-consumer-groups says about a group's state before its table (on stderr), and whether a table
     * follows: a Dead group has none.
     */
    static boolean stateNotice(ConsumerGroupDescription g, PrintStream err) {
        switch (g.state()) {
            case "Dead" -> {
                err.println("Error: Consumer group '" + g.groupId() + "' does not exist.");
                return false;
            }
            case "Empty" -> err.println("Consumer group '" + g.groupId() + "' has no active members.");
            case "PreparingRebalance", "CompletingRebalance" ->
                    err.println("Warning: Consumer group '" + g.groupId() + "' is rebalancing.");
            default -> {
            }
        }
        return true;
    }

    static void printOffsets(List<Row> rows, PrintStream out) {
        TextTable t = new TextTable("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",
                "CONSUMER-ID", "HOST", "CLIENT-ID");
        rows.forEach(r -> t.row(r.group(), r.topic(), r.partition(), r.currentOffset(), r.logEndOffset(), r.lag(),
                r.consumerId(), r.host(), r.clientId()));
        t.print(out);
    }

    static void printMembers(ConsumerGroupDescription g, boolean verbose, PrintStream out) {
        boolean instances = g.members().stream().anyMatch(m -> !m.groupInstanceId().isEmpty());
        List<String> header = new ArrayList<>(List.of("GROUP", "CONSUMER-ID"));
        if (instances) {
            header.add("GROUP-INSTANCE-ID");
        }
        header.addAll(List.of("HOST", "CLIENT-ID", "#PARTITIONS"));
        if (verbose) {
            header.add("ASSIGNMENT");
        }
        TextTable t = new TextTable(header.toArray(String[]::new));
        for (Member m : g.members()) {
            List<Object> cells = new ArrayList<>(List.of(g.groupId(), m.memberId()));
            if (instances) {
                cells.add(m.groupInstanceId().isEmpty() ? MISSING : m.groupInstanceId());
            }
            cells.addAll(List.of(m.host(), m.clientId(), m.assignment().size()));
            if (verbose) {
                cells.add(assignment(m.assignment()));
            }
            t.row(cells.toArray());
        }
        t.print(out);
    }

    /** Kafka's compact form: topic(p,p), topic(p), sorted; "-" for none. */
    static String assignment(List<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return MISSING;
        }
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        partitions.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition()));
        return byTopic.entrySet().stream().map(e -> e.getKey() + e.getValue().stream().sorted().map(String::valueOf)
                .collect(Collectors.joining(",", "(", ")"))).collect(Collectors.joining(", "));
    }

    static void printState(ConsumerGroupDescription g, String coordinator, PrintStream out) {
        new TextTable("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS")
                .row(g.groupId(), coordinator, g.protocol().isEmpty() ? MISSING : g.protocol(), g.state(), g.members().size())
                .print(out);
    }

    static void printNewOffsets(Map<String, Map<TopicPartition, Long>> plans, PrintStream out) {
        TextTable t = new TextTable("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET");
        plans.forEach((group, offsets) -> offsets.forEach((tp, offset) -> t.row(group, tp.topic(), tp.partition(), offset)));
        t.print(out);
    }
}
