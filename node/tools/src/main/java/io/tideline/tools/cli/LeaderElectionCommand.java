package io.tideline.tools.cli;

import io.tideline.client.ElectionResult;
import io.tideline.client.ElectionType;
import io.tideline.client.TidelineAdmin;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin leader-election}, as Kafka's {@code kafka-leader-election.sh}: a preferred election moves
 * leadership back to each partition's first replica when it is in sync; an unclean one gives a partition
 * without a leader its first live replica, in sync or not. Prints Kafka's lines:
 *
 * <pre>
 * Successfully completed leader election (PREFERRED) for partitions orders-0, orders-1
 * Valid replica already elected for partitions orders-2
 * Error completing leader election (PREFERRED) for partition: orders-3: PREFERRED_LEADER_NOT_AVAILABLE: ...
 * </pre>
 *
 * Exits with {@link Cli#EXIT_FAILED} when a partition could not be elected (ELECTION_NOT_NEEDED is not
 * a failure), after printing every line.
 */
@Command(name = "leader-election", sortOptions = false,
        description = "Elect partition leaders: the preferred (first) replica, or any live replica of a "
                + "partition without a leader (unclean: records it lacks are lost).")
final class LeaderElectionCommand implements Callable<Integer> {

    @Option(names = "--election-type", paramLabel = "preferred|unclean", required = true,
            description = "preferred or unclean (Kafka's names; case does not matter).")
    String electionType;

    static final class Target {
        @ArgGroup(exclusive = false)
        One one;
        @Option(names = "--all-topic-partitions", required = true, description = "Every partition of every topic.")
        boolean all;
    }

    static final class One {
        @Option(names = "--topic", paramLabel = "TOPIC", required = true, description = "The topic.")
        String topic;
        @Option(names = "--partition", paramLabel = "P", required = true, description = "The partition.")
        int partition;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    private final AdminCommand admin;

    LeaderElectionCommand(AdminCommand admin) {
        this.admin = admin;
    }

    @Override
    public Integer call() {
        ElectionType type = type();
        List<TopicPartition> partitions = target.all ? List.of()
                : List.of(new TopicPartition(target.one.topic, target.one.partition));
        List<ElectionResult> results;
        try (TidelineAdmin client = admin.client()) {
            results = new ArrayList<>(client.electLeaders(type, partitions));
        }
        results.sort(Comparator.comparing((ElectionResult r) -> r.partition().topic())
                .thenComparingInt(r -> r.partition().partition()));
        PrintStream out = admin.io.out();
        List<String> elected = new ArrayList<>();
        List<String> notNeeded = new ArrayList<>();
        List<ElectionResult> failed = new ArrayList<>();
        for (ElectionResult r : results) {
            if (r.error() == Errors.NONE) {
                elected.add(r.partition().toString());
            } else if (r.error() == Errors.ELECTION_NOT_NEEDED) {
                notNeeded.add(r.partition().toString());
            } else {
                failed.add(r);
            }
        }
        if (admin.json()) {
            out.println(JsonOutput.write(JsonOutput.Election.of(type, results)));
        } else {
            if (!elected.isEmpty()) {
                out.println("Successfully completed leader election (" + type + ") for partitions "
                        + String.join(", ", elected));
            }
            if (!notNeeded.isEmpty()) {
                out.println("Valid replica already elected for partitions " + String.join(", ", notNeeded));
            }
            for (ElectionResult r : failed) {
                out.println("Error completing leader election (" + type + ") for partition: " + r.partition() + ": "
                        + r.error() + ": " + r.message());
            }
        }
        if (!failed.isEmpty()) {
            throw CliException.failed(failed.size() + " replica(s) could not be elected");
        }
        return Cli.EXIT_OK;
    }

    private ElectionType type() {
        try {
            return ElectionType.valueOf(electionType.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--election-type must be preferred or unclean, got '" + electionType + "'");
        }
    }
}
