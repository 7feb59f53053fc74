package io.tideline.tools.cli;

import io.tideline.client.NewTopic;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TopicDescription;
import io.tideline.client.TopicResult;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tideline bench-soak --minutes M}: mixed load against a local cluster that it starts
 * ({@code scripts/cluster.sh}, own directory and ports) and stops, and every {@code --report-interval-s}
 * seconds, for each node, the heap used after a full GC, the resident set, open file descriptors and
 * threads. The load: busy and idle partitions over four topics (RF 3, min.insync.replicas=2, 1 MiB
 * segments, one minute of retention checked every 10 s), an acks=all producer at {@code --throughput}
 * records per second, a consumer reading the busy partitions, and a DeleteRecords every minute. At the
 * end it prints the verdict of {@link SoakReport} (its bounds say what flat means) and exits 0 when every
 * node stayed flat, 1 when one grew, 2 on bad arguments.
 */
@Command(name = "bench-soak", sortOptions = false,
        description = "Run mixed load against a local cluster it starts itself and report each node's memory, "
                + "file descriptors and threads every few seconds; exit 1 if any of them grew.")
public final class SoakCommand implements Callable<Integer> {
    static final Map<String, String> TOPIC_CONFIG = Map.of("min.insync.replicas", "2", "segment.bytes", "1048576",
            "retention.ms", "60000");
    /** Topic name and partition count; the first two carry the traffic, the other two stay idle. */
    private static final Map<String, Integer> TOPICS = topics();

    @Option(names = "--minutes", paramLabel = "M", defaultValue = "10", description = "How long the load runs.")
    double minutes;

    @Option(names = "--throughput", paramLabel = "RECORDS/S", defaultValue = "5000",
            description = "Records per second the producer sends (acks=all).")
    double throughput;

    @Option(names = "--record-size", paramLabel = "BYTES", defaultValue = "1024", description = "Value size.")
    int recordSize;

    @Option(names = "--report-interval-s", paramLabel = "S", defaultValue = "10", description = "Seconds between samples.")
    int reportIntervalS;

