package io.tideline.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.internals.Murmur2;
import io.tideline.common.TopicPartition;
import io.tideline.common.config.ConfigException;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockTime;
import io.tideline.common.time.Time;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TidelineProducerTest {
    private static final Duration BOUND = Duration.ofSeconds(10);
    private static final TopicPartition TP0 = new TopicPartition("orders", 0);

    private final FakeCluster cluster = new FakeCluster("producer-test-" + System.nanoTime(), 2);
    private final List<TidelineProducer> producers = new ArrayList<>();

    @AfterEach
    void tearDown() {
        producers.forEach(p -> p.close(Duration.ofSeconds(5)));
        cluster.close();
    }

    private TidelineProducer producer(Time time, Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", cluster.bootstrap());
        props.put("retry.backoff.ms", "10");
        // These tests pin the producer without idempotence (one request per partition in flight, several batches
        // in it); IdempotentProducerTest covers the default.
        props.put("enable.idempotence", "false");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        TidelineProducer producer = new TidelineProducer(props, time, cluster.channels());
        producers.add(producer);
        return producer;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> values(List<Record> records) {
        return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
    }

    private static int recordsIn(ProduceRequest request) {
        return request.getPartitionsList().stream().mapToInt(p -> MemoryRecords.readableRecords(
                p.getRecords().asReadOnlyByteBuffer()).records().size()).sum();
    }

    @Test
    void recordsLingerUntilLingerMsAndThenTravelAsOneBatch() {
        cluster.createTopic("orders", 1);
        MockTime time = new MockTime();
        time.addListener(now -> producers.forEach(TidelineProducer::wakeup));
        TidelineProducer producer = producer(time, "linger.ms", "1000", "delivery.timeout.ms", "60000");

        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            futures.add(producer.send(new ProducerRecord("orders", 0, null, bytes("v" + i))));
        }
        await().during(Duration.ofMillis(300)).atMost(BOUND).until(() -> cluster.produceRequests.isEmpty());

        time.advance(1000);
        await().atMost(BOUND).until(() -> futures.stream().allMatch(CompletableFuture::isDone));
        assertEquals(1, cluster.produceRequests.size());
        assertEquals(3, recordsIn(cluster.produceRequests.get(0).request()));
        for (int i = 0; i < 3; i++) {
            assertEquals(new RecordMetadata("orders", 0, i, time.milliseconds() - 1000), futures.get(i).join());
        }
    }

    @Test
    void aFullBatchIsSentWithoutWaitingForLinger() {
        cluster.createTopic("orders", 1);
        MockTime time = new MockTime();
        // Each 40-byte value is estimated at 72 bytes plus the 61-byte batch header: two fit in 250 bytes.
        TidelineProducer producer = producer(time, "linger.ms", "3600000", "batch.size", "250",
                "delivery.timeout.ms", "7200000");
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            futures.add(producer.send(new ProducerRecord("orders", 0, null, new byte[40])));
        }
        await().atMost(BOUND).until(() -> futures.get(0).isDone() && futures.get(1).isDone());
        assertEquals(2, recordsIn(cluster.produceRequests.get(0).request()));
        await().during(Duration.ofMillis(200)).atMost(BOUND).until(() -> !futures.get(2).isDone());
        assertEquals(1, cluster.produceRequests.size());

        producer.flush();
        assertEquals(2L, futures.get(2).join().offset());
    }

    @Test
    void notLeaderRefreshesMetadataAndRetriesOnTheNewLeader() {
        cluster.createTopic("orders", 1);
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "0");
        assertEquals(0L, producer.send(new ProducerRecord("orders", 0, null, bytes("a"))).join().offset());
        assertEquals(1, cluster.leader(TP0));

        cluster.moveLeader(TP0, 2);
        int metadataBefore = cluster.metadataRequests.size();
        RecordMetadata moved = producer.send(new ProducerRecord("orders", 0, null, bytes("b"))).join();

        assertEquals(1L, moved.offset());
        assertEquals(List.of("a", "b"), values(cluster.records(TP0)));
        assertTrue(cluster.produceRequests.stream().anyMatch(r -> r.brokerId() == 1 && recordsIn(r.request()) == 1
                && r != cluster.produceRequests.get(0)), "the stale leader was tried first");
        assertEquals(2, cluster.produceRequests.get(cluster.produceRequests.size() - 1).brokerId());
        assertTrue(cluster.metadataRequests.size() > metadataBefore, "metadata was refreshed");
    }

    @Test
    void recordsOfAPartitionKeepTheirOrderAcrossRetries() {
        cluster.createTopic("orders", 1);
        AtomicInteger failuresLeft = new AtomicInteger(3);
        cluster.produceHook = (broker, p) -> failuresLeft.getAndDecrement() > 0 ? Errors.NOT_ENOUGH_REPLICAS
                : Errors.NONE;
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "0", "batch.size", "300");
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            sent.add("r" + i);
            futures.add(producer.send(new ProducerRecord("orders", 0, null, bytes("r" + i))));
        }
        producer.flush();

        assertEquals(sent, values(cluster.records(TP0)));
        for (int i = 0; i < 50; i++) {
            assertEquals(i, futures.get(i).join().offset());
        }
        assertTrue(cluster.produceRequests.size() > 3);
    }

    @Test
    void aRetriableErrorPastDeliveryTimeoutFailsTheRecordsWithRequestTimedOut() {
        cluster.createTopic("orders", 1);
        cluster.produceHook = (broker, p) -> Errors.NOT_ENOUGH_REPLICAS;
        MockTime time = new MockTime();
        time.addListener(now -> producers.forEach(TidelineProducer::wakeup));
        TidelineProducer producer = producer(time, "linger.ms", "0", "retry.backoff.ms", "100",
                "request.timeout.ms", "1000", "delivery.timeout.ms", "2000");
        CompletableFuture<RecordMetadata> future = producer.send(new ProducerRecord("orders", 0, null, bytes("x")));
        await().atMost(BOUND).until(() -> !cluster.produceRequests.isEmpty());
        assertFalse(future.isDone());

        time.advance(2000);
        await().atMost(BOUND).until(future::isDone);
        CompletionException e = assertThrows(CompletionException.class, future::join);
        TidelineClientException cause = assertInstanceOf(TidelineClientException.class, e.getCause());
        assertEquals(Errors.REQUEST_TIMED_OUT, cause.error());
        assertTrue(cause.getMessage().contains("NOT_ENOUGH_REPLICAS"), cause.getMessage());
        assertTrue(cluster.records(TP0).isEmpty());
    }

    @Test
    void aNonRetriableErrorFailsTheRecordsWithTheBrokersErrorAtOnce() {
        cluster.createTopic("orders", 1);
        cluster.produceHook = (broker, p) -> Errors.INVALID_RECORD;
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "0");
        CompletableFuture<RecordMetadata> future = producer.send(new ProducerRecord("orders", 0, null, bytes("x")));

        CompletionException e = assertThrows(CompletionException.class, future::join);
        assertEquals(Errors.INVALID_RECORD, assertInstanceOf(TidelineClientException.class, e.getCause()).error());
        assertEquals(1, cluster.produceRequests.size());
    }

    @Test
    void retriesStopAfterTheConfiguredCount() {
        cluster.createTopic("orders", 1);
        cluster.produceHook = (broker, p) -> Errors.NOT_ENOUGH_REPLICAS;
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "0", "retries", "2");
        CompletableFuture<RecordMetadata> future = producer.send(new ProducerRecord("orders", 0, null, bytes("x")));

        CompletionException e = assertThrows(CompletionException.class, future::join);
        assertEquals(Errors.NOT_ENOUGH_REPLICAS, assertInstanceOf(TidelineClientException.class, e.getCause()).error());
        assertEquals(3, cluster.produceRequests.size(), "one attempt and two retries");
    }

    @Test
    void keyedRecordsGoToTheMurmur2Partition() {
        cluster.createTopic("orders", 3);
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "0");
        for (String key : List.of("foobar", "21", "abc", "a-little-bit-long-string")) {
            RecordMetadata m = producer.send(new ProducerRecord("orders", bytes(key), bytes("v"))).join();
            assertEquals((Murmur2.hash(bytes(key)) & 0x7fffffff) % 3, m.partition(), key);
        }
        assertEquals(3, producer.partitionCount("orders"));
    }

    @Test
    void keylessRecordsFillOnePartitionsBatchAndMoveOnWithTheNextBatch() {
        cluster.createTopic("orders", 3);
        TidelineProducer lingering = producer(Time.SYSTEM, "linger.ms", "60000");
        List<CompletableFuture<RecordMetadata>> together = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            together.add(lingering.send(new ProducerRecord("orders", bytes("v" + i))));
        }
        lingering.flush();
        assertEquals(1, together.stream().map(f -> f.join().partition()).distinct().count());

        TidelineProducer eager = producer(Time.SYSTEM, "linger.ms", "0");
        java.util.Set<Integer> partitions = new java.util.HashSet<>();
        for (int i = 0; i < 3; i++) {
            partitions.add(eager.send(new ProducerRecord("orders", bytes("w" + i))).join().partition());
        }
        assertEquals(java.util.Set.of(0, 1, 2), partitions, "each new batch moved to the next partition");
    }

    @Test
    void unknownTopicAndPartitionFailTheFutureWithUnknownTopicOrPartition() {
        cluster.createTopic("orders", 1);
        TidelineProducer producer = producer(Time.SYSTEM, "max.block.ms", "50");

        CompletionException noTopic = assertThrows(CompletionException.class,
                () -> producer.send(new ProducerRecord("missing", bytes("v"))).join());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                assertInstanceOf(TidelineClientException.class, noTopic.getCause()).error());
        CompletionException noPartition = assertThrows(CompletionException.class,
                () -> producer.send(new ProducerRecord("orders", 5, null, bytes("v"))).join());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                assertInstanceOf(TidelineClientException.class, noPartition.getCause()).error());
        assertTrue(noPartition.getCause().getMessage().contains("[0, 1)"), noPartition.getCause().getMessage());
    }

    @Test
    void aRecordLargerThanMaxRequestSizeFailsWithRecordTooLargeWithoutBeingSent() {
        cluster.createTopic("orders", 1);
        TidelineProducer producer = producer(Time.SYSTEM, "max.request.size", "1000");
        CompletionException e = assertThrows(CompletionException.class,
                () -> producer.send(new ProducerRecord("orders", 0, null, new byte[2000])).join());
        assertEquals(Errors.MESSAGE_TOO_LARGE, assertInstanceOf(TidelineClientException.class, e.getCause()).error());
        assertTrue(cluster.produceRequests.isEmpty());
    }

    @Test
    void acksZeroCompletesWithoutAnOffset() {
        cluster.createTopic("orders", 1);
        TidelineProducer producer = producer(Time.SYSTEM, "acks", "0", "linger.ms", "0");
        assertEquals(-1L, producer.send(new ProducerRecord("orders", 0, null, bytes("x"))).join().offset());
        producer.flush();
        await().atMost(BOUND).until(() -> cluster.records(TP0).size() == 1);
        assertEquals(0, cluster.produceRequests.get(0).request().getAcks());
    }

    @Test
    void closeSendsWhatIsQueuedAndSendAfterCloseIsRefused() {
        cluster.createTopic("orders", 1);
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "60000", "delivery.timeout.ms", "120000");
        CompletableFuture<RecordMetadata> future = producer.send(new ProducerRecord("orders", 0, null, bytes("x")));
        producer.close();
        assertEquals(0L, future.join().offset());
        assertThrows(IllegalStateException.class, () -> producer.send(new ProducerRecord("orders", bytes("y"))));
    }

    @Test
    void closeReturnsOnlyOnceEveryRecordsCallbackHasRun() {
        cluster.createTopic("orders", 1);
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "60000", "delivery.timeout.ms", "120000");
        AtomicInteger called = new AtomicInteger();
        int records = 20;
        for (int i = 0; i < records; i++) {
            producer.send(new ProducerRecord("orders", 0, null, bytes("v" + i))).whenComplete((metadata, error) -> {
                // A slow callback, as a tool's statistics can be: close() must wait for it, as Kafka's does.
                LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
                called.incrementAndGet();
            });
        }
        producer.close();
        // A tool prints its totals after close() (perf produce): every callback has run by then.
        assertEquals(records, called.get(), "callbacks run before close() returned");
    }

    @Test
    void whileARequestIsInFlightTheNextOneGathersEveryReadyBatchOfThePartitionInOrder() {
        cluster.createTopic("orders", 1);
        cluster.produceGate = new CompletableFuture<>();
        // Two 40-byte records per 250-byte batch; the first request holds the first batch only.
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "0", "batch.size", "250");
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        futures.add(producer.send(new ProducerRecord("orders", 0, null, bytes("v0"))));
        await().atMost(BOUND).until(() -> cluster.produceRequests.size() == 1);
        for (int i = 1; i <= 8; i++) {
            futures.add(producer.send(new ProducerRecord("orders", 0, null, bytes("v" + i))));
        }
        await().during(Duration.ofMillis(200)).atMost(BOUND).until(() -> cluster.produceRequests.size() == 1);

        cluster.produceGate.complete(null);
        await().atMost(BOUND).until(() -> futures.stream().allMatch(CompletableFuture::isDone));
        assertEquals(2, cluster.produceRequests.size(), "the eight records waiting went in one request");
        MemoryRecords second = MemoryRecords.readableRecords(cluster.produceRequests.get(1).request().getPartitions(0)
                .getRecords().asReadOnlyByteBuffer());
        assertTrue(second.batches().size() >= 2, "several batches of one partition in one request");
        for (int i = 0; i <= 8; i++) {
            assertEquals(i, futures.get(i).join().offset(), "record " + i);
        }
        assertEquals(List.of("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"), values(cluster.records(TP0)));
    }

    @Test
    void batchesRetriedTogetherKeepTheirOrderAheadOfLaterRecords() {
        cluster.createTopic("orders", 1);
        cluster.produceGate = new CompletableFuture<>();
        AtomicInteger refusals = new AtomicInteger(1);
        cluster.produceHook = (broker, p) -> MemoryRecords.readableRecords(p.getRecords().asReadOnlyByteBuffer())
                .batches().size() > 1 && refusals.getAndDecrement() > 0 ? Errors.NOT_ENOUGH_REPLICAS : Errors.NONE;
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "0", "batch.size", "250");
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        futures.add(producer.send(new ProducerRecord("orders", 0, null, bytes("v0"))));
        await().atMost(BOUND).until(() -> cluster.produceRequests.size() == 1);
        for (int i = 1; i <= 6; i++) {
            futures.add(producer.send(new ProducerRecord("orders", 0, null, bytes("v" + i))));
        }
        cluster.produceGate.complete(null);
        // The multi-batch request is refused once; its batches go back ahead of anything sent meanwhile.
        await().atMost(BOUND).until(() -> refusals.get() < 0 || cluster.produceRequests.size() >= 3);
        for (int i = 7; i <= 9; i++) {
            futures.add(producer.send(new ProducerRecord("orders", 0, null, bytes("v" + i))));
        }
        producer.flush();
        for (int i = 0; i <= 9; i++) {
            assertEquals(i, futures.get(i).join().offset(), "record " + i);
        }
        assertEquals(List.of("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"), values(cluster.records(TP0)));
    }

    @Test
    void aFullBufferBlocksSendUntilAnswersFreeRoom() throws Exception {
        cluster.createTopic("orders", 1);
        cluster.produceGate = new CompletableFuture<>();
        // Each 100-byte value takes 132 bytes of the buffer: three fit in 400.
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "0", "buffer.memory", "400",
                "max.block.ms", "30000");
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            futures.add(producer.send(new ProducerRecord("orders", 0, null, new byte[100])));
        }
        CompletableFuture<CompletableFuture<RecordMetadata>> fourth = CompletableFuture.supplyAsync(
                () -> producer.send(new ProducerRecord("orders", 0, null, new byte[100])));
        await().during(Duration.ofMillis(300)).atMost(BOUND).until(() -> !fourth.isDone());

        cluster.produceGate.complete(null);
        CompletableFuture<RecordMetadata> sent = fourth.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(3L, sent.get(10, java.util.concurrent.TimeUnit.SECONDS).offset());
        for (int i = 0; i < 3; i++) {
            assertEquals(i, futures.get(i).join().offset());
        }
    }

    @Test
    void aBufferFullForMaxBlockMsFailsTheRecordWithoutSendingIt() {
        cluster.createTopic("orders", 1);
        cluster.produceGate = new CompletableFuture<>();
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "0", "buffer.memory", "400",
                "max.block.ms", "200");
        for (int i = 0; i < 3; i++) {
            producer.send(new ProducerRecord("orders", 0, null, new byte[100]));
        }
        long start = System.nanoTime();
        CompletableFuture<RecordMetadata> refused = producer.send(new ProducerRecord("orders", 0, null, new byte[100]));
        long blockedMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(blockedMs >= 150, "send() blocked for max.block.ms, not " + blockedMs + " ms");
        TidelineClientException e = assertInstanceOf(TidelineClientException.class,
                assertThrows(CompletionException.class, refused::join).getCause());
        assertEquals(Errors.REQUEST_TIMED_OUT, e.error());
        assertTrue(e.getMessage().contains("buffer.memory"), e.getMessage());

        cluster.produceGate.complete(null);
        producer.flush();
        assertEquals(3, cluster.records(TP0).size(), "the refused record never went out");
    }

    @Test
    void aRecordLargerThanTheWholeBufferIsRefusedAtOnce() {
        cluster.createTopic("orders", 1);
        TidelineProducer producer = producer(Time.SYSTEM, "buffer.memory", "1000");
        TidelineClientException e = assertInstanceOf(TidelineClientException.class, assertThrows(
                CompletionException.class, producer.send(new ProducerRecord("orders", 0, null, new byte[2000]))::join)
                .getCause());
        assertEquals(Errors.MESSAGE_TOO_LARGE, e.error());
        assertTrue(e.getMessage().contains("buffer.memory"), e.getMessage());
    }

    @Test
    void theCallerMayReuseItsArraysOnceSendReturns() {
        cluster.createTopic("orders", 1);
        TidelineProducer producer = producer(Time.SYSTEM, "linger.ms", "60000", "delivery.timeout.ms", "120000");
        byte[] value = bytes("first");
        producer.send(new ProducerRecord("orders", 0, null, value));
        System.arraycopy(bytes("later"), 0, value, 0, value.length);
        producer.send(new ProducerRecord("orders", 0, null, value));
        producer.flush();
        assertEquals(List.of("first", "later"), values(cluster.records(TP0)));
    }

    @Test
    void badSettingsAreRefusedNamingTheKey() {
        Map<String, Object> tooShort = Map.of("bootstrap.servers", "h:1", "delivery.timeout.ms", "100");
        ConfigException e = assertThrows(ConfigException.class, () -> new ProducerConfig(tooShort));
        assertTrue(e.getMessage().contains("delivery.timeout.ms"), e.getMessage());
        assertThrows(ConfigException.class, () -> new ProducerConfig(Map.of("bootstrap.servers", "nohostport")));
        assertThrows(ConfigException.class, () -> new ProducerConfig(Map.of("bootstrap.servers", "h:1",
                "acks", "2")));
        assertEquals(-1, new ProducerConfig(Map.of("bootstrap.servers", "h:1,[::1]:9092")).acks());
    }
}
