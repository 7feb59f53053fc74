package io.tideline.tools.cli;

import io.tideline.client.ClusterDescription;
import io.tideline.client.ConsumerGroupDescription;
import io.tideline.client.ConsumerGroupListing;
import io.tideline.client.GroupOutcome;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicDescription;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.io.PrintStream;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin consumer-groups --list | --describe | --reset-offsets | --delete}, in kafka-consumer-groups' form
 * (docs/cli.md): the same flags, columns and messages. Offsets are reset only while a group has no members, and
 * only with --execute: without it the plan is printed, as Kafka's tool does (docs/behaviours.md B245-B247).
 * Exits {@link Cli#EXIT_FAILED} when a group could not be described, reset or deleted, after the others are done.
 */
@Command(name = "consumer-groups", sortOptions = false,
        description = "List, describe, reset the offsets of, or delete consumer groups (kafka-consumer-groups' flags).")
final class ConsumerGroupsCommand implements Callable<Integer> {
    static final class Action {
        @Option(names = "--list", required = true, description = "List the groups.")
        boolean list;
        @Option(names = "--describe", required = true,
                description = "Describe the groups: committed offsets, log end offsets, lag and owners per partition.")
        boolean describe;
        @Option(names = "--reset-offsets", required = true,
                description = "Reset the committed offsets of groups without members (a dry run unless --execute).")
        boolean resetOffsets;
        @Option(names = "--delete", required = true, description = "Delete groups without members.")
        boolean delete;
    }

    static final class Groups {
        @Option(names = "--group", paramLabel = "GROUP", required = true, description = "A group (repeatable).")
        List<String> groups;
        @Option(names = "--all-groups", required = true, description = "Every group.")
        boolean allGroups;
    }

    static final class Scenario {
        @Option(names = "--to-earliest", required = true, description = "Reset to the log start offset.")
        boolean toEarliest;
        @Option(names = "--to-latest", required = true, description = "Reset to the log end offset.")
        boolean toLatest;
        @Option(names = "--to-current", required = true, description = "Reset to the committed offset.")
        boolean toCurrent;
        @Option(names = "--to-offset", paramLabel = "OFFSET", required = true, description = "Reset to this offset.")
        Long toOffset;
        @Option(names = "--shift-by", paramLabel = "N", required = true,
                description = "Move the committed offset by N (negative: back).")
        Long shiftBy;
        @Option(names = "--to-datetime", paramLabel = "YYYY-MM-DDTHH:mm:SS.sss", required = true,
                description = "Reset to the first record at or after this time (optionally with Z or +hh:mm).")
        String toDatetime;
        @Option(names = "--by-duration", paramLabel = "PnDTnHnMnS", required = true,
                description = "Reset to the first record at or after this long ago.")
        String byDuration;
    }

    static final class Mode {
        @Option(names = "--dry-run", required = true, description = "Print the new offsets only (the default).")
        boolean dryRun;
        @Option(names = "--execute", required = true, description = "Commit the new offsets.")
        boolean execute;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    @ArgGroup(exclusive = true)
    Groups groups;

    @Option(names = "--topic", paramLabel = "TOPIC[:P,P]",
            description = "With --reset-offsets: a topic, or some of its partitions (repeatable).")
    List<String> topics;

    @Option(names = "--all-topics", description = "With --reset-offsets: every topic the group has offsets of.")
    boolean allTopics;

    @ArgGroup(exclusive = true)
    Scenario scenario;

    @ArgGroup(exclusive = true)
    Mode mode;

    @Option(names = "--members", description = "With --describe: the members instead of the partitions.")
    boolean members;

    @Option(names = "--verbose", description = "With --describe --members: each member's partitions.")
    boolean verbose;

    @Option(names = "--state", arity = "0..1", paramLabel = "STATES", fallbackValue = "",
            description = "With --describe: the group's state; with --list: the state column, or only groups in "
                    + "these states (comma-separated).")
    String state;

    private final AdminCommand admin;

    ConsumerGroupsCommand(AdminCommand admin) {
        this.admin = admin;
    }

    @Override
    public Integer call() {
        if (admin.json()) {
            throw CliException.usage("consumer-groups prints text only (kafka-consumer-groups' form)");
        }
        check();
        try (TidelineAdmin client = admin.client()) {
            if (action.list) {
                return list(client);
            }
            List<String> ids = groupIds(client);
            if (action.describe) {
                return describe(client, ids);
            }
            if (action.resetOffsets) {
                return reset(client, ids);
            }
            return delete(client, ids);
        }
    }

    /** The flags that only some actions take, refused elsewhere before anything is sent. */
    void check() {
        boolean reset = action.resetOffsets;
        if (!action.list && groups == null) {
            throw CliException.usage("name the groups with --group or --all-groups");
        }
        if (action.list && groups != null) {
            throw CliException.usage("--list takes no --group or --all-groups");
        }
        if (!reset && (topics != null || allTopics || scenario != null || mode != null)) {
            throw CliException.usage("--topic, --all-topics, --to-*, --shift-by, --by-duration, --dry-run and "
                    + "--execute go with --reset-offsets");
        }
        if (reset && scenario == null) {
            throw CliException.usage("--reset-offsets needs one of --to-earliest, --to-latest, --to-current, "
                    + "--to-offset, --shift-by, --to-datetime, --by-duration");
        }
        if (reset && (topics == null) == !allTopics) {
            throw CliException.usage("--reset-offsets needs one of --topic or --all-topics");
        }
        if ((members || verbose) && !action.describe || verbose && !members) {
            throw CliException.usage("--members goes with --describe, and --verbose with --describe --members");
        }
        if (state != null && !(action.describe || action.list) || state != null && members) {
            throw CliException.usage("--state goes with --describe (without --members) or --list");
        }
        if (state != null && action.describe && !state.isEmpty()) {
            throw CliException.usage("--describe --state takes no value");
        }
        if (reset && scenario.toOffset != null && scenario.toOffset < 0) {
            throw CliException.usage("--to-offset must be >= 0, got " + scenario.toOffset);
        }
    }

    private List<String> groupIds(TidelineAdmin client) {
        if (groups.allGroups) {
            return client.listConsumerGroups().stream().map(ConsumerGroupListing::groupId).toList();
        }
        return List.copyOf(new LinkedHashSet<>(groups.groups));
    }

    private int list(TidelineAdmin client) {
        List<ConsumerGroupListing> listed = client.listConsumerGroups();
        PrintStream out = admin.io.out();
        if (state == null) {
            listed.forEach(g -> out.println(g.groupId()));
            return Cli.EXIT_OK;
        }
        Set<String> wanted = states(state);
        TextTable t = new TextTable("GROUP", "STATE");
        listed.stream().filter(g -> wanted.isEmpty() || wanted.contains(g.state().toLowerCase(Locale.ROOT)))
                .forEach(g -> t.row(g.groupId(), g.state()));
        t.print(out);
        return Cli.EXIT_OK;
    }

    /** Kafka's state names, compared case-insensitively; an unknown one is a usage error. */
    static Set<String> states(String text) {
        Set<String> valid = Set.of("preparingrebalance", "completingrebalance", "stable", "dead", "empty");
        Set<String> states = new LinkedHashSet<>();
        for (String s : text.split(",")) {
            String name = s.trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            if (!valid.contains(name)) {
                throw CliException.usage("Invalid state list '" + text + "'. Valid states are: PreparingRebalance, "
                        + "CompletingRebalance, Stable, Dead, Empty");
            }
            states.add(name);
        }
        return states;
    }

    private int describe(TidelineAdmin client, List<String> ids) {
        PrintStream out = admin.io.out();
        PrintStream err = admin.io.err();
        int failed = 0;
        Map<String, ConsumerGroupDescription> described = client.describeConsumerGroups(ids);
        Map<Integer, ClusterDescription.Broker> brokers = state != null ? brokers(client) : Map.of();
        for (ConsumerGroupDescription g : described.values()) {
            if (g.error() == Errors.GROUP_ID_NOT_FOUND) {
                err.println("Error: Consumer group '" + g.groupId() + "' does not exist.");
                failed++;
                continue;
            }
            if (!g.isSuccess()) {
                err.println("Error: Consumer group '" + g.groupId() + "': " + g.error() + ": " + g.message());
                failed++;
                continue;
            }
            if (!ConsumerGroupsOutput.stateNotice(g, err)) {
                failed++;
                continue;
            }
            out.println();
            if (state != null) {
                ClusterDescription.Broker b = brokers.get(g.coordinatorId());
                String address = b == null ? ConsumerGroupsOutput.MISSING : b.host() + ":" + b.port();
                String coordinator = address + "  (" + g.coordinatorId() + ")";
                ConsumerGroupsOutput.printState(g, coordinator, out);
            } else if (members) {
                ConsumerGroupsOutput.printMembers(g, verbose, out);
            } else {
                Map<TopicPartition, Long> logEnd = latest(client, ConsumerGroupsOutput.partitions(g));
                List<ConsumerGroupsOutput.Row> rows = ConsumerGroupsOutput.rows(g, logEnd);
                if (!rows.isEmpty()) {
                    ConsumerGroupsOutput.printOffsets(rows, out);
                }
            }
        }
        return failed == 0 ? Cli.EXIT_OK : Cli.EXIT_FAILED;
    }

    private static Map<Integer, ClusterDescription.Broker> brokers(TidelineAdmin client) {
        Map<Integer, ClusterDescription.Broker> byId = new LinkedHashMap<>();
        client.describeCluster().brokers().forEach(b -> byId.put(b.id(), b));
        return byId;
    }

    private static Map<TopicPartition, Long> latest(TidelineAdmin client, Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> queries = new LinkedHashMap<>();
        partitions.forEach(tp -> queries.put(tp, -1L));
        return queries.isEmpty() ? Map.of() : client.listOffsets(queries);
    }

    private int reset(TidelineAdmin client, List<String> ids) {
        PrintStream err = admin.io.err();
        boolean execute = mode != null && mode.execute;
        if (mode == null) {
            err.println("WARN: No action will be performed as the --execute option is missing. Add --dry-run to "
                    + "keep this default explicitly, or --execute to reset.");
        }
        GroupResetPlan.Scenario s = scenario(admin.time.milliseconds());
        GroupResetPlan.LogOffsets logs = logOffsets(client);
        Map<String, Map<TopicPartition, Long>> plans = new LinkedHashMap<>();
        int failed = 0;
        Map<String, ConsumerGroupDescription> described = client.describeConsumerGroups(ids);
        for (String id : ids) {
            ConsumerGroupDescription g = described.get(id);
            // A group nobody created yet is Kafka's "Dead": its offsets may be set, which creates it.
            boolean unknown = g.error() == Errors.GROUP_ID_NOT_FOUND;
            if (!g.isSuccess() && !unknown) {
                err.println("Error: Consumer group '" + id + "': " + g.error() + ": " + g.message());
                failed++;
                continue;
            }
            if (!unknown && !g.isInactive()) {
                err.println("Error: Assignments can only be reset if the group '" + id + "' is inactive, but the "
                        + "current state is " + g.state() + ".");
                failed++;
                continue;
            }
            Map<TopicPartition, Long> committed = unknown ? Map.of() : g.offsets();
            Collection<TopicPartition> partitions = allTopics ? committed.keySet() : partitions(client, topics);
            Map<TopicPartition, Long> plan = GroupResetPlan.plan(s, partitions, committed, logs,
                    line -> err.println("WARN: " + line));
            if (execute && !plan.isEmpty()) {
                GroupOutcome outcome = client.alterConsumerGroupOffsets(id, plan);
                if (!outcome.isSuccess()) {
                    err.println("Error: Resetting the offsets of group '" + id + "' failed: " + describe(outcome));
                    failed++;
                    continue;
                }
            }
            plans.put(id, plan);
        }
        if (!plans.isEmpty()) {
            admin.io.out().println();
            ConsumerGroupsOutput.printNewOffsets(plans, admin.io.out());
        }
        return failed == 0 ? Cli.EXIT_OK : Cli.EXIT_FAILED;
    }

    private static String describe(GroupOutcome outcome) {
        if (outcome.error() == Errors.NON_EMPTY_GROUP) {
            return "the group has members again (NON_EMPTY_GROUP)";
        }
        if (outcome.error() != Errors.NONE) {
            return outcome.error() + ": " + outcome.message();
        }
        return outcome.partitions().entrySet().stream().filter(e -> e.getValue() != Errors.NONE)
                .map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining(", "));
    }

    GroupResetPlan.Scenario scenario(long nowMs) {
        if (scenario.toEarliest) {
            return new GroupResetPlan.Scenario(GroupResetPlan.Kind.EARLIEST, 0);
        }
        if (scenario.toLatest) {
            return new GroupResetPlan.Scenario(GroupResetPlan.Kind.LATEST, 0);
        }
        if (scenario.toCurrent) {
            return new GroupResetPlan.Scenario(GroupResetPlan.Kind.CURRENT, 0);
        }
        if (scenario.toOffset != null) {
            return new GroupResetPlan.Scenario(GroupResetPlan.Kind.OFFSET, scenario.toOffset);
        }
        if (scenario.shiftBy != null) {
            return new GroupResetPlan.Scenario(GroupResetPlan.Kind.SHIFT_BY, scenario.shiftBy);
        }
        long at = scenario.toDatetime != null ? GroupResetPlan.parseDateTime(scenario.toDatetime, ZoneId.systemDefault())
                : GroupResetPlan.parseDuration(scenario.byDuration, nowMs);
        return new GroupResetPlan.Scenario(GroupResetPlan.Kind.DATETIME, at);
    }

    /** --topic's values: a topic means all its partitions; topic:0,2 those partitions. */
    static List<TopicPartition> parseTopics(List<String> args, java.util.function.Function<String, Integer> partitionCount) {
        Set<TopicPartition> out = new LinkedHashSet<>();
        for (String arg : args) {
            int colon = arg.indexOf(':');
            String topic = colon < 0 ? arg : arg.substring(0, colon);
            if (topic.isEmpty()) {
                throw CliException.usage("--topic '" + arg + "': the topic name is empty");
            }
            if (colon < 0) {
                int count = partitionCount.apply(topic);
                for (int p = 0; p < count; p++) {
                    out.add(new TopicPartition(topic, p));
                }
                continue;
            }
            for (String p : arg.substring(colon + 1).split(",")) {
                try {
                    int partition = Integer.parseInt(p.trim());
                    if (partition < 0) {
                        throw new NumberFormatException();
                    }
                    out.add(new TopicPartition(topic, partition));
                } catch (NumberFormatException e) {
                    throw CliException.usage("--topic '" + arg + "': invalid partition '" + p + "'");
                }
            }
        }
        return new ArrayList<>(out);
    }

    private static List<TopicPartition> partitions(TidelineAdmin client, List<String> topics) {
        return parseTopics(topics, topic -> {
            TopicDescription d = client.describeTopics(List.of(topic)).get(0);
            if (d.error() != Errors.NONE) {
                throw CliException.failed("--topic " + topic + ": " + d.error() + ": " + d.message());
            }
            return d.partitions().size();
        });
    }

    private static GroupResetPlan.LogOffsets logOffsets(TidelineAdmin client) {
        return new GroupResetPlan.LogOffsets() {
            @Override
            public Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions) {
                return query(partitions, -2L);
            }

            @Override
            public Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions) {
                return query(partitions, -1L);
            }

            @Override
            public Map<TopicPartition, Long> forTimestamp(Collection<TopicPartition> partitions, long timestampMs) {
                return query(partitions, timestampMs);
            }

            private Map<TopicPartition, Long> query(Collection<TopicPartition> partitions, long spec) {
                Map<TopicPartition, Long> queries = new LinkedHashMap<>();
                partitions.forEach(tp -> queries.put(tp, spec));
                return queries.isEmpty() ? Map.of() : client.listOffsets(queries);
            }
        };
    }

    private int delete(TidelineAdmin client, List<String> ids) {
        if (ids.isEmpty()) {
            admin.io.out().println("There are no groups to delete.");
            return Cli.EXIT_OK;
        }
        Map<String, GroupOutcome> outcomes = client.deleteConsumerGroups(ids);
        List<String> deleted = outcomes.values().stream().filter(GroupOutcome::isSuccess).map(GroupOutcome::groupId).toList();
        List<GroupOutcome> failed = outcomes.values().stream().filter(o -> !o.isSuccess()).toList();
        if (!deleted.isEmpty()) {
            admin.io.out().println("Deletion of requested consumer groups (" + deleted.stream()
                    .map(id -> "'" + id + "'").collect(Collectors.joining(", ")) + ") was successful.");
        }
        if (failed.isEmpty()) {
            return Cli.EXIT_OK;
        }
        PrintStream err = admin.io.err();
        err.println("Error: Deletion of some consumer groups failed:");
        failed.forEach(o -> err.println("* Group '" + o.groupId() + "' could not be deleted due to: " + o.error() + ": "
                + o.message()));
        return Cli.EXIT_FAILED;
    }
}
