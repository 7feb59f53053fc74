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
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * {@code tideline bench-replication}: how fast a follower catches up with a leader, next to how fast the
 * leader's own log can be read, in one run.
 *
 * <p>Two brokers in this JVM, each a {@link LogManager} over its own directory and a {@link ReplicaManager};
 * the follower fetches over gRPC, by default Netty on 127.0.0.1 (an ephemeral port: serialization, the
 * loopback socket, deserialization, as between two brokers), or in-process with
 * {@code --transport in-process} (no serialization: the replication code alone). The leader is preloaded
 * with N MB (random, incompressible values; not timed); the partitions are assigned to the follower as a new
 * replica outside the ISR (a reassignment), and the clock runs from that assignment until every
 * follower log end offset equals the leader's. The same leader logs are then read whole with
 * {@link Log#read} (replica.fetch.max.bytes per read, copied into a heap buffer): the ceiling a follower
 * could reach if the network and its own appends cost nothing.
 *
 * <p>Scenarios: one partition, and {@code --partitions} partitions sharing the same total bytes. An
 * untimed warm-up catch-up runs first for the JIT.
 *
 * Output: a table, then one {@code RESULT bench-replication key=value ...} line for scripts. Bad
 * arguments or an unusable directory: one line on stderr, exit code 2.
 */
@Command(name = "bench-replication", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Measures follower catch-up throughput over gRPC for one and for many partitions, next to "
                + "the raw read rate of the same leader logs.")
public final class ReplicationBenchmark {
    static final String SUMMARY_PREFIX = "RESULT bench-replication";
    private static final double MB = 1_000_000.0;
    private static final long SEED = 42L;
    private static final long CATCH_UP_TIMEOUT_NS = TimeUnit.MINUTES.toNanos(10);

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

    @Option(names = "--keep", description = "Keep the directory for inspection.")
    boolean keep;

    @Option(names = "--warmup-mb", hidden = true, defaultValue = "16",
            description = "MB of the untimed warm-up catch-up (0 for none).")
    int warmupMegabytes;

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
        if (warmupMegabytes < 0) {
            return "--warmup-mb must not be negative, got " + warmupMegabytes;
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
                        + "replica.fetch.max.bytes %,d, num.replica.fetchers %d, dir %s%n", megabytes, recordSize,
                batchSize, fetchMaxBytes, fetchers, dir.toAbsolutePath());
        out.printf(Locale.ROOT, "transport: %s; MB = 10^6 bytes; Java %s, %d cores, max heap %d MiB%n",
                transport.description, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20);
        out.flush();
        if (warmupMegabytes > 0) {
            scenario("warmup", Math.min(partitions, 4), (long) warmupMegabytes * 1_000_000L);
        }

        Map<String, String> summary = new LinkedHashMap<>();
        summary.put("transport", transport.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        summary.put("mb", Integer.toString(megabytes));
        summary.put("record_size", Integer.toString(recordSize));
        summary.put("batch_size", Integer.toString(batchSize));
        summary.put("fetch_max_bytes", Integer.toString(fetchMaxBytes));
        out.println();
        out.printf(Locale.ROOT, "%-12s %10s %12s %12s %14s %10s%n", "partitions", "MB", "catch-up", "MB/s",
                "raw read MB/s", "ratio");
        out.flush();
        List<Integer> counts = partitions == 1 ? List.of(1) : List.of(1, partitions);
        for (int count : counts) {
            Result r = scenario("p" + count, count, (long) megabytes * 1_000_000L);
            double catchUp = r.bytes() / MB / (r.catchUpNs() / 1e9);
            double raw = r.bytes() / MB / (r.rawReadNs() / 1e9);
            out.printf(Locale.ROOT, "%-12d %10.1f %12s %12.1f %14.1f %9.2fx%n", count, r.bytes() / MB,
                    duration(r.catchUpNs()), catchUp, raw, catchUp / raw);
            out.flush();
            String key = count == 1 ? "single" : "multi";
            summary.put(key + "_partitions", Integer.toString(count));
            summary.put(key + "_bytes", Long.toString(r.bytes()));
            summary.put(key + "_catch_up_mb_per_s", fixed(catchUp, 1));
            summary.put(key + "_raw_read_mb_per_s", fixed(raw, 1));
        }
        out.println();
        StringBuilder line = new StringBuilder(SUMMARY_PREFIX);
        summary.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        out.println(line);
        out.flush();
    }

    /** Timings of one scenario over {@code bytes} leader bytes. */
    private record Result(long bytes, long catchUpNs, long rawReadNs) {
    }

    private Result scenario(String name, int count, long totalBytes) throws IOException, InterruptedException {
        Path base = dir.resolve(name);
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            tps.add(new TopicPartition("bench-" + name, p));
        }
        try (ThreadPoolScheduler scheduler = new ThreadPoolScheduler("bench-" + name, 2);
             Pair pair = new Pair(base, scheduler)) {
            for (TopicPartition tp : tps) {
                pair.leader.replicaManager.applyPartitionState(state(tp), PartitionSettings.defaults());
            }
            long leaderBytes = preload(pair.leader.replicaManager, tps, totalBytes / count);
            Map<TopicPartition, Long> leaderEnds = new LinkedHashMap<>();
            for (TopicPartition tp : tps) {
                leaderEnds.put(tp, pair.leader.replicaManager.log(tp).orElseThrow().logEndOffset());
            }

            System.gc();
            long start = System.nanoTime();
            for (TopicPartition tp : tps) {
                pair.follower.replicaManager.applyPartitionState(state(tp), PartitionSettings.defaults());
            }
            awaitCaughtUp(pair.follower.replicaManager, leaderEnds, start);
            long catchUpNs = System.nanoTime() - start;

            long followerBytes = 0;
            for (TopicPartition tp : tps) {
                followerBytes += pair.follower.replicaManager.log(tp).orElseThrow().size();
            }
            if (followerBytes != leaderBytes) {
                throw new IllegalStateException("the follower holds " + followerBytes + " bytes, the leader "
                        + leaderBytes);
            }

            List<Log> leaderLogs = new ArrayList<>();
            for (TopicPartition tp : tps) {
                leaderLogs.add(pair.leader.replicaManager.log(tp).orElseThrow());
            }
            System.gc();
            long rawStart = System.nanoTime();
            long read = readWhole(leaderLogs);
            long rawReadNs = System.nanoTime() - rawStart;
            if (read != leaderBytes) {
                throw new IllegalStateException("read " + read + " bytes of " + leaderBytes);
            }
            return new Result(leaderBytes, catchUpNs, rawReadNs);
        } finally {
            FileUtils.deleteRecursively(base);
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
            builder.append(now, null, java.util.Arrays.copyOfRange(pool, from, from + recordSize));
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

    // ---------------------------------------------------------------- the two brokers

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

    /** Leader (broker 1) serving replica fetches over the chosen transport, follower (broker 2) fetching. */
    private final class Pair implements AutoCloseable {
        final Broker leader;
        final Broker follower;
        final Server server;
        final ManagedChannel channel;

        Pair(Path base, ThreadPoolScheduler scheduler) throws IOException {
            ReplicationConfig config = ReplicationConfig.fromMap(Map.of(
                    ReplicationConfig.REPLICA_FETCH_MAX_BYTES_CONFIG, fetchMaxBytes,
                    ReplicationConfig.NUM_REPLICA_FETCHERS_CONFIG, fetchers));
            this.leader = new Broker(1, base.resolve("leader"), config, scheduler, id -> Optional.empty());
            ReplicaFetchGrpcService service = new ReplicaFetchGrpcService(leader.replicaManager);
            // A response holds up to replica.fetch.response.max.bytes plus one whole batch past it.
            int maxMessage = config.fetchResponseMaxBytes() + 2 * fetchMaxBytes + recordSize * batchSize + 65_536;
            if (transport == Transport.NETTY) {
                this.server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service)
                        .build().start();
                this.channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
                        .maxInboundMessageSize(maxMessage).build();
            } else {
                String name = "bench-replication-" + UUID.randomUUID();
                this.server = InProcessServerBuilder.forName(name).addService(service).build().start();
                this.channel = InProcessChannelBuilder.forName(name).maxInboundMessageSize(maxMessage).build();
            }
            LeaderEndpoint endpoint = new GrpcLeaderEndpoint(channel, 1L);
            this.follower = new Broker(2, base.resolve("follower"), config, scheduler,
                    id -> id == 1 ? Optional.of(endpoint) : Optional.empty());
        }

        @Override
        public void close() throws IOException {
            try {
                follower.close();
            } finally {
                channel.shutdownNow();
                server.shutdownNow();
                try {
                    server.awaitTermination(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                leader.close();
            }
        }
    }

    // ---------------------------------------------------------------- output



}
