package io.tideline.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.config.ConfigException;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The producer with enable.idempotence (the default): producer id, sequences, retries without duplicates. */
class IdempotentProducerTest {
    private static final Duration BOUND = Duration.ofSeconds(10);
    private static final TopicPartition TP0 = new TopicPartition("orders", 0);
    private static final TopicPartition TP1 = new TopicPartition("orders", 1);

    private final FakeCluster cluster = new FakeCluster("idempotent-test-" + System.nanoTime(), 2);
    private final List<TidelineProducer> producers = new ArrayList<>();

    @AfterEach
    void tearDown() {
        producers.forEach(p -> p.close(Duration.ofSeconds(5)));
        cluster.close();
    }

    private TidelineProducer producer(Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", cluster.bootstrap());
        props.put("retry.backoff.ms", "10");
        props.put("linger.ms", "0");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        TidelineProducer producer = new TidelineProducer(props, Time.SYSTEM, cluster.channels());
        producers.add(producer);
        return producer;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> values(List<Record> records) {
        return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
    }

    private static String value(ProducePartition p) {
        return new String(MemoryRecords.readableRecords(p.getRecords().asReadOnlyByteBuffer()).records().get(0).value(),
                StandardCharsets.UTF_8);
    }

    /** Every batch each Produce request carried, in the order the requests came. */
    private List<RecordBatch> sentBatches(TopicPartition tp) {
        List<RecordBatch> out = new ArrayList<>();
        for (FakeCluster.Received<ProduceRequest> r : cluster.produceRequests) {
            for (ProducePartition p : r.request().getPartitionsList()) {
                if (p.getTopic().equals(tp.topic()) && p.getPartition() == tp.partition()) {
                    MemoryRecords.readableRecords(p.getRecords().asReadOnlyByteBuffer()).batches().forEach(out::add);
                }
            }
        }
        return out;
    }

    private RecordMetadata send(TidelineProducer producer, TopicPartition tp, String value) {
        return producer.send(new ProducerRecord(tp.topic(), tp.partition(), null, bytes(value))).join();
    }

    @Test
    void oneProducerIdAndPerPartitionSequencesFromZeroAreStampedIntoEachBatch() {
        cluster.createTopic("orders", 2);
        TidelineProducer producer = producer();
        send(producer, TP0, "a0");
        send(producer, TP1, "b0");
        producer.send(new ProducerRecord("orders", 0, null, bytes("a1")));
        producer.send(new ProducerRecord("orders", 0, null, bytes("a2")));
        producer.flush();
        assertEquals(1, cluster.initProducerIdRequests.size(), "InitProducerId once");
        assertEquals(-1, cluster.initProducerIdRequests.get(0).getProducerId());
        // What the leader appended, not what was sent: two batches in flight on concurrent gRPC calls may reach it
        // out of order, and the overtaking one is refused (OUT_OF_ORDER_SEQUENCE_NUMBER) and sent again.
        List<RecordBatch> p0 = cluster.log(TP0).batches;
        List<Integer> sequences = new ArrayList<>();
        int records = 0;
        for (RecordBatch b : p0) {
            assertEquals(1000, b.producerId());
            assertEquals(0, b.producerEpoch());
            assertEquals(records, b.baseSequence(), "a batch's sequence counts the records before it");
            sequences.add(b.baseSequence());
            records += b.records().size();
        }
        assertEquals(0, sequences.get(0));
        assertEquals(0, sentBatches(TP1).get(0).baseSequence(), "each partition counts from 0");
        for (FakeCluster.Received<ProduceRequest> r : cluster.produceRequests) {
            for (ProducePartition p : r.request().getPartitionsList()) {
                assertEquals(1, MemoryRecords.readableRecords(p.getRecords().asReadOnlyByteBuffer()).batches().size(),
                        "one batch per partition per request");
            }
        }
    }

    @Test
    void aRetryAfterALostAnswerKeepsItsSequenceAndGetsTheOriginalOffsetWithoutADuplicate() {
        cluster.createTopic("orders", 1);
        AtomicInteger lost = new AtomicInteger(1);
        cluster.answerLostHook = (broker, p) -> value(p).equals("v1") && lost.getAndDecrement() > 0
                ? Errors.REQUEST_TIMED_OUT : Errors.NONE;
        TidelineProducer producer = producer();
        assertEquals(0, send(producer, TP0, "v0").offset());
        assertEquals(1, send(producer, TP0, "v1").offset(), "the retry is answered with the original offset");
        assertEquals(2, send(producer, TP0, "v2").offset());
        assertEquals(List.of("v0", "v1", "v2"), values(cluster.records(TP0)), "v1 written once");
        List<RecordBatch> sent = sentBatches(TP0);
        assertEquals(4, sent.size(), "v1 went twice");
        assertEquals(1, sent.get(1).baseSequence());
        assertEquals(1, sent.get(2).baseSequence(), "the retry carries the same sequence");
        assertEquals(2, sent.get(3).baseSequence());
    }

    @Test
    void upToFiveBatchesOfAPartitionAreInFlightAndLandInOrder() {
        cluster.createTopic("orders", 1);
        TidelineProducer producer = producer("batch.size", "0");
        send(producer, TP0, "v0");
        int before = cluster.produceRequests.size();
        cluster.produceGate = new CompletableFuture<>();
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            futures.add(producer.send(new ProducerRecord("orders", 0, null, bytes("v" + i))));
        }
        await().atMost(BOUND).until(() -> cluster.produceRequests.size() - before == 5);
        await().during(Duration.ofMillis(300)).atMost(BOUND).until(() -> cluster.produceRequests.size() - before == 5);
        cluster.produceGate.complete(null);
        producer.flush();
        for (int i = 1; i <= 12; i++) {
            assertEquals(i, futures.get(i - 1).join().offset(), "record " + i);
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i <= 12; i++) {
            expected.add("v" + i);
        }
        assertEquals(expected, values(cluster.records(TP0)));
    }