    @Option(names = "--warmup-minutes", paramLabel = "M", defaultValue = "2",
            description = "Samples before this are printed but not judged (JIT, first segments, first retention).")
    double warmupMinutes;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "3", description = "Cluster size.")
    int nodes;

    @Option(names = "--dir", paramLabel = "DIR", description = "The cluster's directory (new or empty; default: "
            + "data/soak in the repository).")
    Path dir;

    @Option(names = "--port-base", paramLabel = "PORT", defaultValue = "39090",
            description = "Node i listens on PORT+i, its quorum on PORT+100+i, its metrics on PORT+200+i.")
    int portBase;

    @Option(names = "--keep", description = "Leave the cluster's directory (logs, data) after the run.")
    boolean keep;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    private final CliIo io;
    private final Time time;

    SoakCommand(CliIo io, Time time) {
        this.io = io;
        this.time = time;
    }

    public static void main(String[] args) {
        Cli.useToolLogging();
        System.exit(run(args, CliIo.system()));
    }

    public static int run(String[] args, CliIo io) {
        return Cli.execute("bench-soak", new CommandLine(new SoakCommand(io, Time.SYSTEM)), io, args);
    }

    private static Map<String, Integer> topics() {
        Map<String, Integer> t = new LinkedHashMap<>();
        t.put("soak-busy-a", 3);
        t.put("soak-busy-b", 1);
        t.put("soak-idle-a", 6);
        t.put("soak-idle-b", 6);
        return t;
    }

    @Override
    public Integer call() throws Exception {
        if (minutes <= 0 || throughput <= 0 || recordSize < 0 || reportIntervalS <= 0 || nodes < 3) {
            throw CliException.usage("--minutes, --throughput and --report-interval-s must be positive, --nodes at least 3");
        }
        Path home = Path.of(System.getProperty("tideline.home", "."));
        if (!Files.isRegularFile(home.resolve("scripts/cluster.sh"))) {
            throw CliException.usage("scripts/cluster.sh not found under " + home.toAbsolutePath()
                    + " (run through scripts/tideline, or set -Dtideline.home)");
        }
        Path clusterDir = dir != null ? dir : home.resolve("data/soak");
        if (Files.isDirectory(clusterDir)) {
            try (Stream<Path> entries = Files.list(clusterDir)) {
                if (entries.findAny().isPresent()) {
                    throw CliException.usage("--dir " + clusterDir + " is not empty");
                }
            }
        }
        ClusterScript cluster = new ClusterScript(home, clusterDir, portBase);
        Thread stopOnExit = new Thread(cluster::stopQuietly, "soak-stop-cluster");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        try {
            io.err().println("bench-soak: starting a cluster of " + nodes + " nodes in " + clusterDir);
            cluster.run(300, "start", String.valueOf(nodes));
            String bootstrap = "127.0.0.1:" + (portBase + 1);
            List<TopicPartition> busy = createTopics(bootstrap);
            boolean flat = runLoad(bootstrap, busy, cluster);
            return flat ? Cli.EXIT_OK : Cli.EXIT_FAILED;
        } finally {
            cluster.stopQuietly();
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
            if (!keep) {
                deleteTree(clusterDir);
            }
        }
    }

    private List<TopicPartition> createTopics(String bootstrap) {
        List<TopicPartition> busy = new ArrayList<>();
        try (TidelineAdmin admin = new TidelineAdmin(Map.of("bootstrap.servers", bootstrap))) {
            List<NewTopic> requests = new ArrayList<>();
            TOPICS.forEach((name, partitions) -> requests.add(NewTopic.of(name, partitions, 3, TOPIC_CONFIG)));
            for (TopicResult r : admin.createTopics(requests, false).values()) {
                if (r.error() != Errors.NONE) {
                    throw CliException.failed("creating the topics failed: " + r.error()
                            + " " + r.message());
                }
            }
            long deadline = time.milliseconds() + 60_000;
            while (!allLed(admin)) {
                if (time.milliseconds() > deadline) {
                    throw CliException.failed("the topics had no leaders after 60 s");
                }
                time.sleep(200);
            }
        }
        TOPICS.entrySet().stream().filter(e -> e.getKey().contains("busy")).forEach(e -> {
            for (int p = 0; p < e.getValue(); p++) {
                busy.add(new TopicPartition(e.getKey(), p));
            }
        });
        return busy;
    }

    private static boolean allLed(TidelineAdmin admin) {
        return admin.describeTopics(List.copyOf(TOPICS.keySet())).stream()
                .flatMap(t -> t.partitions().stream()).allMatch(p -> p.leader() > 0);
    }

    private boolean runLoad(String bootstrap, List<TopicPartition> busy, ClusterScript cluster) throws Exception {
        SoakLoad load = new SoakLoad(bootstrap, busy, new TopicPartition("soak-busy-b", 0), throughput, recordSize, time);
        SoakReport report = new SoakReport((long) (warmupMinutes * 60_000));
        io.out().printf(Locale.ROOT, "bench-soak: %.1f minutes, %.0f records/s of %d bytes (acks=all) to %d busy "
                        + "partitions, %d idle partitions, a consumer, DeleteRecords every %d s, retention.ms=%s with "
                        + "segment.bytes=%s%n", minutes, throughput, recordSize, busy.size(),
                TOPICS.entrySet().stream().filter(e -> e.getKey().contains("idle")).mapToInt(Map.Entry::getValue).sum(),
                SoakLoad.DELETE_RECORDS_INTERVAL_MS / 1000, TOPIC_CONFIG.get("retention.ms"),
                TOPIC_CONFIG.get("segment.bytes"));
        long start = time.milliseconds();
        long end = start + (long) (minutes * 60_000);
        load.start();
        long lastAcked = 0;
        long lastConsumed = 0;
        long lastReportMs = start;
        try {
            for (long next = start + reportIntervalS * 1000L; ; next += reportIntervalS * 1000L) {
                long wait = Math.min(next, end) - time.milliseconds();
                if (wait > 0) {
                    time.sleep(wait);
                }
                long now = time.milliseconds();
                long elapsed = now - start;
                double seconds = Math.max(1, now - lastReportMs) / 1000.0;
                long acked = load.acked.get();
                long consumed = load.consumed.get();
                io.out().printf(Locale.ROOT, "[%5d s] load: %.0f records/s acknowledged (%d in all, %d failed), "
                                + "%.0f records/s consumed, %d DeleteRecords (low watermark %d)%n", elapsed / 1000,
                        (acked - lastAcked) / seconds, acked, load.failed.get(), (consumed - lastConsumed) / seconds,
                        load.deleteRecordsCalls.get(), load.lowWatermark.get());
                lastAcked = acked;
                lastConsumed = consumed;
                lastReportMs = now;
                for (Map.Entry<Integer, Long> node : cluster.pids(nodes).entrySet()) {
                    ProcessStats stats = ProcessStats.sample(node.getValue());
                    report.add(node.getKey(), elapsed, stats);
                    io.out().println(SoakReport.line(node.getKey(), elapsed, stats));
                }
                io.out().flush();
                if (now >= end) {
                    break;
                }
            }
        } finally {
            load.stop();
        }
        if (load.firstError.get() != null) {
            io.out().println("bench-soak: first error seen: " + load.firstError.get());
        }
        io.out().printf(Locale.ROOT, "bench-soak: flat means, after %.1f minutes of warm-up, the last minute's mean "
                + "within the allowed growth of the first minute's mean:%n", warmupMinutes);
        boolean flat = report.printVerdict(io.out());
        io.out().printf(Locale.ROOT, "RESULT bench-soak minutes=%.1f throughput=%.0f acked=%d failed=%d consumed=%d "
                        + "delete_records=%d flat=%s%n", minutes, throughput, load.acked.get(), load.failed.get(),
                load.consumed.get(), load.deleteRecordsCalls.get(), flat);
        return flat;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** scripts/cluster.sh on this soak's directory and ports; it stops only the nodes it started. */
    private static final class ClusterScript {
        private final Path home;
        private final Path dir;
        private final int portBase;

        ClusterScript(Path home, Path dir, int portBase) {
            this.home = home;
            this.dir = dir;
            this.portBase = portBase;
        }

        void run(int timeoutS, String... args) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>(List.of("bash", home.resolve("scripts/cluster.sh").toString()));
            command.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            Map<String, String> env = pb.environment();
            env.put("TIDELINE_CLUSTER_DIR", dir.toAbsolutePath().toString());
            env.put("TIDELINE_CLIENT_PORT_BASE", String.valueOf(portBase));
            env.put("TIDELINE_QUORUM_PORT_BASE", String.valueOf(portBase + 100));
            env.put("TIDELINE_METRICS_PORT_BASE", String.valueOf(portBase + 200));
            // Its Kafka listeners too, clear of a cluster.sh cluster on the default ports.
            env.put("TIDELINE_KAFKA_PORT_BASE", String.valueOf(portBase + 300));
            // Retention runs often enough to delete segments many times in a short soak.
            env.put("TIDELINE_NODE_PROPERTIES", "log.retention.check.interval.ms=10000 "
                    + "log.segment.delete.delay.ms=10000");
            Process p = pb.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw CliException.failed("cluster.sh " + String.join(" ", args)
                        + " did not finish in " + timeoutS + " s:\n" + out);
            }
            if (p.exitValue() != 0) {
                throw CliException.failed("cluster.sh " + String.join(" ", args)
                        + " failed:\n" + out);
            }
        }

        void stopQuietly() {
            try {
                if (Files.isDirectory(dir)) {
                    run(120, "stop");
                }
            } catch (IOException | RuntimeException e) {
                System.err.println("bench-soak: stopping the cluster: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** The node processes cluster.sh started, by node id. */
        Map<Integer, Long> pids(int nodes) throws IOException {
            Map<Integer, Long> pids = new LinkedHashMap<>();
            for (int i = 1; i <= nodes; i++) {
                Path file = dir.resolve("node-" + i + ".pid");
                if (Files.exists(file)) {
                    pids.put(i, Long.parseLong(Files.readString(file).strip()));
                }
            }
            return pids;
        }
    }
}
