package io.tideline.replication.tools;

import io.tideline.store.tools.BenchmarkSupport;
import static io.tideline.store.tools.BenchmarkSupport.describe;
import static io.tideline.store.tools.BenchmarkSupport.duration;
import static io.tideline.store.tools.BenchmarkSupport.fixed;
import static io.tideline.store.tools.BenchmarkSupport.prepareDirectory;
import static io.tideline.store.tools.BenchmarkSupport.quietLogging;

import com.codahale.metrics.MetricRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.io.FileUtils;
import io.tideline.common.time.ThreadPoolScheduler;
import io.tideline.common.time.Time;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.fetcher.LeaderEndpoint;
import io.tideline.replication.rpc.GrpcLeaderEndpoint;
import io.tideline.replication.rpc.ReplicaFetchGrpcService;
import io.tideline.replication.server.FailedReplicaReporter;
import io.tideline.replication.server.IsrChangeResult;
import io.tideline.replication.server.LeaderAndIsr;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
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
public final class ReplicationBenchmark {
    static final String SUMMARY_PREFIX = "RESULT bench-replication";
    private static final double MB = 1_000_000.0;
    private static final long SEED = 42L;
    private static final long CATCH_UP_TIMEOUT_NS = TimeUnit.MINUTES.toNanos(10);
    /** Bytes read ahead (untimed) before each timed group of follower appends. */
    private static final long APPEND_GROUP_BYTES = 64_000_000L;

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

    private Transport transport;

    public static void main(String[] args) {
        quietLogging();
        System.exit(run(args, System.out, System.err));
    }