    @Test
    void theFirstBatchOfAPartitionTravelsAloneUntilTheLeaderKnowsTheProducer() {
        cluster.createTopic("orders", 1);
        cluster.produceGate = new CompletableFuture<>();
        TidelineProducer producer = producer("batch.size", "0");
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            futures.add(producer.send(new ProducerRecord("orders", 0, null, bytes("v" + i))));
        }
        await().atMost(BOUND).until(() -> cluster.produceRequests.size() == 1);
        await().during(Duration.ofMillis(300)).atMost(BOUND).until(() -> cluster.produceRequests.size() == 1);
        cluster.produceGate.complete(null);
        producer.flush();
        assertEquals(List.of("v0", "v1", "v2", "v3"), values(cluster.records(TP0)));
    }

    @Test
    void aBatchRefusedOutOfOrderFailsWithTheOnesSentAfterItAndTheEpochIsBumped() {
        cluster.createTopic("orders", 1);
        AtomicInteger refusals = new AtomicInteger(1);
        cluster.produceHook = (broker, p) -> value(p).equals("bad") && refusals.getAndDecrement() > 0
                ? Errors.OUT_OF_ORDER_SEQUENCE_NUMBER : Errors.NONE;
        TidelineProducer producer = producer("batch.size", "0");
        assertEquals(0, send(producer, TP0, "a").offset());
        cluster.produceGate = new CompletableFuture<>();
        CompletableFuture<RecordMetadata> bad = producer.send(new ProducerRecord("orders", 0, null, bytes("bad")));
        CompletableFuture<RecordMetadata> after = producer.send(new ProducerRecord("orders", 0, null, bytes("after")));
        await().atMost(BOUND).until(() -> cluster.produceRequests.size() == 3);
        cluster.produceGate.complete(null);
        CompletionException e = assertThrows(CompletionException.class, bad::join);
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, assertInstanceOf(TidelineClientException.class, e.getCause()).error());
        CompletionException later = assertThrows(CompletionException.class, after::join);
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER,
                assertInstanceOf(TidelineClientException.class, later.getCause()).error(), "failed in order after it");

        assertEquals(1, send(producer, TP0, "c").offset(), "the next record goes under the new epoch");
        assertEquals(List.of("a", "c"), values(cluster.records(TP0)));
        assertEquals(2, cluster.initProducerIdRequests.size());
        assertEquals(1000, cluster.initProducerIdRequests.get(1).getProducerId(), "a bump of the same id");
        assertEquals(0, cluster.initProducerIdRequests.get(1).getProducerEpoch());
        List<RecordBatch> sent = sentBatches(TP0);
        RecordBatch last = sent.get(sent.size() - 1);
        assertEquals(1, last.producerEpoch());
        assertEquals(0, last.baseSequence(), "sequences restart at 0 with the new epoch");
    }

    @Test
    void aRetriableInitProducerIdErrorIsRetriedBeforeAnythingIsSent() {
        cluster.createTopic("orders", 1);
        cluster.initProducerIdError = Errors.COORDINATOR_LOAD_IN_PROGRESS;
        TidelineProducer producer = producer();
        CompletableFuture<RecordMetadata> f = producer.send(new ProducerRecord("orders", 0, null, bytes("v0")));
        await().atMost(BOUND).until(() -> cluster.initProducerIdRequests.size() >= 2);
        assertFalse(f.isDone());
        assertTrue(cluster.produceRequests.isEmpty(), "no batch without a producer id");
        cluster.initProducerIdError = Errors.NONE;
        assertEquals(0, f.join().offset());
        assertEquals(1000, sentBatches(TP0).get(0).producerId());
    }

    @Test
    void withoutIdempotenceNoProducerIdIsTakenAndBatchesCarryNone() {
        cluster.createTopic("orders", 1);
        TidelineProducer producer = producer("enable.idempotence", "false");
        send(producer, TP0, "v0");
        assertTrue(cluster.initProducerIdRequests.isEmpty());
        assertEquals(-1, sentBatches(TP0).get(0).producerId());
        assertEquals(-1, sentBatches(TP0).get(0).baseSequence());
    }

    // ---------------------------------------------------------------- configuration (Kafka 4.4's rules)

    private static ProducerConfig config(String... keyValues) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", "h:1");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return new ProducerConfig(props);
    }

    @Test
    void idempotenceIsOnByDefaultWithFiveInFlight() {
        ProducerConfig c = config();
        assertTrue(c.idempotence());
        assertEquals(5, c.maxInFlightRequestsPerConnection());
    }

    @Test
    void moreThanFiveInFlightIsRefusedWithIdempotenceExplicitOrByDefault() {
        for (String[] props : List.of(new String[] {"max.in.flight.requests.per.connection", "6"},
                new String[] {"max.in.flight.requests.per.connection", "6", "enable.idempotence", "true"})) {
            ConfigException e = assertThrows(ConfigException.class, () -> config(props));
            assertEquals("max.in.flight.requests.per.connection", e.key());
            assertTrue(e.getMessage().contains("max.in.flight.requests.per.connection must be set to at most 5"),
                    e.getMessage());
        }
        assertFalse(config("max.in.flight.requests.per.connection", "6", "enable.idempotence", "false").idempotence());
        assertThrows(ConfigException.class, () -> config("max.in.flight.requests.per.connection", "0"));
    }

    @Test
    void acksOtherThanAllOrNoRetriesTurnTheDefaultOffAndAreRefusedWhenIdempotenceIsExplicit() {
        assertFalse(config("acks", "1").idempotence());
        assertFalse(config("acks", "0").idempotence());
        assertFalse(config("retries", "0").idempotence());
        assertTrue(config("acks", "-1").idempotence());
        ConfigException acks = assertThrows(ConfigException.class, () -> config("acks", "1", "enable.idempotence", "true"));
        assertEquals("acks", acks.key());
        assertTrue(acks.getMessage().contains("Must set acks to all"), acks.getMessage());
        ConfigException retries = assertThrows(ConfigException.class,
                () -> config("retries", "0", "enable.idempotence", "true"));
        assertEquals("retries", retries.key());
    }

    @Test
    void sequencesWrapAtIntegerMaxValueAsKafkas() {
        assertEquals(5, ProducerIdempotence.incrementSequence(0, 5));
        assertEquals(Integer.MAX_VALUE, ProducerIdempotence.incrementSequence(Integer.MAX_VALUE - 1, 1));
        assertEquals(0, ProducerIdempotence.incrementSequence(Integer.MAX_VALUE, 1));
        assertEquals(2, ProducerIdempotence.incrementSequence(Integer.MAX_VALUE - 2, 5));
    }
}
