package io.tideline.tools.cli;

import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicDescription;
import io.tideline.client.TopicDescription.PartitionDescription;
import io.tideline.client.TopicResult;
import io.tideline.common.errors.Errors;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin topics --create | --describe | --list}.
 *
 * <p>{@code --create} without {@code --partitions} or {@code --replication-factor} sends -1 for it, and the broker
 * that takes the request applies its {@code num.partitions} / {@code default.replication.factor}, as kafka-topics
 * does (docs/behaviours.md B242).
 *
 * <p>{@code --create} returns once every partition of the new topic has a leader (bounded by
 * default.api.timeout.ms), so that a script may produce right after it; Kafka's tool returns as soon as
 * the controller accepted the topic, which leaves scripts racing the leader election.
 */
@Command(name = "topics", sortOptions = false, description = "Create, describe or list topics.")
final class TopicsCommand implements Callable<Integer> {
    static final class Action {
        @Option(names = "--create", required = true, description = "Create a topic.")
        boolean create;
        @Option(names = "--describe", required = true,
                description = "Describe the --topic, or every topic: partitions, leader, replicas, ISR.")
        boolean describe;
        @Option(names = "--list", required = true, description = "List the topic names.")
        boolean list;
        @Option(names = "--alter", required = true,
                description = "Raise the --topic's partition count to --partitions (never lowers it).")
        boolean alter;
        @Option(names = "--delete", required = true,
                description = "Delete the --topic: its partitions and, on every broker, their logs.")
        boolean delete;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    @Option(names = "--topic", paramLabel = "TOPIC", description = "The topic to create or describe.")
    String topic;

    @Option(names = "--partitions", paramLabel = "N",
            description = "With --create: the partition count (default: the broker's num.partitions); with --alter: "
                    + "the new, higher count.")
    Integer partitions;

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "With --create: replicas per partition (default: the broker's default.replication.factor).")
    Integer replicationFactor;

    @Option(names = "--if-not-exists",
            description = "With --create: a topic of that name that exists already is not an error (exit 0, "
                    + "nothing changes).")
    boolean ifNotExists;

    @Option(names = "--replica-assignment", paramLabel = "B:B:B,B:B:B,...",
            description = "With --create, instead of --partitions and --replication-factor: the brokers of each "
                    + "partition in Kafka's format, partitions separated by commas, brokers by colons, the first "
                    + "broker the preferred leader (1:2:3,2:3:1 is two partitions of three replicas).")
    String replicaAssignment;

    @Option(names = "--config", paramLabel = "KEY=VALUE",
            description = "With --create: a topic config override (retention.ms, segment.bytes, "
                    + "min.insync.replicas, ...); repeat for more.")
    Map<String, String> configs = new LinkedHashMap<>();

    @Option(names = "--under-replicated-partitions",
            description = "With --describe: only partitions whose ISR is smaller than their replica set.")
    boolean underReplicated;

    @Option(names = "--under-min-isr-partitions",
            description = "With --describe: only partitions whose ISR is smaller than min.insync.replicas "
                    + "(acks=all produces to them fail with NOT_ENOUGH_REPLICAS).")
    boolean underMinIsr;

    @Option(names = "--at-min-isr-partitions",
            description = "With --describe: only partitions whose ISR is exactly min.insync.replicas.")
    boolean atMinIsr;

    @Option(names = "--unavailable-partitions",
            description = "With --describe: only partitions without a leader.")
    boolean unavailable;

    /** The --describe filters, as Kafka's kafka-topics names them; at most one at a time. */
    private Map<String, Boolean> reports() {
        Map<String, Boolean> reports = new LinkedHashMap<>();
        reports.put("--under-replicated-partitions", underReplicated);
        reports.put("--under-min-isr-partitions", underMinIsr);
        reports.put("--at-min-isr-partitions", atMinIsr);
        reports.put("--unavailable-partitions", unavailable);
        return reports;
    }

