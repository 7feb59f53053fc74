package io.tideline.node.kafka;

import static io.tideline.node.kafka.KafkaWire.concat;
import static io.tideline.node.kafka.KafkaWire.frame;
import static io.tideline.node.kafka.KafkaWire.header;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.api.ApiTestSupport;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.testutil.LogCapture;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile frames (B79) on the Kafka listener of one node holding data: each is answered with an
 * error or closes its connection (with one WARN line naming the peer), no log or topic changes (the fingerprint
 * of ApiTestSupport), and the listener goes on serving new connections.
 *
 * <p>To add a case (e.g. a Produce with a bad record batch): append a {@link HostileFrame} to {@link #cases()} —
 * the bytes to send (size fields included) and what must come back, {@link #closes()} or
 * {@link #answers(RequestHeader, Check)}.
 */
class KafkaHostileFrameTest {
    static final String TOPIC = "events";
    static final int MAX_REQUEST_BYTES = 64 * 1024;

    @TempDir
    static Path dir;
    static NodeTestCluster cluster;

    @BeforeAll
    static void startNodeWithData() throws Exception {
        // Metadata rows ask for topics that must stay missing: Kafka's default would create them.
        cluster = new NodeTestCluster(dir, 1, Map.of("socket.request.max.bytes", MAX_REQUEST_BYTES,
                "auto.create.topics.enable", false)).startAll();
        ApiTestSupport.createTopics(cluster, 1, ApiTestSupport.newTopic(TOPIC, 2, 1, Map.of()));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** What the node must do with a case's bytes. */
    interface Expectation {
        void verify(KafkaWire wire, LogCapture logs) throws Exception;
    }

    /** Checks a parsed answer. */
    interface Check {
        void verify(org.apache.kafka.common.requests.AbstractResponse response);
    }

    /** One row: the bytes, whether the test half-closes after them, and the expectation. */
    record HostileFrame(byte[] bytes, boolean halfClose, Expectation expected) {
    }

    /** The node closes the connection and says why in exactly one WARN line. */
    static Expectation closes() {
        return (wire, logs) -> {
            wire.assertClosedByNode();
            // The line of a peer's half-close comes as the node's side of the connection goes away.
            Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> !logs.messagesOf(KafkaConnection.class).isEmpty());
            List<String> lines = logs.messagesOf(KafkaConnection.class);
            assertEquals(1, lines.size(), "one log line per closed connection: " + lines);
            assertTrue(lines.get(0).contains("127.0.0.1:"), "the line names the peer: " + lines);
        };
    }

    /** The node answers {@code header}'s request and the answer passes {@code check}; nothing is logged. */
    static Expectation answers(RequestHeader header, Check check) {
        return (wire, logs) -> {
            check.verify(wire.read(header));
            assertEquals(List.of(), logs.messagesOf(KafkaConnection.class));
        };
    }

    static Named<HostileFrame> row(String name, byte[] bytes, Expectation expected) {
        return Named.of(name, new HostileFrame(bytes, false, expected));
    }

    static Named<HostileFrame> halfClosed(String name, byte[] bytes, Expectation expected) {
        return Named.of(name, new HostileFrame(bytes, true, expected));
    }

    static byte[] size(int size) {
        return ByteBuffer.allocate(4).putInt(size).array();
    }

    static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    static byte[] filled(int length, int value) {
        byte[] out = new byte[length];
        Arrays.fill(out, (byte) value);
        return out;
    }

    static byte[] int32(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    static final short METADATA_V4 = 4;
    static final int METADATA = ApiKeys.METADATA.id;
    static final int DELETE_TOPICS = ApiKeys.DELETE_TOPICS.id;
    static final int API_VERSIONS = ApiKeys.API_VERSIONS.id;

    static Stream<Named<HostileFrame>> cases() {
        List<Named<HostileFrame>> rows = new ArrayList<>();
        rows.add(row("truncated header", frame(bytes(0, 3, 0)), closes()));
        rows.add(row("frame shorter than its header", frame(bytes(0, 3, 0, 4, 0, 0)), closes()));
        rows.add(row("zero-length frame", size(0), closes()));
        rows.add(row("size field negative", size(-1), closes()));
        rows.add(row("size field above socket.request.max.bytes", size(MAX_REQUEST_BYTES + 1), closes()));
        rows.add(halfClosed("size field larger than the bytes that follow",
                concat(size(100), header(METADATA, 4, 1, "c", false)), closes()));
        rows.add(row("unknown API key", frame(concat(header(999, 0, 1, "c", false), int32(0))), closes()));
        rows.add(row("negative API version", frame(concat(header(METADATA, -1, 1, "c", false), int32(0))), closes()));
        rows.add(row("Metadata above any version kafka-clients knows",
                frame(concat(header(METADATA, 99, 1, "c", true), bytes(1, 0, 0))), closes()));
        // The client id is a nullable string: any negative length reads as null, which Kafka takes as "".
        RequestHeader nullClientId = new RequestHeader(ApiKeys.METADATA, METADATA_V4, "", 5);
        rows.add(row("negative client-id length: a null client id, answered as Kafka does",
                frame(concat(bytes(0, METADATA, 0, METADATA_V4), int32(5), bytes(0xFF, 0xFE), int32(1), bytes(0, 3),
                        "zzz".getBytes(java.nio.charset.StandardCharsets.UTF_8), bytes(0))),
                answers(nullClientId, r -> assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                        ((MetadataResponse) r).topicMetadata().iterator().next().error()))));
        rows.add(row("negative client-id length in a frame that ends there",
                frame(concat(bytes(0, METADATA, 0, METADATA_V4), int32(5), bytes(0xFF, 0xFE))), closes()));
        rows.add(row("negative array length in a non-nullable array (Metadata v0 topics)",
                frame(concat(header(METADATA, 0, 1, "c", false), int32(-2))), closes()));
        rows.add(row("huge array count", frame(concat(header(METADATA, 4, 1, "c", false), int32(Integer.MAX_VALUE),
                bytes(0))), closes()));
        rows.add(row("truncated body (two topics announced, one sent)",
                frame(concat(header(METADATA, 4, 1, "c", false), int32(2), bytes(0, 1, 'x'))), closes()));
        rows.add(row("garbage body (unterminated varints)",
                frame(concat(header(METADATA, 12, 1, "c", true), filled(16, 0xFF))), closes()));
        rows.add(row("bytes after a complete body",
                frame(concat(KafkaWire.request(metadata(TOPIC, METADATA_V4), 1), bytes(7, 7, 7))), closes()));
        rows.add(row("string longer than the frame (topic name)",
                frame(concat(header(METADATA, 4, 1, "c", false), int32(1), bytes(0x7F, 0xFF), bytes('a'))), closes()));
        // 30,000 bytes that are not UTF-8 read as 30,000 replacement characters, 90,000 bytes when written back:
        // more than a string may take, so no answer could echo the name. The DeleteTopics beside it names the
        // node's topic: nothing of the request may act (B79), the topic included.
        rows.add(row("DeleteTopics naming the topic and a name that reads longer than it can be written back",
                frame(concat(header(DELETE_TOPICS, 3, 1, "c", false), int32(2), bytes(0, TOPIC.length()),
                        TOPIC.getBytes(java.nio.charset.StandardCharsets.US_ASCII), bytes(0x75, 0x30),
                        filled(30_000, 0xFF), int32(30_000))), closes()));
        AbstractRequest valid = metadata(TOPIC, METADATA_V4);
        rows.add(row("a valid request followed by garbage: answered, then closed",
                concat(frame(KafkaWire.request(valid, 41)), frame(filled(12, 0xAB))), (wire, logs) -> {
                    MetadataResponse r = (MetadataResponse) wire.read(KafkaWire.headerOf(valid, 41));
                    assertEquals(Errors.NONE, r.topicMetadata().iterator().next().error());
                    closes().verify(wire, logs);
                }));
        AbstractRequest apiVersionsV3 = new ApiVersionsRequest(new ApiVersionsRequestData()
                .setClientSoftwareName("wire-test").setClientSoftwareVersion("1"), (short) 3);
        RequestHeader tooNew = new RequestHeader(ApiKeys.API_VERSIONS, (short) 99, "wire-test", 7);
        rows.add(row("ApiVersions above the advertised version: v0 answer with UNSUPPORTED_VERSION and the table",
                frame(concat(header(API_VERSIONS, 99, 7, "wire-test", true), filled(9, 0x42))),
                answers(tooNew, r -> {
                    ApiVersionsResponseData d = ((ApiVersionsResponse) r).data();
                    assertEquals(Errors.UNSUPPORTED_VERSION.code(), d.errorCode());
                    assertTrue(d.apiKeys().find(ApiKeys.METADATA.id) != null, d.toString());
                })));
        rows.add(row("Metadata for a topic that does not exist (auto.create.topics.enable=false): "
                        + "UNKNOWN_TOPIC_OR_PARTITION, nothing created",
                frame(KafkaWire.request(metadata("no-such-topic", (short) 12), 8)),
                answers(KafkaWire.headerOf(metadata("no-such-topic", (short) 12), 8), r -> assertEquals(
                        Errors.UNKNOWN_TOPIC_OR_PARTITION,
                        ((MetadataResponse) r).topicMetadata().iterator().next().error()))));
        rows.add(row("ApiVersions v3 with a client software name outside Kafka's pattern: INVALID_REQUEST",
                frame(KafkaWire.request(new ApiVersionsRequest(new ApiVersionsRequestData()
                        .setClientSoftwareName("bad name!").setClientSoftwareVersion("1"), (short) 3), 9)),
                answers(KafkaWire.headerOf(apiVersionsV3, 9), r -> assertEquals(Errors.INVALID_REQUEST.code(),
                        ((ApiVersionsResponse) r).data().errorCode()))));
        // Record batches (docs/kafka-protocol.md, "Produce and fetch"): a well-formed Produce whose records are not
        // a batch the store accepts. The store's own validation answers, per partition, with Kafka's codes.
        rows.add(refusedProduce("record batch with a bad CRC", RecordBatchFrames.badCrc(), Errors.CORRUPT_MESSAGE));
        rows.add(refusedProduce("record batch with a negative record count (CRC matching)",
                RecordBatchFrames.negativeRecordCount(), Errors.CORRUPT_MESSAGE));
        rows.add(refusedProduce("record batch whose length exceeds the records field",
                RecordBatchFrames.lengthBeyondRecordsField(), Errors.CORRUPT_MESSAGE));
        rows.add(refusedProduce("records field shorter than a batch header", RecordBatchFrames.shorterThanABatchHeader(),
                Errors.CORRUPT_MESSAGE));
        rows.add(refusedProduce("magic 0 batch", RecordBatchFrames.legacy((byte) 0), Errors.CORRUPT_MESSAGE));
        rows.add(refusedProduce("magic 1 batch", RecordBatchFrames.legacy((byte) 1), Errors.CORRUPT_MESSAGE));
        rows.add(refusedProduce("control batch from a client", RecordBatchFrames.controlBatch(), Errors.INVALID_RECORD));
        rows.add(refusedProduce("empty records field", RecordBatchFrames.empty(), Errors.INVALID_RECORD));
        // Error messages quote what the request named; they are bounded so that the answer fits (B165).
        org.apache.kafka.common.requests.DescribeGroupsRequest describe =
                new org.apache.kafka.common.requests.DescribeGroupsRequest.Builder(
                        new org.apache.kafka.common.message.DescribeGroupsRequestData()
                                .setGroups(List.of("g".repeat(32_760)))).build((short) 6);
        rows.add(row("DescribeGroups of a 32,760-character group id: GROUP_ID_NOT_FOUND, its message bounded to fit",
                frame(KafkaWire.request(describe, 10)), answers(KafkaWire.headerOf(describe, 10), r -> {
                    var group = ((org.apache.kafka.common.requests.DescribeGroupsResponse) r).data().groups().get(0);
                    assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), group.errorCode(), group.toString());
                    assertTrue(group.errorMessage().length() <= ErrorMessages.MAX_CHARS, group.errorMessage());
                })));
        // A Produce is not walked for such names (B79): its answer would echo the name, so the node closes with
        // one WARN line, no stack trace (B165).
        AbstractRequest longName = RecordBatchFrames.produce("a".repeat(30_000), 0, RecordBatchFrames.validBatch());
        byte[] produceBytes = KafkaWire.request(longName, 11);
        int at = indexOf(produceBytes, "a".repeat(30_000).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        Arrays.fill(produceBytes, at, at + 30_000, (byte) 0xFF);
        rows.add(row("Produce naming a topic in 30,000 bytes that are not UTF-8: closed with one WARN line",
                frame(produceBytes), (wire, logs) -> {
                    closes().verify(wire, logs);
                    assertEquals(List.of(), logs.errorsAndStackTraces());
                }));
        return rows.stream();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new IllegalArgumentException("not found");
    }

    private static int produceCorrelation = 100;

    /** A Produce of {@code records} to partition 0, answered with {@code expected} for it; nothing is written. */
    static Named<HostileFrame> refusedProduce(String name, ByteBuffer records, Errors expected) {
        AbstractRequest produce = RecordBatchFrames.produce(TOPIC, 0, records);
        int correlation = produceCorrelation++;
        return row(name + ": " + expected.name(), frame(KafkaWire.request(produce, correlation)),
                answers(KafkaWire.headerOf(produce, correlation), r -> {
                    org.apache.kafka.common.message.ProduceResponseData d =
                            ((org.apache.kafka.common.requests.ProduceResponse) r).data();
                    org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse p =
                            d.responses().iterator().next().partitionResponses().get(0);
                    assertEquals(expected.code(), p.errorCode(), name + ": " + p);
                    assertEquals(-1L, p.baseOffset(), p.toString());
                }));
    }

    static MetadataRequest metadata(String topic, short version) {
        return new MetadataRequest(new MetadataRequestData().setTopics(new ArrayList<>(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName(topic)))).setAllowAutoTopicCreation(true), version);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void hostileFrameIsAnsweredWithAnErrorOrClosesAndChangesNothing(HostileFrame frame) throws Exception {
        Map<String, String> before = ApiTestSupport.fingerprint(cluster.node(1));
        try (LogCapture logs = new LogCapture(); KafkaWire wire = new KafkaWire(cluster.kafkaPort(1))) {
            wire.send(frame.bytes());
            if (frame.halfClose()) {
                wire.halfClose();
            }
            frame.expected().verify(wire, logs);
        }
        assertEquals(before, ApiTestSupport.fingerprint(cluster.node(1)));
        assertListenerServes();
    }

    /** A new connection is still answered: one bad peer does not take the listener down. */
    static void assertListenerServes() throws Exception {
        ApiVersionsRequest request = new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 0);
        try (KafkaWire wire = new KafkaWire(cluster.kafkaPort(1))) {
            wire.send(frame(KafkaWire.request(request, 1)));
            assertEquals(Errors.NONE.code(), ((ApiVersionsResponse) wire.read(KafkaWire.headerOf(request, 1)))
                    .data().errorCode());
        }
    }
}
