package io.tideline.tools.cli;

import io.tideline.client.PartitionReassignment;
import io.tideline.client.TidelineAdmin;
import io.tideline.common.TopicPartition;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * {@code admin reassign-partitions}, as Kafka 4.4's {@code kafka-reassign-partitions.sh}: its actions, flags,
 * JSON files and lines (docs/cli.md, "reassign-partitions"). {@code --generate} proposes, {@code --execute}
 * starts (optionally throttled), {@code --verify} reports progress and clears the throttles once nothing moves,
 * {@code --cancel} reverts, {@code --list} shows what moves. The move itself runs in the cluster (KIP-455).
 */
@Command(name = "reassign-partitions", sortOptions = false,
        description = "Move partitions between brokers: generate a proposal, execute, verify, cancel or list.")
final class ReassignPartitionsCommand implements Callable<Integer> {
    static final String ACTIONS = "--generate, --execute, --verify, --cancel, --list";

    @Option(names = "--generate", description = "Propose an assignment of the topics of --topics-to-move-json-file "
            + "over --broker-list (nothing is changed).")
    boolean generate;
    @Option(names = "--execute", description = "Start the reassignment of --reassignment-json-file.")
    boolean execute;
    @Option(names = "--verify", description = "Report the progress of --reassignment-json-file; clear the throttles "
            + "once no reassignment is in progress.")
    boolean verify;
    @Option(names = "--cancel", description = "Cancel the reassignments of --reassignment-json-file in progress: "
            + "back to the replicas they had.")
    boolean cancel;
    @Option(names = "--list", description = "List the reassignments in progress.")
    boolean list;

    @Option(names = "--reassignment-json-file", paramLabel = "FILE",
            description = "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,2,4]}]}")
    Path reassignmentJsonFile;
    @Option(names = "--topics-to-move-json-file", paramLabel = "FILE",
            description = "{\"topics\":[{\"topic\":\"t\"}],\"version\":1}")
    Path topicsToMoveJsonFile;
    @Option(names = "--broker-list", paramLabel = "1,2,3", description = "The brokers --generate assigns over.")
    String brokerList;
    @Option(names = "--disable-rack-aware", description = "Accepted: the proposal never considers racks.")
    boolean disableRackAware;
    @Option(names = "--throttle", paramLabel = "BYTES_PER_SEC", defaultValue = "-1",
            description = "Throttle the replication of the moved replicas to this rate (bytes/s) until --verify "
                    + "sees every reassignment complete.")
    long throttle;
    @Option(names = "--replica-alter-log-dirs-throttle", paramLabel = "BYTES_PER_SEC", defaultValue = "-1",
            description = "Refused: there are no moves between log directories.")
    long logDirsThrottle;
    @Option(names = "--timeout", paramLabel = "MS", defaultValue = "10000",
            description = "Accepted (Kafka's wait for log directory moves, which do not exist here).")
    long timeoutMs;
    @Option(names = "--additional", description = "Execute even though other reassignments are in progress.")
    boolean additional;
    @Option(names = "--preserve-throttles", description = "With --verify or --cancel: leave the throttles as they are.")
    boolean preserveThrottles;

    @Spec
    CommandSpec spec;

    private final AdminCommand admin;

    ReassignPartitionsCommand(AdminCommand admin) {
        this.admin = admin;
    }

    /** Kafka's permitted options per action, besides --bootstrap-server, --command-config and --output. */
    private static final Map<String, List<String>> PERMITTED = Map.of(
            "--verify", List.of("--reassignment-json-file", "--preserve-throttles"),
            "--generate", List.of("--topics-to-move-json-file", "--broker-list", "--disable-rack-aware"),
            "--execute", List.of("--reassignment-json-file", "--additional", "--throttle",
                    "--replica-alter-log-dirs-throttle", "--timeout"),
            "--cancel", List.of("--reassignment-json-file", "--preserve-throttles", "--timeout"),
            "--list", List.of());
    private static final List<String> OWN_OPTIONS = List.of("--reassignment-json-file", "--topics-to-move-json-file",
            "--broker-list", "--disable-rack-aware", "--throttle", "--replica-alter-log-dirs-throttle", "--timeout",
            "--additional", "--preserve-throttles");