    /** Parses, runs and reports; returns the exit code (0 ok, 1 the run failed, 2 bad arguments or directory). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        ReplicationBenchmark bench = new ReplicationBenchmark();
        CommandLine cli = new CommandLine(bench);
        try {
            cli.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            err.println("bench-replication: " + e.getMessage());
            return 2;
        }
        if (cli.isUsageHelpRequested()) {
            cli.usage(out);
            return 0;
        }
        if (cli.isVersionHelpRequested()) {
            out.println("tideline bench-replication");
            return 0;
        }
        String invalid = bench.validate();
        if (invalid != null) {
            err.println("bench-replication: " + invalid);
            return 2;
        }
        boolean created;
        try {
            created = prepareDirectory(bench.dir);
        } catch (IOException | RuntimeException e) {
            err.println("bench-replication: cannot use --dir " + bench.dir + ": " + describe(e));
            return 2;
        }
        try {
            bench.execute(out);
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("bench-replication: failed: " + describe(e));
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("bench-replication: interrupted");
            return 1;
        } finally {
            if (!bench.keep) {
                bench.cleanUp(created, err);
            } else {
                out.println("kept " + bench.dir.toAbsolutePath());
            }
        }
    }

    private String validate() {
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

    private void cleanUp(boolean created, PrintStream err) {
        try {
            BenchmarkSupport.cleanUp(dir, created);
        } catch (IOException | UncheckedIOException e) {
            err.println("bench-replication: could not remove " + dir + ": " + describe(e));
        }
    }

    // ---------------------------------------------------------------- the run

    private void execute(PrintStream out) throws IOException, InterruptedException {
        out.printf(Locale.ROOT, "bench-replication: %d MB per scenario, records of %d bytes in batches of %d, "
                        + "replica.fetch.max.bytes %,d, num.replica.fetchers %d, %d idle partition(s) beside the busy "
                        + "ones, dir %s%n", megabytes, recordSize, batchSize, fetchMaxBytes, fetchers, idlePartitions,
                dir.toAbsolutePath());
        out.printf(Locale.ROOT, "transport: %s; MB = 10^6 bytes; Java %s, %d cores, max heap %d MiB%n",
                transport.description, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20);
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
        Map<Integer, Result> results = new LinkedHashMap<>();
        for (int count : counts) {
            results.put(count, scenario("p" + count, count, (long) megabytes * 1_000_000L));
        }

        out.println();
        out.printf(Locale.ROOT, "%-10s %8s %10s %14s %15s %22s%n", "partitions", "MB", "catch-up", "catch-up MB/s",
                "raw read MB/s", "follower append MB/s");
        for (Map.Entry<Integer, Result> e : results.entrySet()) {
            Result r = e.getValue();
            out.printf(Locale.ROOT, "%-10d %8.1f %10s %14.1f %15.1f %22.1f%n", e.getKey(), r.bytes() / MB,
                    duration(r.catchUpNs()), r.catchUpMbPerS(), r.rawReadMbPerS(), r.appendMbPerS());
        }
        out.println();
        out.printf(Locale.ROOT, "%-10s %14s %17s %34s %17s%n", "partitions", "catch-up/raw", "catch-up/append",
                "target (the lower of the two)", "catch-up/target");
        for (Map.Entry<Integer, Result> e : results.entrySet()) {
            Result r = e.getValue();
            out.printf(Locale.ROOT, "%-10d %13.2fx %16.2fx %34s %16.2fx%n", e.getKey(),
                    r.catchUpMbPerS() / r.rawReadMbPerS(), r.catchUpMbPerS() / r.appendMbPerS(),
                    String.format(Locale.ROOT, "%.1f MB/s = %s", r.targetMbPerS(), r.targetRule()),
                    r.catchUpMbPerS() / r.targetMbPerS());
        }
        out.println();
        for (Map.Entry<Integer, Result> e : results.entrySet()) {
            Result r = e.getValue();
            out.printf(Locale.ROOT, "rounds, %d partition(s), MB/s: catch-up %s; raw read %s; follower append %s; "
                            + "catch-up CPU ms/MB (all threads) %s; catch-up heap bytes allocated per byte %s%n",
                    e.getKey(), rates(r.bytes(), r.catchUpRounds()), rates(r.bytes(), r.rawReadRounds()),
                    rates(r.bytes(), r.appendRounds()), cpuPerMb(r.bytes(), r.catchUpCpuRounds()),
                    perByte(r.bytes(), r.catchUpAllocatedRounds()));
        }
        for (Map.Entry<Integer, Result> e : results.entrySet()) {
            Result r = e.getValue();
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
        out.println();
        StringBuilder line = new StringBuilder(SUMMARY_PREFIX);
        summary.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        out.println(line);
        out.flush();
    }

    private static String cpuPerMb(long bytes, long[] cpuNanos) {
        StringBuilder s = new StringBuilder();
        for (long ns : cpuNanos) {
            s.append(s.length() == 0 ? "" : ", ").append(fixed(ns / 1e6 / (bytes / MB), 2));
        }
        return s.toString();
    }

    private static String perByte(long bytes, long[] counts) {
        StringBuilder s = new StringBuilder();
        for (long count : counts) {
            s.append(s.length() == 0 ? "" : ", ").append(fixed((double) count / bytes, 2));
        }
        return s.toString();
    }

    private static String rates(long bytes, long[] nanos) {
        StringBuilder s = new StringBuilder();
        for (long ns : nanos) {
            s.append(s.length() == 0 ? "" : ", ").append(fixed(bytes / MB / (ns / 1e9), 1));
        }
        return s.toString();
    }

    /**
     * Timings of one scenario over {@code bytes} leader bytes, per round; the figures are the best round of
     * each. The target: at least half the raw read, or 0.8 of the follower's own append rate,
     * whichever is lower.
     */
    record Result(long bytes, long[] catchUpRounds, long[] catchUpCpuRounds, long[] catchUpAllocatedRounds,
                  long[] rawReadRounds, long[] appendRounds) {
        long catchUpNs() {
            return Arrays.stream(catchUpRounds).min().orElseThrow();
        }

        double catchUpMbPerS() {
            return bytes / MB / (catchUpNs() / 1e9);
        }

        double rawReadMbPerS() {
            return bytes / MB / (Arrays.stream(rawReadRounds).min().orElseThrow() / 1e9);
        }

        /**
         * CPU the whole process spent per MB during the cheapest catch-up round (every thread: leader,
         * follower, gRPC, GC, JIT): the cost of moving the bytes, which a busy neighbour on the machine
         * changes much less than the elapsed time.
         */
        double catchUpCpuMsPerMb() {
            return Arrays.stream(catchUpCpuRounds).min().orElseThrow() / 1e6 / (bytes / MB);
        }

        /** Heap bytes the process allocated per byte caught up (fewest of the rounds): copies show here exactly. */
        double catchUpAllocatedPerByte() {
            return (double) Arrays.stream(catchUpAllocatedRounds).min().orElseThrow() / bytes;
        }

        double appendMbPerS() {
            return bytes / MB / (Arrays.stream(appendRounds).min().orElseThrow() / 1e9);
        }

        boolean targetIsRawRead() {
            return 0.5 * rawReadMbPerS() <= 0.8 * appendMbPerS();
        }

        double targetMbPerS() {
            return Math.min(0.5 * rawReadMbPerS(), 0.8 * appendMbPerS());
        }

        String targetRule() {
            return targetIsRawRead() ? "0.5x raw read" : "0.8x follower append";
        }
    }

