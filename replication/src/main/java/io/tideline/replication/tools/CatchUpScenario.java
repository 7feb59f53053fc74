package io.tideline.replication.tools;

import static io.tideline.store.tools.BenchmarkSupport.inTurn;
import static io.tideline.store.tools.BenchmarkSupport.settle;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.io.FileUtils;
import io.tideline.common.time.ThreadPoolScheduler;
import io.tideline.common.time.Time;
import io.tideline.replication.server.LeaderAndIsr;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ProduceResult;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.replication.tools.BenchBrokers.FollowerBroker;
import io.tideline.replication.tools.BenchBrokers.LeaderBroker;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.tools.BenchmarkSupport.Turn;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One scenario of bench-replication: the leader is preloaded once; each round then times a catch-up by a
 * fresh follower, a raw read of the leader's logs and a follower append of the same batches into fresh logs.
 */
final class CatchUpScenario {
    private static final long SEED = 42L;
    private static final long CATCH_UP_TIMEOUT_NS = TimeUnit.MINUTES.toNanos(10);
    /** Bytes read ahead (untimed) before each timed group of follower appends. */
    private static final long APPEND_GROUP_BYTES = 64_000_000L;

    private final ReplicationBenchmark options;
    private final Path dir;
    private final int recordSize;
    private final int batchSize;
    private final int fetchMaxBytes;
    private final int idlePartitions;
    private final int rounds;
    private final int warmupRounds;

    CatchUpScenario(ReplicationBenchmark options) {
        this.options = options;
        this.dir = options.dir;
        this.recordSize = options.recordSize;
        this.batchSize = options.batchSize;
        this.fetchMaxBytes = options.fetchMaxBytes;
        this.idlePartitions = options.idlePartitions;
        this.rounds = options.rounds;
        this.warmupRounds = options.warmupRounds;
    }

    /**
     * Runs the scenario {@code name} over {@code count} busy partitions sharing {@code totalBytes}: the
     * warm-up rounds, then the timed ones, the order of catch-up and baselines alternating from round to round.
     */
    CatchUpResult run(String name, int count, long totalBytes) throws IOException, InterruptedException {
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
             LeaderBroker leader = new LeaderBroker(base.resolve("leader"), scheduler, options)) {
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
                int r = round;
                // The catch-up goes first in even rounds, the two baselines in odd ones.
                Turn<long[], long[]> turn = inTurn(round % 2 == 1,
                        () -> timeCatchUp(base.resolve("follower-" + r), scheduler, leader, all, leaderEnds, leaderBytes),
                        () -> new long[] {timeRawRead(leaderLogs, leaderBytes),
                                timeFollowerAppend(base.resolve("append-" + r), scheduler, busy, leaderLogs, leaderBytes)});
                catchUp[round] = turn.measurement()[0];
                catchUpCpu[round] = turn.measurement()[1];
                catchUpAllocated[round] = turn.measurement()[2];
                rawRead[round] = turn.baseline()[0];
                append[round] = turn.baseline()[1];
            }
            int timed = warmupRounds;
            return new CatchUpResult(leaderBytes, Arrays.copyOfRange(catchUp, timed, catchUp.length),
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
        try (FollowerBroker follower = new FollowerBroker(followerDir, scheduler, leader, options.replicationConfig())) {
            settle();
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

    /** The leader's logs read whole; the caller has settled the heap. */
    private long timeRawRead(List<Log> leaderLogs, long leaderBytes) throws IOException {
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
                settle();
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
}