    @Override
    public Integer call() {
        String action = action();
        ParseResult parsed = spec.commandLine().getParseResult();
        for (String option : OWN_OPTIONS) {
            if (parsed.hasMatchedOption(option) && !PERMITTED.get(action).contains(option)) {
                throw CliException.usage("Option \"" + option + "\" can't be used with action \"" + action + "\"");
            }
        }
        if (parsed.hasMatchedOption("--replica-alter-log-dirs-throttle")) {
            throw CliException.usage("--replica-alter-log-dirs-throttle is not supported: Tideline does not move "
                    + "replicas between a broker's log directories");
        }
        if (generate) {
            require(topicsToMoveJsonFile, "--topics-to-move-json-file");
            require(brokerList, "--broker-list");
        } else if (!list) {
            require(reassignmentJsonFile, "--reassignment-json-file");
        }
        // Every file is read and checked before the first call to the cluster.
        List<String> topics = generate ? readTopics() : null;
        List<Integer> brokers = generate ? ReassignmentPlanner.parseBrokerList(brokerList) : null;
        Map<TopicPartition, List<Integer>> targets = generate || list ? null : readTargets();
        try (TidelineAdmin client = admin.client()) {
            ReassignExecution run = new ReassignExecution(admin, client);
            if (generate) {
                return generate(client, topics, brokers);
            }
            if (list) {
                return list(client);
            }
            if (execute) {
                return run.execute(targets, throttle, additional);
            }
            if (cancel) {
                return run.cancel(targets, preserveThrottles);
            }
            return new ReassignVerification(admin, client).verify(targets, preserveThrottles);
        }
    }

    private String action() {
        Map<String, Boolean> actions = new LinkedHashMap<>();
        actions.put("--generate", generate);
        actions.put("--execute", execute);
        actions.put("--verify", verify);
        actions.put("--cancel", cancel);
        actions.put("--list", list);
        List<String> given = actions.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
        if (given.size() != 1) {
            throw CliException.usage("Command must include exactly one action: " + ACTIONS);
        }
        return given.get(0);
    }

    private static void require(Object value, String option) {
        if (value == null) {
            throw CliException.usage("Missing required argument \"" + option + "\"");
        }
    }

    private List<String> readTopics() {
        String text = StrictJson.readFile(topicsToMoveJsonFile);
        try {
            return ReassignmentJson.parseTopics(text);
        } catch (CliException e) {
            throw CliException.usage("bad topics-to-move JSON file " + topicsToMoveJsonFile + ": " + e.getMessage());
        }
    }

    private Map<TopicPartition, List<Integer>> readTargets() {
        String text = StrictJson.readFile(reassignmentJsonFile);
        try {
            return ReassignmentJson.parseReassignment(text);
        } catch (CliException e) {
            throw CliException.usage("bad reassignment JSON file " + reassignmentJsonFile + ": " + e.getMessage());
        }
    }

    private int generate(TidelineAdmin client, List<String> topics, List<Integer> brokers) {
        ReassignmentCluster cluster = new ReassignmentCluster(client);
        Set<Integer> known = cluster.brokerIds();
        for (int b : brokers) {
            if (!known.contains(b)) {
                // Kafka's tool leaves unknown ids out of the proposal silently; refused here so the proposal is
                // over the brokers asked for.
                throw CliException.failed("Unknown broker id " + b);
            }
        }
        Map<TopicPartition, List<Integer>> current = cluster.topicAssignments(topics);
        Map<TopicPartition, List<Integer>> proposed = ReassignmentPlanner.propose(current, brokers);
        PrintStream out = admin.io.out();
        if (admin.json()) {
            out.println(JsonOutput.write(new ReassignOutput.Generate(ReassignmentJson.document(current),
                    ReassignmentJson.document(proposed))));
            return Cli.EXIT_OK;
        }
        out.println("Current partition replica assignment");
        out.println(ReassignmentJson.format(current));
        out.println();
        out.println("Proposed partition reassignment configuration");
        out.println(ReassignmentJson.format(proposed));
        return Cli.EXIT_OK;
    }

    private int list(TidelineAdmin client) {
        Map<TopicPartition, PartitionReassignment> ongoing = client.listPartitionReassignments(List.of());
        PrintStream out = admin.io.out();
        if (admin.json()) {
            out.println(JsonOutput.write(new ReassignOutput.Listed(ongoing.values().stream()
                    .sorted(java.util.Comparator.comparing(PartitionReassignment::partition, ReassignmentJson.ORDER))
                    .map(ReassignOutput.Ongoing::of).toList())));
            return Cli.EXIT_OK;
        }
        if (ongoing.isEmpty()) {
            out.println("No partition reassignments found.");
            return Cli.EXIT_OK;
        }
        out.println("Current partition reassignments:");
        ongoing.values().stream().sorted(java.util.Comparator.comparing(PartitionReassignment::partition,
                ReassignmentJson.ORDER)).forEach(r -> out.println(listLine(r)));
        return Cli.EXIT_OK;
    }

    /** Kafka's "t-0: replicas: 1,2,3,4. adding: 4. removing: 3." (adding and removing only when not empty). */
    static String listLine(PartitionReassignment r) {
        return r.partition() + ": replicas: " + ids(r.replicas()) + "."
                + (r.addingReplicas().isEmpty() ? "" : " adding: " + ids(r.addingReplicas()) + ".")
                + (r.removingReplicas().isEmpty() ? "" : " removing: " + ids(r.removingReplicas()) + ".");
    }

    static String ids(java.util.Collection<Integer> ids) {
        return String.join(",", ids.stream().map(String::valueOf).toList());
    }
}
