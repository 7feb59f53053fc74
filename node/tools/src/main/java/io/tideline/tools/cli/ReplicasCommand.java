package io.tideline.tools.cli;

import io.tideline.client.PartitionReplicas;
import io.tideline.client.RebuildResult;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicDescription;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin replicas --describe | --rebuild}: each replica's state (IN_SYNC, LAGGING, FAILED, REBUILDING,
 * OFFLINE) with its reason and since-time and the partition's ISR history; and the in-place rebuild of a
 * FAILED replica from the leader's log start offset. Kafka has no such tool; the layout follows
 * {@code topics --describe} (docs/cli.md, "replicas").
 */
@Command(name = "replicas", sortOptions = false,
        description = "Describe each replica's state (in sync, lagging, failed, rebuilding, offline) and the ISR "
                + "history; rebuild a FAILED replica from the leader's log start offset.")
final class ReplicasCommand implements Callable<Integer> {

    static final class Action {
        @Option(names = "--describe", required = true, description = "Print each replica's state and the ISR history.")
        boolean describe;
        @Option(names = "--rebuild", required = true,
                description = "Rebuild broker N's FAILED replica: truncate it fully and copy the leader's log from "
                        + "its log start offset; returns once the rebuild has begun.")
        boolean rebuild;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    @Option(names = "--topic", paramLabel = "TOPIC", required = true, description = "The topic.")
    String topic;

    @Option(names = "--partition", paramLabel = "P", description = "One partition (every one when left out; "
            + "required with --rebuild).")
    Integer partition;

    @Option(names = "--broker", paramLabel = "N", description = "With --rebuild: the broker whose replica to rebuild.")
    Integer broker;

    private final AdminCommand admin;

    ReplicasCommand(AdminCommand admin) {
        this.admin = admin;
    }

    @Override
    public Integer call() {
        if (action.rebuild) {
            if (partition == null || broker == null) {
                throw CliException.usage("--rebuild needs --topic, --partition and --broker");
            }
            return rebuild();
        }
        if (broker != null) {
            throw CliException.usage("--broker goes with --rebuild only");
        }
        return describe();
    }

    private int describe() {
        Map<TopicPartition, PartitionReplicas> described;
        try (TidelineAdmin client = admin.client()) {
            List<TopicPartition> partitions = new ArrayList<>();
            if (partition != null) {
                partitions.add(new TopicPartition(topic, partition));
            } else {
                TopicDescription t = client.describeTopics(List.of(topic)).get(0);
                if (t.error() != Errors.NONE) {
                    if (admin.json()) {
                        admin.io.out().println(JsonOutput.write(new ReplicasOutput.Described(List.of())));
                    }
                    throw CliException.failed(topic + ": " + t.error() + ": " + t.message());
                }
                t.partitions().forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            }
            described = client.describeReplicas(partitions);
        }
        if (admin.json()) {
            admin.io.out().println(JsonOutput.write(ReplicasOutput.Described.of(described.values())));
        }
        List<String> unknown = new ArrayList<>();
        for (PartitionReplicas p : described.values()) {
            if (p.error() == Errors.UNKNOWN_TOPIC_OR_PARTITION) {
                unknown.add(p.partition() + ": " + p.error() + ": " + p.message());
            } else if (!admin.json()) {
                ReplicasOutput.print(admin.io.out(), p);
            }
        }
        if (!unknown.isEmpty()) {
            throw CliException.failed(String.join("; ", unknown));
        }
        return Cli.EXIT_OK;
    }

    private int rebuild() {
        TopicPartition tp = new TopicPartition(topic, partition);
        RebuildResult result;
        try (TidelineAdmin client = admin.client()) {
            result = client.rebuildReplica(tp, broker);
        }
        if (admin.json()) {
            admin.io.out().println(JsonOutput.write(ReplicasOutput.Rebuilt.of(result)));
        }
        if (result.error() != Errors.NONE) {
            throw CliException.failed("cannot rebuild replica " + broker + " of " + tp + ": " + result.error() + ": "
                    + result.message());
        }
        if (!admin.json()) {
            admin.io.out().println("Rebuild of replica " + broker + " of " + tp + " started: truncated fully, copying "
                    + "from offset " + result.startOffset() + " to " + result.targetOffset() + "; `replicas --describe "
                    + "--topic " + topic + " --partition " + partition + "` shows its progress");
        }
        return Cli.EXIT_OK;
    }
}
