package io.tideline.tools.cli;

import io.tideline.client.ReplicaRetention;
import io.tideline.client.TidelineAdmin;
import io.tideline.common.TopicPartition;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin explain-retention --topic T --partition P [--broker N]}: every segment of one replica (the
 * leader's by default) with its size, largest timestamp and why it is still on disk, as the broker's next
 * retention pass will judge it (docs/behaviours.md B59; the reasons come from the store's own retention
 * evaluation), then the log cleaner's view of it with a verdict per segment (B193). An unknown partition, or a
 * broker without a replica of it, is one line and exit 1.
 */
@Command(name = "explain-retention", sortOptions = false,
        description = "Explain why each segment of a partition's replica is still on disk, and when it goes.")
final class ExplainRetentionCommand implements Callable<Integer> {

    @Option(names = "--topic", paramLabel = "TOPIC", required = true, description = "The topic.")
    String topic;

    @Option(names = "--partition", paramLabel = "P", required = true, description = "The partition.")
    int partition;

    @Option(names = "--broker", paramLabel = "N", defaultValue = "-1",
            description = "The broker whose replica to explain (default: the leader).")
    int broker;

    private final AdminCommand admin;

    ExplainRetentionCommand(AdminCommand admin) {
        this.admin = admin;
    }

    @Override
    public Integer call() {
        if (partition < 0) {
            throw CliException.usage("--partition must be 0 or more, got " + partition);
        }
        TopicPartition tp = new TopicPartition(topic, partition);
        ReplicaRetention r;
        try (TidelineAdmin client = admin.client()) {
            r = client.explainRetention(tp, broker);
        }
        if (admin.json()) {
            admin.io.out().println(JsonOutput.write(LogDirsJson.Retention.of(r)));
        }
        if (!r.isSuccess()) {
            throw CliException.failed(tp + (r.brokerId() >= 0 ? " on broker " + r.brokerId() : "") + ": " + r.error()
                    + ": " + r.message());
        }
        if (!admin.json()) {
            print(r, admin.io.out());
        }
        return Cli.EXIT_OK;
    }

    private static void print(ReplicaRetention r, PrintStream out) {
        out.println("Partition: " + r.partition() + "\tBroker: " + r.brokerId() + "\tLogDir: " + r.logDir());
        out.println("LogStartOffset: " + r.logStartOffset() + "\tHighWatermark: " + r.highWatermark()
                + "\tLogEndOffset: " + r.logEndOffset() + "\tretention.ms=" + r.retentionMs() + "\tretention.bytes="
                + r.retentionBytes() + "\tfile.delete.delay.ms=" + r.fileDeleteDelayMs());
        out.println("As of the next retention pass at " + TextTable.time(r.nextRetentionPassMs()) + " (every "
                + r.retentionCheckIntervalMs() + " ms; now " + TextTable.time(r.nowMs()) + ")");
        TextTable table = new TextTable("BASE_OFFSET", "SIZE", "LARGEST_TIMESTAMP", "STATUS", "WHY");
        for (ReplicaRetention.Segment s : r.segments()) {
            table.row(s.baseOffset(), s.sizeBytes(), TextTable.time(s.largestTimestamp()), s.status(),
                    s.reasons().stream().map(RetentionText::reason).collect(Collectors.joining("; ")));
        }
        table.print(out);
        CompactionText.section(r.compaction(), out);
    }
}
