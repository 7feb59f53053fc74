package io.tideline.node.kafka.data;

import static io.tideline.node.kafka.data.DataApisTest.fetch;
import static io.tideline.node.kafka.data.DataApisTest.only;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.WAIT;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.call;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.createTopic;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.kafkaBatch;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.leaderNode;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.node.kafka.SliceRecords;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.store.dir.DeletedOpenFile;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The segment file references of Fetch's slices: a slice handed to the listener holds its segment file (retention
 * unlinks it, the space stays taken) until the listener closes it; a slice Fetch opened and never handed over
 * (the first read of a long poll that then waits) holds nothing. Seen through the node's DeletedOpenFilesScanner
 * (unlinked files this process still holds open), so Linux only.
 */
@EnabledOnOs(OS.LINUX)
class FetchSliceReleaseTest {
    /** Small segments: each batch or two closes one, so DeleteRecords and retention have whole segments to take. */
    private static final Map<String, String> SMALL_SEGMENTS = Map.of("segment.bytes", "200", "file.delete.delay.ms", "0");
    private static final short V = FetchApi.MAX_VERSION;

    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new NodeTestCluster(dir, 1, Map.of()).startAll();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A topic whose log has several segments, segment 0 closed. */
    private static Log segmentedLog(TidelineNode leader, String topic) throws Exception {
        ProduceApi produce = new ProduceApi(leader::image, leader.replicaManager());
        for (int i = 0; i < 6; i++) {
            org.apache.kafka.common.message.ProduceRequestData data = new org.apache.kafka.common.message.ProduceRequestData()
                    .setAcks((short) -1).setTimeoutMs(10_000);
            org.apache.kafka.common.message.ProduceRequestData.TopicProduceData t =
                    new org.apache.kafka.common.message.ProduceRequestData.TopicProduceData().setName(topic);
            t.partitionData().add(new org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData().setIndex(0)
                    .setRecords(kafkaBatch(1_000 + i, "value-" + i + "-padding-padding-padding")));
            data.topicData().add(t);
            call(produce, request(ApiKeys.PRODUCE, (short) 12, data));
        }
        Log log = leader.logManager().getLog(new TopicPartition(topic, 0)).orElseThrow();
        assertTrue(log.numberOfSegments() >= 3, "segments: " + log.numberOfSegments());
        return log;
    }

    /** Moves the log start offset to the active segment and runs retention, which deletes every older segment. */
    private static void deleteAllButTheActiveSegment(TidelineNode leader, Log log) throws Exception {
        TopicPartition tp = log.topicPartition();
        long before = log.activeSegment().baseOffset();
        leader.replicaManager().deleteRecords(Map.of(tp, before), 10_000).get(30, TimeUnit.SECONDS);
        leader.logManager().cleanupLogs();
        Awaitility.await("segment 0 unlinked").atMost(WAIT).until(() -> !segmentZeroOnDisk(log));
    }

    private static boolean segmentZeroOnDisk(Log log) throws Exception {
        try (Stream<Path> files = Files.list(log.dir())) {
            return files.anyMatch(f -> f.getFileName().toString().startsWith("00000000000000000000."));
        }
    }

    private static List<DeletedOpenFile> held(TidelineNode node) {
        return node.logManager().deletedButOpenFiles();
    }

    @Test
    void aHandedOverSliceHoldsItsSegmentUntilTheListenerClosesIt() throws Exception {
        createTopic(cluster, "held", 1, 1, SMALL_SEGMENTS);
        TidelineNode leader = leaderNode(cluster, "held", 0);
        Log log = segmentedLog(leader, "held");
        FetchApi fetchApi = new FetchApi(leader::image, leader.replicaManager(), new FetchStats());
        FetchResponseData response = call(fetchApi, request(ApiKeys.FETCH, V, fetch(leader, V, "held", 0, 0L, 0, 0)));
        SliceRecords slice = assertInstanceOf(SliceRecords.class, only(response).records());
        try {
            deleteAllButTheActiveSegment(leader, log);
            List<DeletedOpenFile> whileHeld = held(leader);
            assertEquals(1, whileHeld.size(), "the slice keeps segment 0 open: " + whileHeld);
            // Still readable: the bytes the listener would send.
            MemoryRecords bytes = slice.slice().toMemoryRecords();
            assertEquals(0L, bytes.batches().get(0).baseOffset());
        } finally {
            slice.close();
        }
        assertEquals(List.of(), held(leader), "closing the slice lets the segment go");
    }

    @Test
    void aLongPollsFirstReadHoldsNothingWhileItWaits() throws Exception {
        createTopic(cluster, "parked", 1, 1, SMALL_SEGMENTS);
        TidelineNode leader = leaderNode(cluster, "parked", 0);
        Log log = segmentedLog(leader, "parked");
        FetchApi fetchApi = new FetchApi(leader::image, leader.replicaManager(), new FetchStats());
        // min_bytes above what the log holds: the first read opens a slice of segment 0, then the fetch waits.
        @SuppressWarnings("unchecked")
        CompletableFuture<FetchResponseData> parked = (CompletableFuture<FetchResponseData>) fetchApi.handle(
                request(ApiKeys.FETCH, V, fetch(leader, V, "parked", 0, 0L, 30_000, 10 * 1024 * 1024)));
        deleteAllButTheActiveSegment(leader, log);
        assertEquals(List.of(), held(leader), "the first read's slice was closed when the fetch parked");
        FetchResponseData answered = parked.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS);
        FetchResponseData.PartitionData p = only(answered);
        if (p.records() instanceof SliceRecords s) {
            s.close();
        }
        assertEquals(List.of(), held(leader));
    }
}
