package io.tideline.cluster.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.TidelineAdmin;
import io.tideline.cluster.harness.ClusterHarness;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryChecker;
import io.tideline.cluster.history.HistoryEvent;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 6 of docs/testing.md, "Scenarios",
 * on the leader of a three-node cluster: reads that hold a segment while retention
 * renames it to {@code .deleted} and, {@code file.delete.delay.ms} later, unlinks it, finish with exactly the
 * records produced at those offsets (docs/behaviours.md B17-B19).
 *
 * <p>The readers are the broker's own read path, {@link Log#read} on the leader's log, held open as a fetch in
 * flight holds it: a consumer fetch copies its slice into the answer within microseconds, which no test can
 * time a retention pass into, so the test plays the reader that is slow at that moment. One sends its slice
 * zero-copy ({@code writeTo}, the path that streams a segment to a socket) to a slow receiver that takes 512
 * bytes and then blocks, so the transfer is part-way when the files are renamed and unlinked and goes on
 * reading the unlinked file afterwards; the other holds its slice and copies it only after the unlink. The
 * retention pass, the rename, the delay and the unlink are the broker's own, on its scheduler; the test sees
 * each on disk (the {@code .deleted} names, then no name at all) and in the store's bookkeeping (segments
 * unlinked while held, and the kernel's list of deleted files still open).
 */
@ExtendWith(DumpClusterStateOnFailure.class)
class ReadOutlivesSegmentScenarioTest {
    private static final String TOPIC = "outlive";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int LEADER = 1;
    private static final List<Integer> REPLICAS = List.of(LEADER, 2, 3);
    private static final int FIRST_CHUNK = 512;

    @TempDir
    Path dir;
    ClusterHarness cluster;
    private TidelineAdmin admin;
    private final History history = new History();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() {
        release.countDown();
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void readsHoldingASegmentFinishWithItsRecordsAfterRetentionRenamedAndUnlinkedIt() throws Exception {
        cluster = ClusterHarness.start(dir, 3, Map.of("log.retention.check.interval.ms", 200));
        admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers()));
        var created = admin.createTopic(TOPIC, Map.of(0, REPLICAS), Map.of(
                "segment.bytes", "4096",
                "retention.ms", "-1",
                // Long enough to see the .deleted names on disk between the rename and the unlink.
                "file.delete.delay.ms", "2000",
                "min.insync.replicas", "2"));
        assertEquals(Errors.NONE, created.error(), created.toString());
        Awaitility.await("all three in sync").atMost(Duration.ofSeconds(20))
                .until(() -> probe().image(LEADER).getIsrCount() == 3 && probe().image(LEADER).getLeader() == LEADER);
        try (ProduceLoop producer = new ProduceLoop(cluster.bootstrapServers(), TP, history, "v")) {
            Awaitility.await("three closed segments on the leader").atMost(Duration.ofSeconds(30))
                    .until(() -> leaderLog().segments().size() >= 4);
        }
        Log log = leaderLog();
        List<LogSegment> segments = log.segments();
        long first = segments.get(0).baseOffset();
        long second = segments.get(1).baseOffset();
        long third = segments.get(2).baseOffset();
        long hw = log.highWatermark();
        Path partitionDir = log.dir();

