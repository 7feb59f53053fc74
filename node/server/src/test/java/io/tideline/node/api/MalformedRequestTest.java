package io.tideline.node.api;

import static io.tideline.node.api.ApiTestSupport.batch;
import static io.tideline.node.api.ApiTestSupport.bytes;
import static io.tideline.node.api.ApiTestSupport.fingerprint;
import static io.tideline.node.api.ApiTestSupport.log;
import static io.tideline.node.api.ApiTestSupport.producePartition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.proto.admin.AdminServiceGrpc.AdminServiceBlockingStub;
import io.tideline.proto.admin.ConfigValue;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.proto.admin.DeleteRecordsPartition;
import io.tideline.proto.admin.DeleteRecordsPartitionResult;
import io.tideline.proto.admin.DeleteRecordsRequest;
import io.tideline.proto.admin.DeleteRecordsResponse;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.admin.TopicResult;
import io.tideline.proto.client.ClientServiceGrpc.ClientServiceBlockingStub;
import io.tideline.proto.client.FetchPartition;
import io.tideline.proto.client.FetchPartitionResponse;
import io.tideline.proto.client.FetchRequest;
import io.tideline.proto.client.FetchResponse;
import io.tideline.proto.client.ListOffsetsPartition;
import io.tideline.proto.client.ListOffsetsPartitionResponse;
import io.tideline.proto.client.ListOffsetsRequest;
import io.tideline.proto.client.ListOffsetsResponse;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.proto.client.ProduceResponse;
import io.tideline.store.log.Log;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed requests against one node (B162), one row each: each gets its typed error for every partition
 * it names, and no log moves (start, end, high watermark and segment bytes of every partition are the same
 * before and after; no topic appears).
 */
class MalformedRequestTest {
    private static final String TOPIC = "events";
    /** max.message.bytes=256, for MESSAGE_TOO_LARGE. */
    private static final String SMALL = "small";
    private static final int MAX_MESSAGE_BYTES = 256;
    private static final int MIB = 1024 * 1024;

    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;