    private boolean filtered() {
        return underReplicated || underMinIsr || atMinIsr || unavailable;
    }

    private boolean shows(TopicDescription t, PartitionDescription p) {
        return (!underReplicated || p.isUnderReplicated()) && (!underMinIsr || t.isUnderMinIsr(p))
                && (!atMinIsr || t.isAtMinIsr(p)) && (!unavailable || p.isUnavailable());
    }

    private final AdminCommand admin;

    TopicsCommand(AdminCommand admin) {
        this.admin = admin;
    }

    @Override
    public Integer call() {
        checkOptions();
        try (TidelineAdmin client = admin.client()) {
            if (action.create) {
                return create(client);
            }
            if (action.describe) {
                return describe(client);
            }
            if (action.delete) {
                return delete(client);
            }
            if (action.alter) {
                return alter(client);
            }
            return list(client);
        }
    }

    private void checkOptions() {
        if (!action.create && !action.alter) {
            refuse(partitions != null, "--partitions");
        }
        if (!action.create) {
            refuse(replicationFactor != null, "--replication-factor");
            refuse(!configs.isEmpty(), "--config");
            refuse(replicaAssignment != null, "--replica-assignment");
            refuse(ifNotExists, "--if-not-exists");
        }
        List<String> given = reports().entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
        if (!action.describe && !given.isEmpty()) {
            throw CliException.usage(given.get(0) + " only goes with --describe");
        }
        if (given.size() > 1) {
            throw CliException.usage("only one of " + String.join(", ", given) + " at a time");
        }
        if (action.list && topic != null) {
            throw CliException.usage("--topic does not go with --list");
        }
        if (action.alter && (topic == null || partitions == null)) {
            throw CliException.usage("--alter needs --topic and --partitions");
        }
        if (action.delete && topic == null) {
            throw CliException.usage("--delete needs --topic");
        }
        if (action.create && replicaAssignment != null) {
            if (topic == null || partitions != null || replicationFactor != null) {
                throw CliException.usage("--create with --replica-assignment needs --topic, and neither --partitions "
                        + "nor --replication-factor");
            }
        } else if (action.create) {
            if (topic == null) {
                throw CliException.usage("--create needs --topic");
            }
            if ((partitions != null && partitions < 1) || (replicationFactor != null && replicationFactor < 1)) {
                throw CliException.usage("--partitions and --replication-factor must be at least 1, got "
                        + (partitions != null ? partitions : "--partitions unset") + " and "
                        + (replicationFactor != null ? replicationFactor : "--replication-factor unset"));
            }
        }
    }

    private static void refuse(boolean given, String option) {
        if (given) {
            throw CliException.usage(option + " only goes with --create" + ("--partitions".equals(option)
                    ? " or --alter" : ""));
        }
    }

    private int create(TidelineAdmin client) {
        Map<Integer, List<Integer>> assignment = replicaAssignment == null ? null : parseAssignment(replicaAssignment);
        // -1 is Kafka's "unset" in CreateTopics: the broker's num.partitions / default.replication.factor.
        int count = partitions != null ? partitions : -1;
        TopicResult result = assignment == null
                ? client.createTopic(topic, count, replicationFactor != null ? replicationFactor : -1, configs)
                : client.createTopic(topic, assignment, configs);
        if (ifNotExists && result.error() == Errors.TOPIC_ALREADY_EXISTS) {
            if (admin.json()) {
                admin.io.out().println(JsonOutput.write(JsonOutput.TopicOutcome.of(result)));
            }
            return Cli.EXIT_OK;
        }
        admin.answer(result, "cannot create topic '" + topic + "'");
        admin.awaitLeaders(client, topic, assignment == null ? count : assignment.size());
        if (!admin.json()) {
            admin.io.out().println("Created topic " + topic + ".");
        }
        return Cli.EXIT_OK;
    }