        // Two fetches in flight: the whole first segment, and the second from a few records in.
        FetchDataInfo zeroCopy = log.read(first, 1 << 20, hw, true);
        FetchDataInfo copy = log.read(second + 3, 1 << 20, hw, true);
        SlowReceiver receiver = new SlowReceiver();
        CompletableFuture<Long> sent = CompletableFuture.supplyAsync(() -> {
            try {
                return zeroCopy.records().writeTo(receiver);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, r -> new Thread(r, "zero-copy-send").start());
        try {
            assertTrue(receiver.firstChunk.await(20, TimeUnit.SECONDS), "the zero-copy send began");
            assertFalse(sent.isDone(), "the send waits for the slow receiver");

            // Retention now deletes every closed segment: renamed at once, unlinked 2 s later.
            admin.alterTopicConfigs(TOPIC, Map.of("retention.ms", "100"), List.of());
            Awaitility.await("retention renamed the read segments to .deleted").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(20)).until(() ->
                            Files.exists(deleted(partitionDir, first)) && Files.exists(deleted(partitionDir, second)));
            assertFalse(Files.exists(LogFileNames.logFile(partitionDir, first)));
            assertTrue(log.logStartOffset() >= third, "the log start offset moved past the read segments: "
                    + log.logStartOffset());
            assertTrue(log.segments().stream().noneMatch(s -> s.baseOffset() <= second), log.segments().toString());
            Awaitility.await("file.delete.delay.ms passed and the files are unlinked").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50)).until(() -> !Files.exists(deleted(partitionDir, first))
                            && !Files.exists(deleted(partitionDir, second))
                            && !Files.exists(LogFileNames.logFile(partitionDir, second)));
            assertEquals(List.of(first, second), heldOpen(), "unlinked while the reads hold them (B19)");
            assertEquals(List.of(first, second), deletedButOpen(), "the kernel still has them open");
            assertFalse(sent.isDone(), "the send is still part-way");
        } finally {
            release.countDown();
        }
        long bytes = sent.get(20, TimeUnit.SECONDS);
        assertEquals(zeroCopy.records().sizeInBytes(), bytes, "the whole slice went out");
        assertEquals(bytes, receiver.received.size());
        List<Record> sentRecords = MemoryRecords.readableRecords(ByteBuffer.wrap(receiver.received.toByteArray()))
                .records();
        List<Record> copiedRecords = copy.records().toMemoryRecords().records();
        zeroCopy.close();
        copy.close();

        Map<Long, String> acknowledged = acknowledgedValues();
        assertRecordsAre(sentRecords, first, second, acknowledged, "zero-copy");
        assertRecordsAre(copiedRecords, second + 3, third, acknowledged, "copy");
        Awaitility.await("the disk space is free once the reads closed").atMost(Duration.ofSeconds(10))
                .until(() -> heldOpen().isEmpty() && deletedButOpen().isEmpty());

        // The end of every scenario: retention off so the log start offset holds still, a tail, the checker.
        admin.alterTopicConfigs(TOPIC, Map.of("retention.ms", "-1"), List.of());
        Awaitility.await("retention.ms=-1 applied on the leader").atMost(Duration.ofSeconds(10))
                .until(() -> leaderLog().config().retentionMs() == -1);
        try (ProduceLoop producer = new ProduceLoop(cluster.bootstrapServers(), TP, history, "after-")) {
            Awaitility.await("records after the deletion").atMost(Duration.ofSeconds(20))
                    .until(() -> producer.acknowledged() >= 30);
        }
        var result = probe().finalReadAndCheck(REPLICAS, HistoryChecker.lenient());
        assertTrue(result.deletedByRetention() >= third, result.report());
    }

    /**
     * The records read are those at [from, to), each with the value acknowledged at its offset; recorded in the
     * history as one consumer's reads (so the checker's per-consumer order rules apply to them too).
     */
    private void assertRecordsAre(List<Record> records, long from, long to, Map<Long, String> acknowledged,
                                  String reader) {
        List<Long> offsets = new ArrayList<>();
        for (Record r : records) {
            String value = new String(r.value(), StandardCharsets.UTF_8);
            history.consumed(reader, TP, r.offset(), value);
            offsets.add(r.offset());
            assertEquals(acknowledged.get(r.offset()), value, reader + " read at offset " + r.offset());
        }
        List<Long> expected = new ArrayList<>();
        for (long o = from; o < to; o++) {
            expected.add(o);
        }
        assertEquals(expected, offsets, reader + " read offsets");
    }

    private Map<Long, String> acknowledgedValues() {
        Map<Long, String> values = new TreeMap<>();
        for (HistoryEvent e : history.events()) {
            if (e instanceof HistoryEvent.ProduceCompleted c && c.outcome() == HistoryEvent.Outcome.OK) {
                values.put(c.offset(), c.value());
            }
        }
        return values;
    }

    private static Path deleted(Path partitionDir, long base) {
        Path log = LogFileNames.logFile(partitionDir, base);
        return log.resolveSibling(log.getFileName() + LogFileNames.DELETED_SUFFIX);
    }

    /** Base offsets of the leader's segments of TP unlinked while a reader holds them. */
    private List<Long> heldOpen() {
        return logManager().deleter().heldOpen(TP).stream().map(SegmentDeleter.HeldOpen::baseOffset).toList();
    }

    /** Base offsets of the leader's unlinked-but-open {@code .log} files of TP, from /proc/self. */
    private List<Long> deletedButOpen() {
        return logManager().deletedButOpenFiles().stream()
                .map(f -> f.path().getFileName().toString())
                .filter(n -> n.endsWith(LogFileNames.LOG_SUFFIX + LogFileNames.DELETED_SUFFIX))
                .map(n -> LogFileNames.offsetFromFileName(n))
                .sorted().toList();
    }

    private LogManager logManager() {
        return cluster.node(LEADER).logManager();
    }

    private Log leaderLog() {
        return probe().log(LEADER);
    }

    private PartitionProbe probe() {
        return new PartitionProbe(cluster, TP, history);
    }

    /**
     * A receiver that takes at most {@value #FIRST_CHUNK} bytes per write, and after the first write blocks
     * until the test releases it: a consumer that stopped reading its socket part-way through a fetch.
     */
    private final class SlowReceiver implements WritableByteChannel {
        final ByteArrayOutputStream received = new ByteArrayOutputStream();
        final CountDownLatch firstChunk = new CountDownLatch(1);

        @Override
        public synchronized int write(ByteBuffer src) {
            if (firstChunk.getCount() == 0) {
                try {
                    if (!release.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            int n = Math.min(FIRST_CHUNK, src.remaining());
            byte[] chunk = new byte[n];
            src.get(chunk);
            received.write(chunk, 0, n);
            firstChunk.countDown();
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