    @BeforeAll
    static void startNodeWithData() throws Exception {
        cluster = new NodeTestCluster(dir, 1, Map.of()).startAll();
        ApiTestSupport.createTopics(cluster, 1, ApiTestSupport.newTopic(TOPIC, 2, 1, Map.of()),
                ApiTestSupport.newTopic(SMALL, 1, 1, Map.of("max.message.bytes", "" + MAX_MESSAGE_BYTES)));
        ProduceResponse r = cluster.client(1).produce(ProduceRequest.newBuilder().setAcks(1).setTimeoutMs(5000)
                .addPartitions(producePartition(TOPIC, 0, bytes(batch(1_000, "a", "b", "c"))))
                .addPartitions(producePartition(TOPIC, 1, bytes(batch(1_000, "d", "e"))))
                .addPartitions(producePartition(SMALL, 0, bytes(batch(1_000, "f")))).build());
        r.getPartitionsList().forEach(p -> assertEquals(Errors.NONE.code(), p.getErrorCode(), r.toString()));
        // Start events-0 at 1 so that its two bounds differ and "below the start" is a non-negative offset too.
        DeleteRecordsResponse d = cluster.admin(1).deleteRecords(DeleteRecordsRequest.newBuilder().setTimeoutMs(5000)
                .addPartitions(DeleteRecordsPartition.newBuilder().setTopic(TOPIC).setPartition(0).setOffset(1)).build());
        assertEquals(Errors.NONE.code(), d.getPartitions(0).getErrorCode(), d.toString());
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Sends one request; the answer's per-partition (or per-topic) errors are compared with the table. */
    interface Call {
        Message send(ClientServiceBlockingStub client, AdminServiceBlockingStub admin);
    }

    /** More to check on an answer than its error codes. */
    interface Also {
        void check(Message response, TidelineNode node);

        Also NOTHING = (response, node) -> { };
    }

    record Case(Call call, List<Errors> expected, Also also) {
        static Named<Case> of(String name, Call call, Errors... expected) {
            return Named.of(name, new Case(call, List.of(expected), Also.NOTHING));
        }

        static Named<Case> of(String name, Call call, Also also, Errors... expected) {
            return Named.of(name, new Case(call, List.of(expected), also));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedRequests")
    void malformedRequestGetsItsTypedErrorAndChangesNoLog(Case c) {
        TidelineNode node = cluster.node(1);
        Map<String, String> before = fingerprint(node);
        Message response = c.call().send(cluster.client(1), cluster.admin(1));
        assertEquals(c.expected(), errors(response), response.toString());
        c.also().check(response, node);
        assertEquals(before, fingerprint(node), "a refused request changed a log: " + response);
    }

    static Stream<Named<Case>> malformedRequests() {
        return Stream.of(
                // ------------------------------------------------ Produce: partitions and batches
                Case.of("produce to an unknown topic", (c, a) -> produce(c, 1, part("no-such-topic", 0, good())),
                        Errors.UNKNOWN_TOPIC_OR_PARTITION),
                Case.of("produce with an empty topic name", (c, a) -> produce(c, 1, part("", 0, good())),
                        Errors.INVALID_TOPIC_EXCEPTION),
                Case.of("produce to a negative partition", (c, a) -> produce(c, 1, part(TOPIC, -1, good())),
                        Errors.UNKNOWN_TOPIC_OR_PARTITION),
                Case.of("produce to a partition beyond the count", (c, a) -> produce(c, 1, part(TOPIC, 2, good())),
                        Errors.UNKNOWN_TOPIC_OR_PARTITION),
                Case.of("produce naming one partition twice",
                        (c, a) -> produce(c, 1, part(TOPIC, 0, good()), part(TOPIC, 0, good())),
                        Errors.INVALID_REQUEST, Errors.INVALID_REQUEST),
                Case.of("produce with no records", (c, a) -> produce(c, 1, part(TOPIC, 0, ByteString.EMPTY)),
                        Errors.INVALID_REQUEST),
                Case.of("produce a batch whose CRC does not match", (c, a) -> produce(c, 1, part(TOPIC, 0, flipped())),
                        Errors.CORRUPT_MESSAGE),
                Case.of("produce a truncated batch", (c, a) -> produce(c, 1, part(TOPIC, 0, good().substring(0,
                        good().size() - 5))), Errors.CORRUPT_MESSAGE),
                Case.of("produce fewer bytes than a batch header", (c, a) -> produce(c, 1, part(TOPIC, 0,
                        good().substring(0, 7))), Errors.CORRUPT_MESSAGE),
                Case.of("produce garbage bytes", (c, a) -> produce(c, 1, part(TOPIC, 0, ByteString.copyFrom(
                        "this is not a record batch, only some text".getBytes(StandardCharsets.UTF_8)))),
                        Errors.CORRUPT_MESSAGE),
                Case.of("produce a good batch followed by a corrupt one", (c, a) -> produce(c, 1,
                        part(TOPIC, 0, good().concat(flipped()))), Errors.CORRUPT_MESSAGE),
                Case.of("produce a batch above max.message.bytes", (c, a) -> produce(c, 1,
                        part(SMALL, 0, bytes(batch(1_000, "x".repeat(2 * MAX_MESSAGE_BYTES))))),
                        Errors.MESSAGE_TOO_LARGE),
                // ------------------------------------------------ Produce: request-level fields fail every partition
                Case.of("produce with acks=2", (c, a) -> produce(c, 2, part(TOPIC, 0, good()), part(TOPIC, 1, good())),
                        Errors.INVALID_REQUIRED_ACKS, Errors.INVALID_REQUIRED_ACKS),
                Case.of("produce with acks=-2", (c, a) -> produce(c, -2, part(TOPIC, 0, good())),
                        Errors.INVALID_REQUIRED_ACKS),
                Case.of("produce with a negative timeout", (c, a) -> c.produce(ProduceRequest.newBuilder().setAcks(1)
                        .setTimeoutMs(-1).addPartitions(part(TOPIC, 0, good())).addPartitions(part(TOPIC, 1, good()))
                        .build()), Errors.INVALID_REQUEST, Errors.INVALID_REQUEST),
                // ------------------------------------------------ Fetch
                Case.of("fetch with max_bytes 0", (c, a) -> c.fetch(fetch(0, 0, 0, fetchPart(TOPIC, 1, 1, MIB))),
                        Errors.INVALID_REQUEST),
                Case.of("fetch with max_bytes above 100 MiB", (c, a) -> c.fetch(fetch(100 * MIB + 1, 0, 0,
                        fetchPart(TOPIC, 0, 1, MIB), fetchPart(TOPIC, 1, 0, MIB))),
                        Errors.INVALID_REQUEST, Errors.INVALID_REQUEST),
                Case.of("fetch with negative min_bytes", (c, a) -> c.fetch(fetch(MIB, -1, 0,
                        fetchPart(TOPIC, 1, 0, MIB))), Errors.INVALID_REQUEST),
                Case.of("fetch with negative max_wait_ms", (c, a) -> c.fetch(fetch(MIB, 0, -1,
                        fetchPart(TOPIC, 1, 0, MIB))), Errors.INVALID_REQUEST),
                Case.of("fetch with a huge max_wait_ms", (c, a) -> c.fetch(fetch(MIB, 0, Integer.MAX_VALUE,
                        fetchPart(TOPIC, 1, 0, MIB))), Errors.INVALID_REQUEST),
                Case.of("fetch with partition_max_bytes 0", (c, a) -> c.fetch(fetch(MIB, 0, 0,
                        fetchPart(TOPIC, 1, 0, 0))), Errors.INVALID_REQUEST),
                Case.of("fetch naming one partition twice", (c, a) -> c.fetch(fetch(MIB, 0, 0,
                        fetchPart(TOPIC, 1, 0, MIB), fetchPart(TOPIC, 1, 1, MIB))),
                        Errors.INVALID_REQUEST, Errors.INVALID_REQUEST),
                Case.of("fetch an unknown partition", (c, a) -> c.fetch(fetch(MIB, 0, 0,
                        fetchPart(TOPIC, 7, 0, MIB))), Errors.UNKNOWN_TOPIC_OR_PARTITION),
                Case.of("fetch at a negative offset", (c, a) -> c.fetch(fetch(MIB, 0, 0,
                        fetchPart(TOPIC, 0, -5, MIB))), MalformedRequestTest::carriesBothBounds, Errors.OFFSET_OUT_OF_RANGE),
                Case.of("fetch below the log start offset", (c, a) -> c.fetch(fetch(MIB, 0, 0,
                        fetchPart(TOPIC, 0, 0, MIB))), MalformedRequestTest::carriesBothBounds, Errors.OFFSET_OUT_OF_RANGE),
                Case.of("fetch beyond the log end offset", (c, a) -> c.fetch(fetch(MIB, 0, 0,
                        fetchPart(TOPIC, 0, 1_000, MIB))), MalformedRequestTest::carriesBothBounds, Errors.OFFSET_OUT_OF_RANGE),
                // ------------------------------------------------ ListOffsets
                Case.of("list offsets with timestamp -3", (c, a) -> c.listOffsets(ListOffsetsRequest.newBuilder()
                        .addPartitions(listPart(TOPIC, 0, -3)).build()), Errors.INVALID_REQUEST),
                Case.of("list offsets of an unknown partition", (c, a) -> c.listOffsets(ListOffsetsRequest.newBuilder()
                        .addPartitions(listPart(TOPIC, 9, -1)).addPartitions(listPart("no-such-topic", 0, -2)).build()),
                        Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.UNKNOWN_TOPIC_OR_PARTITION),
                // ------------------------------------------------ DeleteRecords
                Case.of("delete records before offset -2", (c, a) -> deleteRecords(a, 5000, deletePart(TOPIC, 0, -2)),
                        Errors.OFFSET_OUT_OF_RANGE),
                Case.of("delete records above the high watermark", (c, a) -> deleteRecords(a, 5000,
                        deletePart(TOPIC, 1, 1_000)), Errors.OFFSET_OUT_OF_RANGE),
                Case.of("delete records naming one partition twice", (c, a) -> deleteRecords(a, 5000,
                        deletePart(TOPIC, 1, 1), deletePart(TOPIC, 1, 2)), Errors.INVALID_REQUEST, Errors.INVALID_REQUEST),
                Case.of("delete records with a negative timeout", (c, a) -> deleteRecords(a, -1,
                        deletePart(TOPIC, 1, 1)), Errors.INVALID_REQUEST),
                Case.of("delete records of an unknown topic", (c, a) -> deleteRecords(a, 5000,
                        deletePart("no-such-topic", 0, 1)), Errors.UNKNOWN_TOPIC_OR_PARTITION),
                // ------------------------------------------------ CreateTopics (validated by the controller)
                Case.of("create a topic with a bad name", (c, a) -> createTopic(a, "bad/name", 1, 1),
                        Errors.INVALID_TOPIC_EXCEPTION),
                Case.of("create a topic with an empty name", (c, a) -> createTopic(a, "", 1, 1),
                        Errors.INVALID_TOPIC_EXCEPTION),
                Case.of("create a topic with zero partitions", (c, a) -> createTopic(a, "zero", 0, 1),
                        Errors.INVALID_PARTITIONS),
                Case.of("create a topic with more replicas than brokers", (c, a) -> createTopic(a, "wide", 1, 2),
                        Errors.INVALID_REPLICATION_FACTOR),
                Case.of("create a topic with a bad config value", (c, a) -> createTopic(a, "badcfg", 1, 1,
                        "retention.ms", "soon"), Errors.INVALID_CONFIG),
                Case.of("create a topic with an unknown config key", (c, a) -> createTopic(a, "unknowncfg", 1, 1,
                        "retention.forever", "true"), Errors.INVALID_CONFIG));
    }

    @Test
    void aRequestWithAGoodAndABadPartitionAppendsTheGoodOneOnly() {
        TidelineNode node = cluster.node(1);
        Log good = log(node, TOPIC, 1);
        long goodEnd = good.logEndOffset();
        Map<String, String> before = fingerprint(node);
        ProduceResponse response = produce(cluster.client(1), 1, part(TOPIC, 1, bytes(batch(2_000, "mixed"))),
                part(TOPIC, 0, flipped()));
        ProducePartitionResponse appended = answer(response, 1);
        ProducePartitionResponse refused = answer(response, 0);
        assertEquals(Errors.NONE.code(), appended.getErrorCode(), response.toString());
        assertEquals(goodEnd, appended.getBaseOffset());
        assertEquals(goodEnd + 1, good.logEndOffset());
        assertEquals(Errors.CORRUPT_MESSAGE.code(), refused.getErrorCode(), response.toString());
        assertEquals(-1, refused.getBaseOffset());
        Map<String, String> after = fingerprint(node);
        assertEquals(before.get(TOPIC + "-0"), after.get(TOPIC + "-0"), "the refused partition's log changed");
        assertFalse(before.get(TOPIC + "-1").equals(after.get(TOPIC + "-1")));
    }

    // ---------------------------------------------------------------- checks

    /** OFFSET_OUT_OF_RANGE tells the client where the log is: both bounds, as the leader has them. */
    private static void carriesBothBounds(Message response, TidelineNode node) {
        FetchPartitionResponse p = ((FetchResponse) response).getPartitions(0);
        Log log = log(node, p.getTopic(), p.getPartition());
        assertEquals(log.logStartOffset(), p.getLogStartOffset(), response.toString());
        assertEquals(log.highWatermark(), p.getHighWatermark(), response.toString());
        assertTrue(p.getLogStartOffset() >= 1 && p.getHighWatermark() > p.getLogStartOffset(), response.toString());
    }

    private static ProducePartitionResponse answer(ProduceResponse response, int partition) {
        return response.getPartitionsList().stream().filter(p -> p.getPartition() == partition).findFirst()
                .orElseThrow(() -> new AssertionError("no answer for partition " + partition + ": " + response));
    }

    /** The error of each partition (or topic) in the order the response lists them. */
    private static List<Errors> errors(Message response) {
        if (response instanceof ProduceResponse r) {
            return r.getPartitionsList().stream().map(p -> Errors.forCode(p.getErrorCode())).toList();
        }
        if (response instanceof FetchResponse r) {
            return r.getPartitionsList().stream().map(p -> Errors.forCode(p.getErrorCode())).toList();
        }
        if (response instanceof ListOffsetsResponse r) {
            return r.getPartitionsList().stream().map(ListOffsetsPartitionResponse::getErrorCode).map(Errors::forCode)
                    .toList();
        }
        if (response instanceof DeleteRecordsResponse r) {
            return r.getPartitionsList().stream().map(DeleteRecordsPartitionResult::getErrorCode).map(Errors::forCode)
                    .toList();
        }
        if (response instanceof CreateTopicsResponse r) {
            return r.getResultsList().stream().map(TopicResult::getErrorCode).map(Errors::forCode).toList();
        }
        throw new IllegalArgumentException("no errors in " + response.getClass());
    }

    // ---------------------------------------------------------------- requests

    /** A well-formed batch of one record. */
    private static ByteString good() {
        return bytes(batch(1_000, "ok"));
    }

    /** A well-formed batch with one byte of its record's value flipped after the CRC was computed. */
    private static ByteString flipped() {
        byte[] b = good().toByteArray();
        b[b.length - 2] ^= 0x5a;
        return ByteString.copyFrom(b);
    }

    private static io.tideline.proto.client.ProducePartition part(String topic, int partition, ByteString records) {
        return producePartition(topic, partition, records);
    }

    private static ProduceResponse produce(ClientServiceBlockingStub client, int acks,
                                           io.tideline.proto.client.ProducePartition... partitions) {
        return client.produce(ProduceRequest.newBuilder().setAcks(acks).setTimeoutMs(5000)
                .addAllPartitions(List.of(partitions)).build());
    }

    private static FetchRequest fetch(int maxBytes, int minBytes, int maxWaitMs, FetchPartition... partitions) {
        return FetchRequest.newBuilder().setMaxBytes(maxBytes).setMinBytes(minBytes).setMaxWaitMs(maxWaitMs)
                .addAllPartitions(List.of(partitions)).build();
    }

    private static FetchPartition fetchPart(String topic, int partition, long offset, int maxBytes) {
        return FetchPartition.newBuilder().setTopic(topic).setPartition(partition).setFetchOffset(offset)
                .setPartitionMaxBytes(maxBytes).setCurrentLeaderEpoch(-1).build();
    }

    private static ListOffsetsPartition listPart(String topic, int partition, long timestamp) {
        return ListOffsetsPartition.newBuilder().setTopic(topic).setPartition(partition).setTimestamp(timestamp).build();
    }

    private static DeleteRecordsResponse deleteRecords(AdminServiceBlockingStub admin, int timeoutMs,
                                                       DeleteRecordsPartition... partitions) {
        return admin.deleteRecords(DeleteRecordsRequest.newBuilder().setTimeoutMs(timeoutMs)
                .addAllPartitions(List.of(partitions)).build());
    }

    private static DeleteRecordsPartition deletePart(String topic, int partition, long offset) {
        return DeleteRecordsPartition.newBuilder().setTopic(topic).setPartition(partition).setOffset(offset).build();
    }

    private static CreateTopicsResponse createTopic(AdminServiceBlockingStub admin, String name, int partitions,
                                                    int replicationFactor, String... config) {
        NewTopic.Builder t = NewTopic.newBuilder().setName(name).setNumPartitions(partitions)
                .setReplicationFactor(replicationFactor);
        for (int i = 0; i + 1 < config.length; i += 2) {
            t.addConfigs(ConfigValue.newBuilder().setKey(config[i]).setValue(config[i + 1]));
        }
        return admin.createTopics(CreateTopicsRequest.newBuilder().addTopics(t).setTimeoutMs(5000).build());
    }

}
