package io.tideline.replication.tools;

import static io.tideline.store.tools.BenchmarkSupport.MB;
import static io.tideline.store.tools.BenchmarkSupport.duration;
import static io.tideline.store.tools.BenchmarkSupport.eachRound;
import static io.tideline.store.tools.BenchmarkSupport.environment;
import static io.tideline.store.tools.BenchmarkSupport.fixed;
import static io.tideline.store.tools.BenchmarkSupport.printResult;
import static io.tideline.store.tools.BenchmarkSupport.rate;

import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import io.tideline.store.tools.BenchmarkCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tideline bench-replication}: how fast a follower catches up with a leader, next to two baselines
 * measured in the same run: how fast the leader's own log can be read, and how fast the follower's store
 * appends the same batches.
 *
 * <p>Two brokers in this JVM, each a {@link LogManager} over its own directory and a {@link ReplicaManager};
 * the follower fetches over gRPC, by default Netty on 127.0.0.1 (an ephemeral port: serialization, the
 * loopback socket, deserialization, as between two brokers), or in-process with
 * {@code --transport in-process} (no serialization: the replication code alone). The leader is preloaded
 * with N MB (random, incompressible values; not timed). Each round then measures three things:
 * <ul>
 *   <li>catch-up: the partitions are assigned to a fresh follower as a new replica outside the ISR (a
 *       reassignment), and the clock runs from that assignment until every follower log end offset equals
 *       the leader's;</li>
 *   <li>raw read: the leader logs read whole with {@link Log#read} (replica.fetch.max.bytes per read,
 *       copied into a heap buffer): what a follower would reach if the network and its own appends cost
 *       nothing;</li>
 *   <li>follower append: the same pieces a follower fetches, read ahead untimed, appended with
 *       {@link Log#appendAsFollower} into fresh logs with nothing else running: what a follower would
 *       reach if fetching cost nothing.</li>
 * </ul>
 * The three alternate which goes first from round to round, and the best round of each is reported with
 * the target: at least half the raw read or 0.8 of the follower append, whichever is lower.
 *
 * <p>Scenarios: one partition, and {@code --partitions} partitions sharing the same total bytes, each with
 * {@code --idle-partitions} empty partitions fetched beside the busy ones. Each scenario runs
 * {@code --warmup-rounds} untimed rounds first for the JIT.
 *
 * Output: two tables and the per-round figures, then one {@code RESULT bench-replication key=value ...}
 * line for scripts. Bad arguments or an unusable directory: one line on stderr, exit code 2.
 */
@Command(name = "bench-replication", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Measures follower catch-up throughput over gRPC for one and for many partitions, next to "
                + "the raw read rate of the same leader logs.")
public final class ReplicationBenchmark extends BenchmarkCommand {
    static final String SUMMARY_PREFIX = "RESULT bench-replication";

    /** How the follower reaches the leader. */
    enum Transport {
        NETTY("netty (TCP loopback 127.0.0.1)"), IN_PROCESS("in-process gRPC (no serialization)");

        final String description;

        Transport(String description) {
            this.description = description;
        }
    }

    @Option(names = "--dir", required = true, paramLabel = "D",
            description = "Directory to work in; created if missing, must be empty. Removed at the end unless --keep.")
    Path dir;

    @Option(names = "--mb", paramLabel = "N", defaultValue = "128",
            description = "MB (10^6 bytes) preloaded on the leader per scenario (default ${DEFAULT-VALUE}).")
    int megabytes;

    @Option(names = "--partitions", paramLabel = "P", defaultValue = "16",
            description = "Partitions of the many-partition scenario, sharing the --mb (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--record-size", paramLabel = "S", defaultValue = "1000",
            description = "Value bytes per record (default ${DEFAULT-VALUE}).")
    int recordSize;

    @Option(names = "--batch-size", paramLabel = "B", defaultValue = "64",
            description = "Records per batch (default ${DEFAULT-VALUE}).")
    int batchSize;

    @Option(names = "--fetch-max-bytes", paramLabel = "X", defaultValue = "1048576",
            description = "replica.fetch.max.bytes, also the size of each raw read (default ${DEFAULT-VALUE}).")
    int fetchMaxBytes;

    @Option(names = "--fetchers", paramLabel = "F", defaultValue = "1",
            description = "num.replica.fetchers on the follower (default ${DEFAULT-VALUE}).")
    int fetchers;

    @Option(names = "--transport", paramLabel = "T", defaultValue = "netty",
            description = "netty (default: TCP on 127.0.0.1) or in-process.")
    String transportName;

    @Option(names = "--idle-partitions", paramLabel = "K", defaultValue = "0",
            description = "Partitions with no data, assigned to the follower beside the busy ones in every scenario "
                    + "(default ${DEFAULT-VALUE}).")
    int idlePartitions;

    @Option(names = "--rounds", paramLabel = "R", defaultValue = "3",
            description = "Rounds per scenario, each a fresh follower's catch-up, a raw read and a follower append; "
                    + "the best of each is reported (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--keep", description = "Keep the directory for inspection.")
    boolean keep;

    @Option(names = "--warmup-rounds", paramLabel = "W", defaultValue = "2",
            description = "Untimed rounds per scenario before the timed ones (default ${DEFAULT-VALUE}): the JIT "
                    + "is still compiling gRPC and Netty through the first few hundred fetches.")
    int warmupRounds;

    Transport transport;

    private ReplicationBenchmark() {
        super("bench-replication");
    }

    public static void main(String[] args) {
        runAndExit(new ReplicationBenchmark(), args);
    }

    /** Parses, runs and reports; returns the exit code (0 ok, 1 the run failed, 2 bad arguments or directory). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return new ReplicationBenchmark().launch(args, out, err);
    }

    @Override
    protected Path dir() {
        return dir;
    }

    @Override
    protected boolean keep() {
        return keep;
    }

    @Override
    protected String validate() {
        switch (transportName.toLowerCase(Locale.ROOT)) {
            case "netty" -> transport = Transport.NETTY;
            case "in-process", "inprocess" -> transport = Transport.IN_PROCESS;
            default -> {
                return "--transport must be netty or in-process, got " + transportName;
            }
        }
        if (megabytes < 1) {
            return "--mb must be at least 1, got " + megabytes;
        }
        if (partitions < 1) {
            return "--partitions must be at least 1, got " + partitions;
        }
        if (recordSize < 1) {
            return "--record-size must be at least 1, got " + recordSize;
        }
        if (batchSize < 1) {
            return "--batch-size must be at least 1, got " + batchSize;
        }
        if (fetchMaxBytes < 1024) {
            return "--fetch-max-bytes must be at least 1024, got " + fetchMaxBytes;
        }
        if (fetchers < 1) {
            return "--fetchers must be at least 1, got " + fetchers;
        }
        if (idlePartitions < 0) {
            return "--idle-partitions must not be negative, got " + idlePartitions;
        }
        if (rounds < 1) {
            return "--rounds must be at least 1, got " + rounds;
        }
        if (warmupRounds < 0) {
            return "--warmup-rounds must not be negative, got " + warmupRounds;
        }
        return null;
    }

    // ---------------------------------------------------------------- the run

    @Override
    protected void execute(PrintStream out) throws IOException, InterruptedException {
        out.printf(Locale.ROOT, "bench-replication: %d MB per scenario, records of %d bytes in batches of %d, "
                        + "replica.fetch.max.bytes %,d, num.replica.fetchers %d, %d idle partition(s) beside the busy "
                        + "ones, dir %s%n", megabytes, recordSize, batchSize, fetchMaxBytes, fetchers, idlePartitions,
                dir.toAbsolutePath());
        out.println("transport: " + transport.description + "; " + environment());
        out.printf(Locale.ROOT, "best of %d round(s) after %d untimed; catch-up and the two baselines alternate which "
                + "goes first%n", rounds, warmupRounds);
        out.flush();

        Map<String, String> summary = new LinkedHashMap<>();
        summary.put("transport", transport.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        summary.put("mb", Integer.toString(megabytes));
        summary.put("record_size", Integer.toString(recordSize));
        summary.put("batch_size", Integer.toString(batchSize));
        summary.put("fetch_max_bytes", Integer.toString(fetchMaxBytes));
        summary.put("idle_partitions", Integer.toString(idlePartitions));
        summary.put("rounds", Integer.toString(rounds));
        List<Integer> counts = partitions == 1 ? List.of(1) : List.of(1, partitions);
        Map<Integer, CatchUpResult> results = new LinkedHashMap<>();
        CatchUpScenario scenario = new CatchUpScenario(this);
        for (int count : counts) {
            results.put(count, scenario.run("p" + count, count, (long) megabytes * 1_000_000L));
        }

        out.println();
        out.printf(Locale.ROOT, "%-10s %8s %10s %14s %15s %22s%n", "partitions", "MB", "catch-up", "catch-up MB/s",
                "raw read MB/s", "follower append MB/s");
        for (Map.Entry<Integer, CatchUpResult> e : results.entrySet()) {
            CatchUpResult r = e.getValue();
            out.printf(Locale.ROOT, "%-10d %8.1f %10s %14.1f %15.1f %22.1f%n", e.getKey(), r.bytes() / MB,
                    duration(r.catchUpNs()), r.catchUpMbPerS(), r.rawReadMbPerS(), r.appendMbPerS());
        }
        out.println();
        out.printf(Locale.ROOT, "%-10s %14s %17s %34s %17s%n", "partitions", "catch-up/raw", "catch-up/append",
                "target (the lower of the two)", "catch-up/target");
        for (Map.Entry<Integer, CatchUpResult> e : results.entrySet()) {
            CatchUpResult r = e.getValue();
            out.printf(Locale.ROOT, "%-10d %13.2fx %16.2fx %34s %16.2fx%n", e.getKey(),
                    r.catchUpMbPerS() / r.rawReadMbPerS(), r.catchUpMbPerS() / r.appendMbPerS(),
                    String.format(Locale.ROOT, "%.1f MB/s = %s", r.targetMbPerS(), r.targetRule()),
                    r.catchUpMbPerS() / r.targetMbPerS());
        }
        out.println();
        for (Map.Entry<Integer, CatchUpResult> e : results.entrySet()) {
            CatchUpResult r = e.getValue();
            out.printf(Locale.ROOT, "rounds, %d partition(s), MB/s: catch-up %s; raw read %s; follower append %s; "
                            + "catch-up CPU ms/MB (all threads) %s; catch-up heap bytes allocated per byte %s%n",
                    e.getKey(), rates(r.bytes(), r.catchUpRounds()), rates(r.bytes(), r.rawReadRounds()),
                    rates(r.bytes(), r.appendRounds()),
                    eachRound(r.catchUpCpuRounds(), ns -> fixed(ns / 1e6 / (r.bytes() / MB), 2)),
                    eachRound(r.catchUpAllocatedRounds(), count -> fixed((double) count / r.bytes(), 2)));
        }
        for (Map.Entry<Integer, CatchUpResult> e : results.entrySet()) {
            CatchUpResult r = e.getValue();
            String key = e.getKey() == 1 ? "single" : "multi";
            summary.put(key + "_partitions", Integer.toString(e.getKey()));
            summary.put(key + "_bytes", Long.toString(r.bytes()));
            summary.put(key + "_catch_up_mb_per_s", fixed(r.catchUpMbPerS(), 1));
            summary.put(key + "_raw_read_mb_per_s", fixed(r.rawReadMbPerS(), 1));
            summary.put(key + "_follower_append_mb_per_s", fixed(r.appendMbPerS(), 1));
            summary.put(key + "_catch_up_cpu_ms_per_mb", fixed(r.catchUpCpuMsPerMb(), 2));
            summary.put(key + "_catch_up_allocated_per_byte", fixed(r.catchUpAllocatedPerByte(), 2));
            summary.put(key + "_target_mb_per_s", fixed(r.targetMbPerS(), 1));
            summary.put(key + "_target_rule", r.targetIsRawRead() ? "raw_read" : "follower_append");
            summary.put(key + "_catch_up_to_target", fixed(r.catchUpMbPerS() / r.targetMbPerS(), 2));
        }
        printResult(out, SUMMARY_PREFIX, summary);
    }

    /** MB/s of each round. */
    private static String rates(long bytes, long[] nanos) {
        return eachRound(nanos, ns -> rate(bytes / MB, ns));
    }

    ReplicationConfig replicationConfig() {
        return ReplicationConfig.fromMap(Map.of(
                ReplicationConfig.REPLICA_FETCH_MAX_BYTES_CONFIG, fetchMaxBytes,
                ReplicationConfig.NUM_REPLICA_FETCHERS_CONFIG, fetchers));
    }
}