    /**
     * Kafka's --replica-assignment: partition i gets the i-th comma-separated list of colon-separated
     * broker ids. The format is checked here (a usage error); whether the brokers exist is the cluster's
     * answer (INVALID_REPLICA_ASSIGNMENT).
     */
    static Map<Integer, List<Integer>> parseAssignment(String text) {
        Map<Integer, List<Integer>> assignment = new LinkedHashMap<>();
        String[] partitionLists = text.split(",", -1);
        for (int p = 0; p < partitionLists.length; p++) {
            List<Integer> brokers = new ArrayList<>();
            for (String id : partitionLists[p].split(":", -1)) {
                try {
                    brokers.add(Integer.parseInt(id.trim()));
                } catch (NumberFormatException e) {
                    throw CliException.usage("--replica-assignment: partition " + p + " has '" + partitionLists[p]
                            + "', expected broker ids separated by ':' (e.g. 1:2:3)");
                }
            }
            if (brokers.stream().distinct().count() != brokers.size()) {
                throw CliException.usage("--replica-assignment: partition " + p + " names a broker twice: "
                        + partitionLists[p]);
            }
            if (p > 0 && brokers.size() != assignment.get(0).size()) {
                throw CliException.usage("--replica-assignment: partition " + p + " has " + brokers.size()
                        + " replicas, partition 0 has " + assignment.get(0).size());
            }
            assignment.put(p, List.copyOf(brokers));
        }
        return assignment;
    }

    private int describe(TidelineAdmin client) {
        List<TopicDescription> topics = new ArrayList<>(client.describeTopics(topic == null ? List.of() : List.of(topic)));
        topics.sort(Comparator.comparing(TopicDescription::name));
        List<String> errors = new ArrayList<>();
        List<JsonOutput.Topic> json = new ArrayList<>();
        for (TopicDescription t : topics) {
            if (t.error() != Errors.NONE) {
                errors.add("topic '" + t.name() + "': " + t.error() + ": " + t.message());
            }
            List<PartitionDescription> shown = t.partitions().stream()
                    .filter(p -> shows(t, p))
                    .sorted(Comparator.comparingInt(PartitionDescription::partition)).toList();
            if (admin.json()) {
                if (!filtered() || !shown.isEmpty() || t.error() != Errors.NONE) {
                    json.add(JsonOutput.Topic.of(t, shown));
                }
                continue;
            }
            if (t.error() != Errors.NONE) {
                continue;
            }
            if (!filtered()) {
                TopicsOutput.printTopic(admin.io.out(), t);
            }
            shown.forEach(p -> TopicsOutput.printPartition(admin.io.out(), t.name(), p));
        }
        if (admin.json()) {
            admin.io.out().println(JsonOutput.write(new JsonOutput.Described(json)));
        }
        if (!errors.isEmpty()) {
            throw CliException.failed(String.join("; ", errors));
        }
        return Cli.EXIT_OK;
    }

    /** More partitions; like Kafka's tool, silent on success. It returns once the new ones have leaders. */
    private int alter(TidelineAdmin client) {
        admin.answer(client.createPartitions(Map.of(topic, partitions)).get(topic),
                "cannot add partitions to topic '" + topic + "'");
        admin.awaitLeaders(client, topic, partitions);
        return Cli.EXIT_OK;
    }

    /** Like Kafka's tool, prints nothing in text when the topic is gone (the JSON says so). */
    private int delete(TidelineAdmin client) {
        admin.answer(client.deleteTopics(List.of(topic)).get(topic), "cannot delete topic '" + topic + "'");
        return Cli.EXIT_OK;
    }

    private int list(TidelineAdmin client) {
        List<String> names = client.listTopics().stream().sorted().toList();
        if (admin.json()) {
            admin.io.out().println(JsonOutput.write(new JsonOutput.TopicList(names)));
        } else {
            names.forEach(admin.io.out()::println);
        }
        return Cli.EXIT_OK;
    }
}