    /**
     * One scenario: the leader is preloaded once; each round then times a catch-up by a fresh follower, a
     * raw read of the leader's logs and a follower append of the same batches into fresh logs, the order
     * alternating from round to round so that a busy neighbour or write-back falls on each side alike.
     */
    private Result scenario(String name, int count, long totalBytes) throws IOException, InterruptedException {
        Path base = dir.resolve(name);
        List<TopicPartition> busy = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            busy.add(new TopicPartition("bench-" + name, p));
        }
        List<TopicPartition> all = new ArrayList<>(busy);
        for (int p = count; p < count + idlePartitions; p++) {
            all.add(new TopicPartition("bench-" + name, p));
        }
        try (ThreadPoolScheduler scheduler = new ThreadPoolScheduler("bench-" + name, 2);
             LeaderBroker leader = new LeaderBroker(base.resolve("leader"), scheduler)) {
            for (TopicPartition tp : all) {
                leader.broker.replicaManager.applyPartitionState(state(tp), PartitionSettings.defaults());
            }
            long leaderBytes = preload(leader.broker.replicaManager, busy, totalBytes / count);
            Map<TopicPartition, Long> leaderEnds = new LinkedHashMap<>();
            List<Log> leaderLogs = new ArrayList<>();
            for (TopicPartition tp : busy) {
                Log log = leader.broker.replicaManager.log(tp).orElseThrow();
                leaderEnds.put(tp, log.logEndOffset());
                leaderLogs.add(log);
            }
            long[] catchUp = new long[warmupRounds + rounds];
            long[] catchUpCpu = new long[warmupRounds + rounds];
            long[] catchUpAllocated = new long[warmupRounds + rounds];
            long[] rawRead = new long[warmupRounds + rounds];
            long[] append = new long[warmupRounds + rounds];
            for (int round = 0; round < warmupRounds + rounds; round++) {
                boolean baselinesFirst = round % 2 == 1;
                if (baselinesFirst) {
                    rawRead[round] = timeRawRead(leaderLogs, leaderBytes);
                    append[round] = timeFollowerAppend(base.resolve("append-" + round), scheduler, busy, leaderLogs,
                            leaderBytes);
                }
                long[] timing = timeCatchUp(base.resolve("follower-" + round), scheduler, leader, all, leaderEnds,
                        leaderBytes);
                catchUp[round] = timing[0];
                catchUpCpu[round] = timing[1];
                catchUpAllocated[round] = timing[2];
                if (!baselinesFirst) {
                    rawRead[round] = timeRawRead(leaderLogs, leaderBytes);
                    append[round] = timeFollowerAppend(base.resolve("append-" + round), scheduler, busy, leaderLogs,
                            leaderBytes);
                }
            }
            int timed = warmupRounds;
            return new Result(leaderBytes, Arrays.copyOfRange(catchUp, timed, catchUp.length),
                    Arrays.copyOfRange(catchUpCpu, timed, catchUpCpu.length),
                    Arrays.copyOfRange(catchUpAllocated, timed, catchUpAllocated.length),
                    Arrays.copyOfRange(rawRead, timed, rawRead.length), Arrays.copyOfRange(append, timed, append.length));
        } finally {
            FileUtils.deleteRecursively(base);
        }
    }

    /**
     * A fresh follower broker is assigned every partition; timed until each busy one reaches the leader's
     * end. Returns the elapsed and the process CPU nanoseconds, and the heap bytes allocated meanwhile.
     */
    private long[] timeCatchUp(Path followerDir, ThreadPoolScheduler scheduler, LeaderBroker leader,
                             List<TopicPartition> tps, Map<TopicPartition, Long> leaderEnds, long leaderBytes)
            throws IOException {
        try (FollowerBroker follower = new FollowerBroker(followerDir, scheduler, leader)) {
            System.gc();
            long allocatedStart = allocatedBytes();
            long cpuStart = processCpuNanos();
            long start = System.nanoTime();
            for (TopicPartition tp : tps) {
                follower.broker.replicaManager.applyPartitionState(state(tp), PartitionSettings.defaults());
            }
            awaitCaughtUp(follower.broker.replicaManager, leaderEnds, start);
            long catchUpNs = System.nanoTime() - start;
            long cpuNs = processCpuNanos() - cpuStart;
            long allocated = allocatedBytes() - allocatedStart;
            long followerBytes = 0;
            for (TopicPartition tp : leaderEnds.keySet()) {
                followerBytes += follower.broker.replicaManager.log(tp).orElseThrow().size();
            }
            if (followerBytes != leaderBytes) {
                throw new IllegalStateException("the follower holds " + followerBytes + " bytes, the leader "
                        + leaderBytes);
            }
            return new long[] {catchUpNs, cpuNs, allocated};
        } finally {
            FileUtils.deleteRecursively(followerDir);
        }
    }

    /** Heap bytes allocated so far by the live threads (the catch-up's threads all live until it is measured). */
    private static long allocatedBytes() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long total = 0;
        for (long allocated : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            total += Math.max(0, allocated);
        }
        return total;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private long timeRawRead(List<Log> leaderLogs, long leaderBytes) throws IOException {
        System.gc();
        long start = System.nanoTime();
        long read = readWhole(leaderLogs);
        long elapsed = System.nanoTime() - start;
        if (read != leaderBytes) {
            throw new IllegalStateException("read " + read + " bytes of " + leaderBytes);
        }
        return elapsed;
    }

    /**
     * The follower's own append rate: the batches a follower fetches (each partition read in
     * replica.fetch.max.bytes pieces, as the leader answers it), appended with {@link Log#appendAsFollower}
     * into fresh logs, partitions taking turns as in a fetch response, with nothing else running. The
     * pieces are read ahead in groups of at most {@link #APPEND_GROUP_BYTES} (untimed), so memory stays
     * bounded whatever --mb is; only the appends are timed.
     */
    private long timeFollowerAppend(Path appendDir, ThreadPoolScheduler scheduler, List<TopicPartition> tps,
                                    List<Log> leaderLogs, long leaderBytes) throws IOException {
        LogManager logManager = new LogManager(StoreConfig.fromMap(Map.of("log.dirs", appendDir.toString())), "bench",
                3, Time.SYSTEM, scheduler, new MetricRegistry(), new Random(3));
        try {
            logManager.startup();
            List<Log> targets = new ArrayList<>();
            for (TopicPartition tp : tps) {
                Log log = logManager.getOrCreateLog(tp, Map.of());
                log.stopFollowingLogEndWithHighWatermark();
                targets.add(log);
            }
            long[] next = new long[leaderLogs.size()];
            for (int i = 0; i < leaderLogs.size(); i++) {
                next[i] = leaderLogs.get(i).logStartOffset();
            }
            long elapsed = 0;
            long appended = 0;
            boolean more = true;
            while (more) {
                List<Integer> owners = new ArrayList<>();
                List<MemoryRecords> pieces = new ArrayList<>();
                long grouped = 0;
                more = false;
                while (grouped < APPEND_GROUP_BYTES) {
                    boolean any = false;
                    for (int i = 0; i < leaderLogs.size() && grouped < APPEND_GROUP_BYTES; i++) {
                        Log log = leaderLogs.get(i);
                        long end = log.logEndOffset();
                        if (next[i] >= end) {
                            continue;
                        }
                        try (FetchDataInfo info = log.read(next[i], fetchMaxBytes, end, true)) {
                            MemoryRecords piece = info.records().toMemoryRecords();
                            List<RecordBatch> batches = piece.batches();
                            next[i] = batches.get(batches.size() - 1).nextOffset();
                            owners.add(i);
                            pieces.add(piece);
                            grouped += piece.sizeInBytes();
                            any = true;
                        }
                    }
                    if (!any) {
                        break;
                    }
                }
                for (int i = 0; i < leaderLogs.size(); i++) {
                    more |= next[i] < leaderLogs.get(i).logEndOffset();
                }
                System.gc();
                long start = System.nanoTime();
                for (int k = 0; k < pieces.size(); k++) {
                    targets.get(owners.get(k)).appendAsFollower(pieces.get(k));
                }
                elapsed += System.nanoTime() - start;
                appended += grouped;
            }
            if (appended != leaderBytes) {
                throw new IllegalStateException("appended " + appended + " bytes of " + leaderBytes);
            }
            return elapsed;
        } finally {
            logManager.close();
            FileUtils.deleteRecursively(appendDir);
        }
    }

    /** Leader 1, epoch 0, the follower 2 assigned but not in the ISR: a new replica catching up. */
    private static LeaderAndIsr state(TopicPartition tp) {
        return new LeaderAndIsr(tp, "id-" + tp.topic(), 1, 0, 0, List.of(1, 2), List.of(1));
    }

    /** Appends batches round-robin over the partitions until each holds {@code bytesEach}; returns the bytes. */
    private long preload(ReplicaManager leader, List<TopicPartition> tps, long bytesEach) {
        Random random = new Random(SEED);
        byte[] pool = new byte[Math.max(4 << 20, recordSize)];
        random.nextBytes(pool);
        long total = 0;
        long[] written = new long[tps.size()];
        boolean more = true;
        while (more) {
            more = false;
            for (int i = 0; i < tps.size(); i++) {
                if (written[i] >= bytesEach) {
                    continue;
                }
                MemoryRecords batch = batch(random, pool);
                ProduceResult r = leader.appendRecords(Map.of(tps.get(i), batch), 1, 30_000).join().get(tps.get(i));
                if (r.error() != Errors.NONE) {
                    throw new IllegalStateException("preload of " + tps.get(i) + " failed: " + r.error() + " " + r.message());
                }
                written[i] += batch.sizeInBytes();
                total += batch.sizeInBytes();
                more |= written[i] < bytesEach;
            }
        }
        return total;
    }

    /**
     * A batch of values cut at random places from a pool of random bytes: incompressible, and much
     * cheaper to make than fresh random bytes for every record (the preload is not timed, but it is most
     * of the run).
     */
    private MemoryRecords batch(Random random, byte[] pool) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0L);
        long now = System.currentTimeMillis();
        for (int r = 0; r < batchSize; r++) {
            int from = random.nextInt(pool.length - recordSize + 1);
            builder.append(now, null, Arrays.copyOfRange(pool, from, from + recordSize));
        }
        return MemoryRecords.of(builder.build());
    }

    private static void awaitCaughtUp(ReplicaManager follower, Map<TopicPartition, Long> leaderEnds, long start) {
        for (Map.Entry<TopicPartition, Long> e : leaderEnds.entrySet()) {
            while (true) {
                Optional<Log> log = follower.log(e.getKey());
                if (log.isPresent() && log.get().logEndOffset() >= e.getValue()) {
                    break;
                }
                if (System.nanoTime() - start > CATCH_UP_TIMEOUT_NS) {
                    throw new IllegalStateException(e.getKey() + " did not catch up within 10 minutes: "
                            + follower.followerStatus(e.getKey()));
                }
                // Polling costs a little CPU; a follower that catches up in milliseconds is measured to ~0.1 ms.
                LockSupport.parkNanos(100_000L);
            }
        }
    }

    /** Reads each log front to back with replica.fetch.max.bytes reads copied into one heap buffer. */
    private long readWhole(List<Log> logs) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(fetchMaxBytes + recordSize * batchSize + 4096);
        long bytes = 0;
        for (Log log : logs) {
            long offset = log.logStartOffset();
            long end = log.logEndOffset();
            while (offset < end) {
                try (FetchDataInfo info = log.read(offset, fetchMaxBytes, end, true)) {
                    MemoryRecords records = info.records().toMemoryRecords();
                    buffer.clear();
                    buffer.put(records.buffer());
                    bytes += records.sizeInBytes();
                    List<RecordBatch> batches = records.batches();
                    offset = batches.get(batches.size() - 1).nextOffset();
                }
            }
        }
        return bytes;
    }

    // ---------------------------------------------------------------- the brokers

    /** One broker: its store, its replica manager. */
    private static final class Broker implements AutoCloseable {
        final LogManager logManager;
        final ReplicaManager replicaManager;

        Broker(int id, Path dir, ReplicationConfig config, ThreadPoolScheduler scheduler,
               io.tideline.replication.fetcher.LeaderEndpoints endpoints) throws IOException {
            Map<String, Object> props = Map.of("log.dirs", dir.toString());
            this.logManager = new LogManager(StoreConfig.fromMap(props), "bench", id, Time.SYSTEM, scheduler,
                    new MetricRegistry(), new Random(id));
            logManager.startup();
            // The follower joins the ISR once caught up; the leader's proposal is simply committed.
            this.replicaManager = new ReplicaManager(id, config, logManager, Time.SYSTEM, scheduler,
                    (tp, topicId, epoch, proposal) -> CompletableFuture.completedFuture(
                            IsrChangeResult.committed(proposal.newIsr(), proposal.partitionEpoch() + 1)),
                    FailedReplicaReporter.NONE, endpoints, new MetricRegistry());
            replicaManager.startup();
        }

        @Override
        public void close() throws IOException {
            replicaManager.close();
            logManager.close();
        }
    }

    private ReplicationConfig replicationConfig() {
        return ReplicationConfig.fromMap(Map.of(
                ReplicationConfig.REPLICA_FETCH_MAX_BYTES_CONFIG, fetchMaxBytes,
                ReplicationConfig.NUM_REPLICA_FETCHERS_CONFIG, fetchers));
    }

    /** Broker 1, serving replica fetches over the chosen transport for the whole scenario. */
    private final class LeaderBroker implements AutoCloseable {
        final Broker broker;
        final Server server;
        final String inProcessName = "bench-replication-" + UUID.randomUUID();
        /** A response holds up to replica.fetch.response.max.bytes plus one whole batch past it. */
        final int maxMessage;

        LeaderBroker(Path dir, ThreadPoolScheduler scheduler) throws IOException {
            ReplicationConfig config = replicationConfig();
            this.broker = new Broker(1, dir, config, scheduler, id -> Optional.empty());
            this.maxMessage = config.fetchResponseMaxBytes() + 2 * fetchMaxBytes + recordSize * batchSize + 65_536;
            ReplicaFetchGrpcService service = new ReplicaFetchGrpcService(broker.replicaManager);
            this.server = transport == Transport.NETTY
                    ? NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service).build().start()
                    : InProcessServerBuilder.forName(inProcessName).addService(service).build().start();
        }

        ManagedChannel newChannel() {
            return transport == Transport.NETTY
                    ? NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
                            .maxInboundMessageSize(maxMessage).build()
                    : InProcessChannelBuilder.forName(inProcessName).maxInboundMessageSize(maxMessage).build();
        }

        @Override
        public void close() throws IOException {
            server.shutdownNow();
            try {
                server.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            broker.close();
        }
    }

    /** Broker 2, new for each round, fetching from the leader over a channel of its own. */
    private final class FollowerBroker implements AutoCloseable {
        final ManagedChannel channel;
        final Broker broker;

        FollowerBroker(Path dir, ThreadPoolScheduler scheduler, LeaderBroker leader) throws IOException {
            this.channel = leader.newChannel();
            LeaderEndpoint endpoint = new GrpcLeaderEndpoint(channel, 1L);
            Broker created;
            try {
                created = new Broker(2, dir, replicationConfig(), scheduler,
                        id -> id == 1 ? Optional.of(endpoint) : Optional.empty());
            } catch (IOException | RuntimeException e) {
                channel.shutdownNow();
                throw e;
            }
            this.broker = created;
        }

        @Override
        public void close() throws IOException {
            try {
                broker.close();
            } finally {
                channel.shutdownNow();
            }
        }
    }
}
