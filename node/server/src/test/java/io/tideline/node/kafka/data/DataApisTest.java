package io.tideline.node.kafka.data;

import static io.tideline.node.kafka.data.KafkaDataTestSupport.WAIT;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.call;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.createTopic;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.followerNode;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.kafkaBatch;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.leaderEpoch;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.leaderNode;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.request;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.roundTrip;
import static io.tideline.node.kafka.data.KafkaDataTestSupport.topicId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.api.ApiTestSupport;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.kafka.SliceRecords;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.store.log.Log;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka data APIs called directly, as the listener calls them, against three nodes: Produce, Fetch,
 * ListOffsets and OffsetForLeaderEpoch at the versions served, their per-partition errors with Kafka's codes, and
 * every answer written at its version (as the listener's writer would). One cluster; each test its own topic.
 */
class DataApisTest {
    private static final short LATEST_PRODUCE = ProduceApi.MAX_VERSION;
    @TempDir
    static Path dir;
    private static NodeTestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new NodeTestCluster(dir, 3, Map.of()).startAll();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static List<KafkaApi> apis(TidelineNode node, FetchStats stats) {
        return DataApis.create(node.nodeId(), node::image, node.replicaManager(), stats);
    }

    private static KafkaApi api(TidelineNode node, ApiKeys key) {
        return apis(node, new FetchStats()).stream().filter(a -> a.key() == key).findFirst().orElseThrow();
    }

    // ---------------------------------------------------------------- Produce

    private static ProduceRequestData produce(TidelineNode via, String topic, int partition, MemoryRecords records,
                                              short acks, short version) {
        ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData();
        if (version >= ProduceApi.TOPIC_ID_VERSION) {
            t.setTopicId(via.image().topic(topic).map(i -> Uuid.fromString(i.id())).orElse(Uuid.randomUuid()));
        } else {
            t.setName(topic);
        }
        t.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(records));
        ProduceRequestData data = new ProduceRequestData().setAcks(acks).setTimeoutMs(10_000);
        data.topicData().add(t);
        return data;
    }

    private static ProduceResponseData.PartitionProduceResponse produceOne(TidelineNode via, ProduceRequestData data,
                                                                          short version) throws Exception {
        ProduceResponseData answer = call(api(via, ApiKeys.PRODUCE), request(ApiKeys.PRODUCE, version, data));
        ProduceResponseData written = roundTrip(answer, version);
        return written.responses().iterator().next().partitionResponses().get(0);
    }

    @Test
    void produceAtEveryVersionAppendsWithAcksAllAndAnswersTheOffsets() throws Exception {
        createTopic(cluster, "p-versions", 1, 3, Map.of());
        TidelineNode leader = leaderNode(cluster, "p-versions", 0);
        long expected = 0;
        for (short v = ProduceApi.MIN_VERSION; v <= ProduceApi.MAX_VERSION; v++) {
            ProduceResponseData.PartitionProduceResponse r = produceOne(leader,
                    produce(leader, "p-versions", 0, kafkaBatch(1_000, "a" + v, "b" + v), (short) -1, v), v);
            assertEquals(Errors.NONE.code(), r.errorCode(), "v" + v + ": " + r);
            assertEquals(expected, r.baseOffset(), "v" + v);
            assertEquals(-1L, r.logAppendTimeMs(), "CreateTime topic");
            if (v >= 5) {
                assertEquals(0L, r.logStartOffset(), "v" + v);
            }
            expected += 2;
        }
        Log log = ApiTestSupport.log(leader, "p-versions", 0);
        assertEquals(expected, log.highWatermark(), "acks=all answered once every record was committed");
    }

    @Test
    void produceToATopicWithLogAppendTimeAnswersTheTimeStamped() throws Exception {
        createTopic(cluster, "p-append-time", 1, 1, Map.of("message.timestamp.type", "LogAppendTime"));
        TidelineNode leader = leaderNode(cluster, "p-append-time", 0);
        long before = System.currentTimeMillis();
        ProduceResponseData.PartitionProduceResponse r = produceOne(leader,
                produce(leader, "p-append-time", 0, kafkaBatch(5, "x"), (short) 1, LATEST_PRODUCE), LATEST_PRODUCE);
        assertEquals(Errors.NONE.code(), r.errorCode(), r.toString());
        assertTrue(r.logAppendTimeMs() >= before, r.toString());
    }

    @Test
    void produceWithAcksZeroSendsNoAnswerAndAppends() throws Exception {
        createTopic(cluster, "p-acks0", 1, 1, Map.of());
        TidelineNode leader = leaderNode(cluster, "p-acks0", 0);
        Object answer = call(api(leader, ApiKeys.PRODUCE), request(ApiKeys.PRODUCE, LATEST_PRODUCE,
                produce(leader, "p-acks0", 0, kafkaBatch(5, "x", "y"), (short) 0, LATEST_PRODUCE)));
        assertNull(answer, "acks=0 gets no response");
        assertEquals(2L, ApiTestSupport.log(leader, "p-acks0", 0).logEndOffset());
    }

    @Test
    void produceRefusalsCarryKafkaCodesAndChangeNoLog() throws Exception {
        createTopic(cluster, "p-refused", 1, 3, Map.of());
        TidelineNode leader = leaderNode(cluster, "p-refused", 0);
        TidelineNode follower = followerNode(cluster, "p-refused", 0);
        Map<Integer, Map<String, String>> before = fingerprints();

        // At the follower: NOT_LEADER_OR_FOLLOWER naming the leader (KIP-951's hint).
        ProduceResponseData.PartitionProduceResponse r = produceOne(follower,
                produce(follower, "p-refused", 0, kafkaBatch(5, "x"), (short) -1, LATEST_PRODUCE), LATEST_PRODUCE);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), r.errorCode(), r.toString());
        assertEquals(leader.nodeId(), r.currentLeader().leaderId(), r.toString());
        assertEquals(leaderEpoch(leader, "p-refused", 0), r.currentLeader().leaderEpoch(), r.toString());

        // v13 with an id the image does not know.
        ProduceRequestData unknownId = produce(leader, "p-refused", 0, kafkaBatch(5, "x"), (short) -1, LATEST_PRODUCE);
        unknownId.topicData().iterator().next().setTopicId(Uuid.randomUuid());
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), produceOne(leader, unknownId, LATEST_PRODUCE).errorCode());

        // By name, unknown topic and unknown partition.
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), produceOne(leader,
                produce(leader, "no-such-topic", 0, kafkaBatch(5, "x"), (short) -1, (short) 12), (short) 12).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), produceOne(leader,
                produce(leader, "p-refused", 7, kafkaBatch(5, "x"), (short) -1, (short) 12), (short) 12).errorCode());

        // Request-level: acks 2, a transactional id.
        ProduceResponseData.PartitionProduceResponse acks2 = produceOne(leader,
                produce(leader, "p-refused", 0, kafkaBatch(5, "x"), (short) 2, LATEST_PRODUCE), LATEST_PRODUCE);
        assertEquals(Errors.INVALID_REQUIRED_ACKS.code(), acks2.errorCode());
        ProduceRequestData transactional = produce(leader, "p-refused", 0, kafkaBatch(5, "x"), (short) -1, LATEST_PRODUCE)
                .setTransactionalId("txn-1");
        ProduceResponseData.PartitionProduceResponse txn = produceOne(leader, transactional, LATEST_PRODUCE);
        assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code(), txn.errorCode(), txn.toString());
        assertTrue(txn.errorMessage().contains("transactions are not served"), txn.errorMessage());

        // The same partition twice: both refused, as the gRPC API refuses them.
        ProduceRequestData twice = produce(leader, "p-refused", 0, kafkaBatch(5, "x"), (short) -1, (short) 12);
        twice.topicData().iterator().next().partitionData()
                .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(kafkaBatch(5, "y")));
        ProduceResponseData twiceAnswer = roundTrip(call(api(leader, ApiKeys.PRODUCE),
                request(ApiKeys.PRODUCE, (short) 12, twice)), (short) 12);
        List<ProduceResponseData.PartitionProduceResponse> both =
                twiceAnswer.responses().iterator().next().partitionResponses();
        assertEquals(2, both.size());
        both.forEach(p -> assertEquals(Errors.INVALID_REQUEST.code(), p.errorCode(), p.toString()));

        // An empty records field: the store refuses it.
        assertEquals(Errors.INVALID_RECORD.code(), produceOne(leader,
                produce(leader, "p-refused", 0, MemoryRecords.EMPTY, (short) -1, LATEST_PRODUCE), LATEST_PRODUCE)
                .errorCode());

        assertEquals(before, fingerprints(), "a refused produce changed a log");
    }

    private static Map<Integer, Map<String, String>> fingerprints() {
        Map<Integer, Map<String, String>> out = new java.util.TreeMap<>();
        cluster.running().forEach(n -> out.put(n.nodeId(), ApiTestSupport.fingerprint(n)));
        return out;
    }

    // ---------------------------------------------------------------- Fetch

    static FetchRequestData fetch(TidelineNode via, short version, String topic, int partition, long offset,
                                  int maxWaitMs, int minBytes) {
        FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic();
        if (version >= FetchApi.TOPIC_ID_VERSION) {
            t.setTopicId(via.image().topic(topic).map(i -> Uuid.fromString(i.id())).orElse(Uuid.randomUuid()));
        } else {
            t.setTopic(topic);
        }
        t.partitions().add(new FetchRequestData.FetchPartition().setPartition(partition).setFetchOffset(offset)
                .setPartitionMaxBytes(1024 * 1024).setCurrentLeaderEpoch(-1));
        FetchRequestData data = new FetchRequestData().setMaxWaitMs(maxWaitMs).setMinBytes(minBytes)
                .setMaxBytes(50 * 1024 * 1024).setSessionId(0).setSessionEpoch(-1);
        if (version >= FetchApi.REPLICA_STATE_VERSION) {
            data.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(-1));
        } else {
            data.setReplicaId(-1);
        }
        data.topics().add(t);
        return data;
    }

    static FetchResponseData.PartitionData only(FetchResponseData response) {
        return response.responses().get(0).partitions().get(0);
    }

    /** The records of a partition's answer, read from its slice, which is then closed. */
    static List<String> values(FetchResponseData.PartitionData p) throws Exception {
        List<String> out = new ArrayList<>();
        if (p.records() instanceof SliceRecords slice) {
            try (slice) {
                MemoryRecords records = MemoryRecords.readableRecords(slice.slice().toMemoryRecords().buffer());
                for (Record r : records.records()) {
                    out.add(StandardCharsets.UTF_8.decode(r.value()).toString());
                }
            }
        } else {
            assertEquals(0, p.records().sizeInBytes(), "records that are not a slice: " + p.records());
        }
        return out;
    }

    @Test
    void fetchAtEveryVersionHandsTheStoredBatchesOverAsFileSlices() throws Exception {
        createTopic(cluster, "f-versions", 1, 3, Map.of());
        TidelineNode leader = leaderNode(cluster, "f-versions", 0);
        produceOne(leader, produce(leader, "f-versions", 0, kafkaBatch(1_000, "v0", "v1", "v2"), (short) -1,
                LATEST_PRODUCE), LATEST_PRODUCE);
        FetchStats stats = new FetchStats();
        KafkaApi fetchApi = apis(leader, stats).stream().filter(a -> a.key() == ApiKeys.FETCH).findFirst().orElseThrow();
        for (short v = FetchApi.MIN_VERSION; v <= FetchApi.MAX_VERSION; v++) {
            for (byte isolation : new byte[] {0, 1}) {
                FetchResponseData response = call(fetchApi,
                        request(ApiKeys.FETCH, v, fetch(leader, v, "f-versions", 0, 1L, 0, 0).setIsolationLevel(isolation)));
                assertEquals(0, response.sessionId(), "no fetch sessions: the client keeps sending full fetches");
                FetchResponseData.PartitionData p = only(response);
                assertEquals(Errors.NONE.code(), p.errorCode(), "v" + v + ": " + p);
                assertEquals(3L, p.highWatermark());
                assertEquals(3L, p.lastStableOffset(), "no transactions: the last stable offset is the high watermark");
                assertEquals(0L, p.logStartOffset());
                assertEquals(-1, p.preferredReadReplica());
                assertEquals(isolation == 1 ? List.of() : null, p.abortedTransactions());
                if (v >= FetchApi.TOPIC_ID_VERSION) {
                    assertEquals(topicId(leader, "f-versions"), response.responses().get(0).topicId());
                } else {
                    assertEquals("f-versions", response.responses().get(0).topic());
                }
                assertInstanceOf(SliceRecords.class, p.records(), "the stored bytes, not a heap copy");
                // The whole batch holding offset 1, as Kafka sends it: the consumer skips offset 0 itself.
                assertEquals(List.of("v0", "v1", "v2"), values(p), "v" + v);
            }
        }
        int answers = 2 * (FetchApi.MAX_VERSION - FetchApi.MIN_VERSION + 1);
        assertEquals(answers, stats.slicesHandedOver());
        assertTrue(stats.sliceBytesHandedOver() > 0);
    }

    @Test
    void fetchErrorsCarryKafkaCodesBoundsAndTheLeader() throws Exception {
        createTopic(cluster, "f-errors", 1, 3, Map.of());
        TidelineNode leader = leaderNode(cluster, "f-errors", 0);
        TidelineNode follower = followerNode(cluster, "f-errors", 0);
        produceOne(leader, produce(leader, "f-errors", 0, kafkaBatch(1_000, "a", "b"), (short) -1, LATEST_PRODUCE),
                LATEST_PRODUCE);
        KafkaApi atLeader = api(leader, ApiKeys.FETCH);
        short v = FetchApi.MAX_VERSION;

        FetchResponseData.PartitionData notLeader = only(roundTrip(call(api(follower, ApiKeys.FETCH),
                request(ApiKeys.FETCH, v, fetch(follower, v, "f-errors", 0, 0L, 0, 0))), v));
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), notLeader.errorCode());
        assertEquals(leader.nodeId(), notLeader.currentLeader().leaderId());

        FetchRequestData fenced = fetch(leader, v, "f-errors", 0, 0L, 0, 0);
        fenced.topics().get(0).partitions().get(0).setCurrentLeaderEpoch(leaderEpoch(leader, "f-errors", 0) + 5);
        assertEquals(Errors.UNKNOWN_LEADER_EPOCH.code(), only(call(atLeader, request(ApiKeys.FETCH, v, fenced))).errorCode());

        FetchResponseData.PartitionData outOfRange = only(roundTrip(call(atLeader,
                request(ApiKeys.FETCH, v, fetch(leader, v, "f-errors", 0, 99L, 0, 0))), v));
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), outOfRange.errorCode());
        assertEquals(0L, outOfRange.logStartOffset());
        assertEquals(2L, outOfRange.highWatermark());

        FetchRequestData unknownId = fetch(leader, v, "f-errors", 0, 0L, 0, 0);
        unknownId.topics().get(0).setTopicId(Uuid.randomUuid());
        FetchResponseData unknown = roundTrip(call(atLeader, request(ApiKeys.FETCH, v, unknownId)), v);
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), only(unknown).errorCode());
        assertEquals(unknownId.topics().get(0).topicId(), unknown.responses().get(0).topicId());

        FetchRequestData session = fetch(leader, v, "f-errors", 0, 0L, 0, 0).setSessionId(12).setSessionEpoch(3);
        FetchResponseData noSession = roundTrip(call(atLeader, request(ApiKeys.FETCH, v, session)), v);
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(), noSession.errorCode());
        assertTrue(noSession.responses().isEmpty());
        FetchRequestData badEpoch = fetch(leader, v, "f-errors", 0, 0L, 0, 0).setSessionEpoch(4);
        assertEquals(Errors.INVALID_FETCH_SESSION_EPOCH.code(),
                roundTrip(KafkaDataTestSupport.<FetchResponseData>call(atLeader, request(ApiKeys.FETCH, v, badEpoch)), v)
                        .errorCode());

        FetchRequestData replica = fetch(leader, v, "f-errors", 0, 0L, 0, 0);
        replica.replicaState().setReplicaId(follower.nodeId());
        assertEquals(Errors.INVALID_REQUEST.code(), only(call(atLeader, request(ApiKeys.FETCH, v, replica))).errorCode());

        FetchRequestData tooLong = fetch(leader, v, "f-errors", 0, 0L, 400_000, 0);
        assertEquals(Errors.INVALID_REQUEST.code(), only(call(atLeader, request(ApiKeys.FETCH, v, tooLong))).errorCode());
    }

    @Test
    void fetchLongPollsUntilRecordsArrive() throws Exception {
        createTopic(cluster, "f-poll", 1, 3, Map.of());
        TidelineNode leader = leaderNode(cluster, "f-poll", 0);
        short v = FetchApi.MAX_VERSION;
        @SuppressWarnings("unchecked")
        CompletableFuture<FetchResponseData> polling = (CompletableFuture<FetchResponseData>) api(leader, ApiKeys.FETCH)
                .handle(request(ApiKeys.FETCH, v, fetch(leader, v, "f-poll", 0, 0L, 20_000, 1)));
        assertFalse(polling.isDone(), "nothing to read: the fetch waits for min_bytes");
        produceOne(leader, produce(leader, "f-poll", 0, kafkaBatch(1_000, "late"), (short) -1, LATEST_PRODUCE),
                LATEST_PRODUCE);
        FetchResponseData answered = polling.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(List.of("late"), values(only(answered)));
    }

    // ---------------------------------------------------------------- ListOffsets

    private static ListOffsetsResponseData.ListOffsetsPartitionResponse listOffsets(TidelineNode via, short version,
            String topic, long timestamp, int currentLeaderEpoch) throws Exception {
        ListOffsetsRequestData data = new ListOffsetsRequestData().setReplicaId(-1);
        ListOffsetsRequestData.ListOffsetsTopic t = new ListOffsetsRequestData.ListOffsetsTopic().setName(topic);
        t.partitions().add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(timestamp)
                .setCurrentLeaderEpoch(currentLeaderEpoch));
        data.topics().add(t);
        ListOffsetsResponseData answer = call(api(via, ApiKeys.LIST_OFFSETS), request(ApiKeys.LIST_OFFSETS, version, data));
        return roundTrip(answer, version).topics().get(0).partitions().get(0);
    }

    @Test
    void listOffsetsAnswersEarliestLatestByTimeAndMaxTimestamp() throws Exception {
        createTopic(cluster, "l-offsets", 1, 3, Map.of());
        TidelineNode leader = leaderNode(cluster, "l-offsets", 0);
        produceOne(leader, produce(leader, "l-offsets", 0, kafkaBatch(1_000, "a", "b"), (short) -1, LATEST_PRODUCE),
                LATEST_PRODUCE);
        produceOne(leader, produce(leader, "l-offsets", 0, kafkaBatch(5_000, "c"), (short) -1, LATEST_PRODUCE),
                LATEST_PRODUCE);
        produceOne(leader, produce(leader, "l-offsets", 0, kafkaBatch(2_000, "d"), (short) -1, LATEST_PRODUCE),
                LATEST_PRODUCE);
        int epoch = leaderEpoch(leader, "l-offsets", 0);
        for (short v = ListOffsetsApi.MIN_VERSION; v <= ListOffsetsApi.MAX_VERSION; v++) {
            int current = v >= 4 ? epoch : -1;
            ListOffsetsResponseData.ListOffsetsPartitionResponse earliest = listOffsets(leader, v, "l-offsets", -2L, current);
            assertEquals(Errors.NONE.code(), earliest.errorCode(), "v" + v + " " + earliest);
            assertEquals(0L, earliest.offset());
            assertEquals(4L, listOffsets(leader, v, "l-offsets", -1L, current).offset(), "latest is the high watermark");
            ListOffsetsResponseData.ListOffsetsPartitionResponse byTime = listOffsets(leader, v, "l-offsets", 1_001L, current);
            assertEquals(1L, byTime.offset(), "the first record at or after the time");
            assertEquals(1_001L, byTime.timestamp());
            if (v >= 4) {
                assertEquals(epoch, byTime.leaderEpoch());
                assertEquals(epoch, earliest.leaderEpoch());
            }
            if (v >= 7) {
                ListOffsetsResponseData.ListOffsetsPartitionResponse max = listOffsets(leader, v, "l-offsets", -3L, current);
                assertEquals(2L, max.offset(), "offset of the largest timestamp");
                assertEquals(5_000L, max.timestamp());
            }
            assertEquals(-1L, listOffsets(leader, v, "l-offsets", 99_000L, current).offset(), "nothing that late");
        }
        assertEquals(0L, listOffsets(leader, (short) 9, "l-offsets", -4L, epoch).offset(), "earliest local: all is local");
        assertEquals(-1L, listOffsets(leader, (short) 9, "l-offsets", -5L, epoch).offset(), "nothing is tiered");
        // FENCED_LEADER_EPOCH needs a leader change: KafkaClientsTest's failover covers it.
        assertEquals(Errors.UNKNOWN_LEADER_EPOCH.code(),
                listOffsets(leader, (short) 9, "l-offsets", -1L, epoch + 1).errorCode());
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(),
                listOffsets(followerNode(cluster, "l-offsets", 0), (short) 9, "l-offsets", -1L, -1).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), listOffsets(leader, (short) 9, "l-offsets", -7L, -1).errorCode());
    }

    // ---------------------------------------------------------------- OffsetForLeaderEpoch

    private static OffsetForLeaderEpochResponseData.EpochEndOffset endOffset(TidelineNode via, short version, String topic,
            int currentLeaderEpoch, int leaderEpoch) throws Exception {
        OffsetForLeaderEpochRequestData data = new OffsetForLeaderEpochRequestData().setReplicaId(-1);
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t =
                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(topic);
        t.partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0)
                .setCurrentLeaderEpoch(currentLeaderEpoch).setLeaderEpoch(leaderEpoch));
        data.topics().add(t);
        OffsetForLeaderEpochResponseData answer = call(api(via, ApiKeys.OFFSET_FOR_LEADER_EPOCH),
                request(ApiKeys.OFFSET_FOR_LEADER_EPOCH, version, data));
        return roundTrip(answer, version).topics().iterator().next().partitions().get(0);
    }

    @Test
    void offsetForLeaderEpochAnswersFromTheLeadersEpochCache() throws Exception {
        createTopic(cluster, "e-epochs", 1, 3, Map.of());
        TidelineNode leader = leaderNode(cluster, "e-epochs", 0);
        produceOne(leader, produce(leader, "e-epochs", 0, kafkaBatch(1_000, "a", "b", "c"), (short) -1, LATEST_PRODUCE),
                LATEST_PRODUCE);
        int epoch = leaderEpoch(leader, "e-epochs", 0);
        for (short v = OffsetForLeaderEpochApi.MIN_VERSION; v <= OffsetForLeaderEpochApi.MAX_VERSION; v++) {
            OffsetForLeaderEpochResponseData.EpochEndOffset latest = endOffset(leader, v, "e-epochs", epoch, epoch);
            assertEquals(Errors.NONE.code(), latest.errorCode(), "v" + v + " " + latest);
            assertEquals(epoch, latest.leaderEpoch());
            assertEquals(3L, latest.endOffset(), "the latest epoch ends at the log end offset");
        }
        short v = OffsetForLeaderEpochApi.MAX_VERSION;
        OffsetForLeaderEpochResponseData.EpochEndOffset older = endOffset(leader, v, "e-epochs", -1, epoch - 1);
        assertEquals(-1, older.leaderEpoch(), "no epoch that old in the log: " + older);
        assertEquals(-1L, older.endOffset());
        assertEquals(Errors.UNKNOWN_LEADER_EPOCH.code(), endOffset(leader, v, "e-epochs", epoch + 1, epoch).errorCode());
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(),
                endOffset(followerNode(cluster, "e-epochs", 0), v, "e-epochs", -1, epoch).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), endOffset(leader, v, "no-such", -1, epoch).errorCode());
    }
}
