package io.tideline.tools.cli;

import io.tideline.client.BrokerLogDirs;
import io.tideline.client.ClusterDescription;
import io.tideline.client.TidelineAdmin;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin log-dirs --describe [--broker-list 1,2] [--topic-list t1,t2]}, as Kafka's
 * {@code kafka-log-dirs.sh}: every listed broker (default: all) is asked for its own log dirs. Text output
 * is Kafka's two lines, then a table per broker and log dir; {@code --output json} prints Kafka's
 * document, {@code {"brokers":[{"broker":1,"logDirs":[{"logDir":...,"error":null,"partitions":[...]}]}],
 * "version":1}}, with Tideline's fields added (docs/cli.md), the log cleaner's view among them (B193). A
 * broker that does not answer is reported in the output and makes the exit code 1; it never holds the others
 * up beyond request.timeout.ms.
 */
@Command(name = "log-dirs", sortOptions = false,
        description = "Describe the log dirs of brokers: each replica's size and offsets, segments waiting for "
                + "their unlink, files unlinked but still held open, and compacted logs' dirty ratio and last "
                + "cleaning.")
final class LogDirsCommand implements Callable<Integer> {

    @Option(names = "--describe", required = true, description = "Describe the log dirs (the only action).")
    boolean describe;

    @Option(names = "--broker-list", paramLabel = "1,2,3", description = "The brokers to ask (default: every broker).")
    String brokerList;

    @Option(names = "--topic-list", paramLabel = "t1,t2", description = "Only these topics (default: every topic).")
    String topicList;

    private final AdminCommand admin;

    LogDirsCommand(AdminCommand admin) {
        this.admin = admin;
    }

    @Override
    public Integer call() {
        Set<Integer> brokers = brokers();
        Set<String> topics = topicList == null ? Set.of() : new LinkedHashSet<>(split(topicList));
        PrintStream progress = admin.json() ? admin.io.err() : admin.io.out();
        Map<Integer, BrokerLogDirs> results;
        try (TidelineAdmin client = admin.client()) {
            ClusterDescription cluster = client.describeCluster();
            Set<Integer> registered = cluster.brokers().stream().map(ClusterDescription.Broker::id)
                    .collect(Collectors.toCollection(TreeSet::new));
            Set<Integer> missing = new TreeSet<>(brokers);
            missing.removeAll(registered);
            if (!missing.isEmpty()) {
                throw CliException.failed("the given brokers do not exist from --broker-list: " + join(missing)
                        + ". Current existent brokers: " + join(registered));
            }
            List<String> unknown = new ArrayList<>(topics);
            unknown.removeAll(client.listTopics());
            if (!unknown.isEmpty()) {
                throw CliException.failed("unknown topic" + (unknown.size() == 1 ? " '" + unknown.get(0) + "'"
                        : "s " + unknown) + " in --topic-list");
            }
            progress.println("Querying brokers for log directories information");
            progress.flush();
            results = client.describeLogDirs(brokers.isEmpty() ? registered : brokers, topics);
        }
        List<Integer> answered = results.values().stream().filter(BrokerLogDirs::answered).map(BrokerLogDirs::brokerId)
                .toList();
        progress.println("Received log directory information from brokers " + join(answered));
        if (admin.json()) {
            admin.io.out().println(JsonOutput.write(LogDirsJson.of(results.values())));
        } else {
            results.values().forEach(this::printText);
        }
        List<BrokerLogDirs> failed = results.values().stream().filter(b -> !b.answered()).toList();
        if (failed.size() == 1) {
            throw CliException.failed("broker " + failed.get(0).brokerId() + " did not answer: " + failed.get(0).error()
                    + ": " + failed.get(0).message());
        }
        if (!failed.isEmpty()) {
            throw CliException.failed(failed.size() + " of " + results.size() + " brokers did not answer: "
                    + join(failed.stream().map(BrokerLogDirs::brokerId).toList()));
        }
        return Cli.EXIT_OK;
    }

    private void printText(BrokerLogDirs broker) {
        PrintStream out = admin.io.out();
        if (!broker.answered()) {
            out.println("Broker: " + broker.brokerId() + "\tError: " + broker.error() + ": " + broker.message());
            return;
        }
        for (BrokerLogDirs.LogDir dir : broker.logDirs()) {
            out.println("Broker: " + broker.brokerId() + "\tLogDir: " + dir.path() + "\tError: "
                    + (dir.error() == io.tideline.common.errors.Errors.NONE ? "-" : dir.error() + ": " + dir.message()));
            if (!dir.replicas().isEmpty()) {
                TextTable table = new TextTable("PARTITION", "SIZE", "SEGMENTS", "LOG_START", "LOG_END", "HW",
                        "OFFSET_LAG", "PENDING_UNLINK", "DELETED_OPEN", "DIRTY_RATIO", "LAST_CLEANED");
                for (BrokerLogDirs.Replica r : dir.replicas()) {
                    table.row(r.partition(), r.sizeBytes(), r.segmentCount(), r.logStartOffset(), r.logEndOffset(),
                            r.highWatermark(), r.offsetLag(), pending(r.pendingUnlink()), held(r.deletedOpen()),
                            CompactionText.dirtyRatio(r.compaction()), CompactionText.lastCleaned(r.compaction()));
                }
                table.print(out);
            }
            for (BrokerLogDirs.DeletedFile f : dir.deletedOpenFiles()) {
                out.println("  deleted but open: " + f.path() + " " + f.bytes() + " bytes (" + f.holder() + ")");
            }
        }
    }

    /** "2 segments, 4096 bytes, next unlink 2026-12-01T14:06:31.123Z", or "-". */
    private static String pending(List<BrokerLogDirs.SegmentFile> files) {
        if (files.isEmpty()) {
            return "-";
        }
        long next = files.stream().mapToLong(BrokerLogDirs.SegmentFile::atMs).min().orElse(-1);
        return count(files) + ", next unlink " + TextTable.time(next);
    }

    /** "1 segment, 512 bytes", or "-". */
    private static String held(List<BrokerLogDirs.SegmentFile> files) {
        return files.isEmpty() ? "-" : count(files);
    }

    private static String count(List<BrokerLogDirs.SegmentFile> files) {
        long bytes = files.stream().mapToLong(BrokerLogDirs.SegmentFile::sizeBytes).sum();
        return files.size() + " segment" + (files.size() == 1 ? "" : "s") + ", " + bytes + " bytes";
    }

    private Set<Integer> brokers() {
        Set<Integer> ids = new TreeSet<>();
        if (brokerList == null) {
            return ids;
        }
        for (String id : split(brokerList)) {
            try {
                ids.add(Integer.parseInt(id));
            } catch (NumberFormatException e) {
                throw CliException.usage("--broker-list must be broker ids separated by commas, got '" + brokerList + "'");
            }
        }
        return ids;
    }

    private static List<String> split(String list) {
        List<String> items = new ArrayList<>();
        for (String item : list.split(",")) {
            if (!item.isBlank()) {
                items.add(item.strip());
            }
        }
        return items;
    }

    private static String join(java.util.Collection<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
