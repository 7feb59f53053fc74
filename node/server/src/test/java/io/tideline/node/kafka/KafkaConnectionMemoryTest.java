package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tideline.common.time.MockTime;
import io.tideline.node.testutil.LogCapture;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Kafka connection's request memory and receive deadline (docs/behaviours.md B110, B111): bytes are charged as
 * they arrive, a request that is not received whole in time closes its connection (the injected clock decides),
 * and a connection holding the pool with a frame it does not finish does not keep another's request out.
 */
class KafkaConnectionMemoryTest {
    private static final int MAX_REQUEST_BYTES = 64 * 1024;
    private static final long RECEIVE_TIMEOUT_MS = 30_000;

    private final KafkaRequestMemoryPool memory = new KafkaRequestMemoryPool(MAX_REQUEST_BYTES);
    private final MockTime time = new MockTime();
    /** One listener's metrics, shared by its connections. */
    private final KafkaListenerMetrics metrics = new KafkaListenerMetrics(new MetricRegistry(), "PLAINTEXT");
    private final List<KafkaRequest> handled = new ArrayList<>();
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    /** Records each request and never answers, so that nothing but the test moves the connection on. */
    private record RecordingApi(ApiKeys key, List<KafkaRequest> handled) implements KafkaApi {
        @Override
        public short minVersion() {
            return 0;
        }

        @Override
        public short maxVersion() {
            return key.latestVersion();
        }

        @Override
        public CompletableFuture<? extends ApiMessage> handle(KafkaRequest request) {
            handled.add(request);
            return new CompletableFuture<>();
        }
    }

    private EmbeddedChannel open() {
        KafkaApis apis = new KafkaApis();
        apis.register(new RecordingApi(ApiKeys.LIST_GROUPS, handled));
        apis.register(new RecordingApi(ApiKeys.DESCRIBE_GROUPS, handled));
        EmbeddedChannel channel = new EmbeddedChannel(new KafkaConnection(apis, Runnable::run, memory,
                MAX_REQUEST_BYTES, 1, RECEIVE_TIMEOUT_MS, metrics, time));
        channel.freezeTime();
        channels.add(channel);
        return channel;
    }

    @AfterEach
    void close() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private static void send(EmbeddedChannel channel, byte[] bytes) {
        channel.writeInbound(Unpooled.wrappedBuffer(bytes));
        channel.runPendingTasks();
    }

    private static byte[] sizeField(int size) {
        return ByteBuffer.allocate(4).putInt(size).array();
    }

    /** Both clocks: the injected one decides, the embedded loop's wakes the check. */
    private void pass(long ms) {
        time.advance(ms);
        for (EmbeddedChannel c : channels) {
            c.advanceTimeBy(ms, TimeUnit.MILLISECONDS);
            c.runScheduledPendingTasks();
            c.runPendingTasks();
        }
    }

    @Test
    void aDeclaredSizeChargesNothingUntilItsBytesArrive() {
        EmbeddedChannel channel = open();
        send(channel, sizeField(MAX_REQUEST_BYTES));
        assertEquals(0, memory.used(), "a size field alone is not charged");
        send(channel, new byte[1]);
        assertEquals(IncomingFrame.FIRST_STEP, memory.used(), "the first byte costs the first step");
        send(channel, new byte[5_000]);
        assertEquals(2 * IncomingFrame.FIRST_STEP, memory.used(), "the array at least doubles");
        send(channel, new byte[20_000]);
        assertEquals(25_001, memory.used(), "or takes every byte already here");
        assertTrue(channel.isActive());
    }

    @Test
    void aRequestSentInSmallPiecesIsReadWholeAcrossSteps() {
        EmbeddedChannel channel = open();
        List<String> groups = IntStream.range(0, 2_000).mapToObj(i -> "group-" + i).collect(Collectors.toList());
        DescribeGroupsRequest request = new DescribeGroupsRequest.Builder(new DescribeGroupsRequestData()
                .setGroups(groups)).build((short) 5);
        byte[] frame = KafkaWire.frame(KafkaWire.request(request, 7));
        assertTrue(frame.length > 4 * IncomingFrame.FIRST_STEP, "spans several steps: " + frame.length);
        for (int at = 0; at < frame.length; at += 999) {
            send(channel, Arrays.copyOfRange(frame, at, Math.min(frame.length, at + 999)));
        }
        assertEquals(1, handled.size());
        assertEquals(groups, ((DescribeGroupsRequestData) handled.get(0).body()).groups());
        assertEquals(0, memory.used(), "handled: its bytes are given back");
    }

    @Test
    void aPeerThatTricklesItsRequestIsClosedAtTheReceiveTimeoutAndItsMemoryFreed() {
        EmbeddedChannel channel = open();
        try (LogCapture logs = new LogCapture()) {
            send(channel, sizeField(MAX_REQUEST_BYTES));
            for (long t = 1_000; t < RECEIVE_TIMEOUT_MS; t += 1_000) {
                pass(1_000);
                send(channel, new byte[1]);
                assertTrue(channel.isActive(), "still within the timeout at " + t + " ms");
            }
            pass(1_000);
            assertFalse(channel.isActive(), "a byte a second is not a request received in time");
            assertEquals(0, memory.used());
            assertTrue(handled.isEmpty());
            List<String> lines = logs.messagesOf(KafkaConnection.class);
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).contains("kafka.request.receive.timeout.ms"), lines.toString());
        }
    }

    @Test
    void aPeerThatSendsPartOfASizeFieldIsClosedAtTheReceiveTimeout() {
        EmbeddedChannel channel = open();
        send(channel, new byte[] {0, 1});
        pass(RECEIVE_TIMEOUT_MS - 1);
        assertTrue(channel.isActive());
        pass(1);
        assertFalse(channel.isActive());
    }

    @Test
    void timeSpentWaitingForMemoryDoesNotCountAgainstTheReceiveTimeout() {
        // Another request, received whole and not yet handled, holds the whole pool: its handler will free it.
        Object other = new Object();
        memory.acquire(other, memory.capacity(), () -> { });
        memory.frameEnded(other);
        EmbeddedChannel channel = open();
        byte[] frame = KafkaWire.frame(KafkaWire.request(listGroups(), 1));
        send(channel, Arrays.copyOf(frame, 10));
        assertEquals(1, memory.waitingCount(), "its first step waits for room");
        pass(2 * RECEIVE_TIMEOUT_MS);
        assertTrue(channel.isActive(), "waiting for the node is not the peer's delay");
        memory.release(memory.capacity());
        channel.runPendingTasks();
        pass(RECEIVE_TIMEOUT_MS - 1);
        send(channel, Arrays.copyOfRange(frame, 10, frame.length));
        assertEquals(1, handled.size());
        assertTrue(channel.isActive());
    }

    @Test
    void aSmallRequestGetsThroughWhileAnotherConnectionHoldsThePoolWithAFrameItDoesNotFinish() {
        EmbeddedChannel hog = open();
        send(hog, sizeField(MAX_REQUEST_BYTES));
        send(hog, new byte[MAX_REQUEST_BYTES - 1]);
        assertEquals(MAX_REQUEST_BYTES - 1, memory.used(), "all but one byte of the pool, and of its frame");

        EmbeddedChannel client = open();
        send(client, KafkaWire.frame(KafkaWire.request(listGroups(), 1)));
        assertEquals(1, handled.size(), "let past the pool: nothing held would ever free room");
        assertEquals(1, memory.overdraftCount());

        pass(RECEIVE_TIMEOUT_MS);
        assertFalse(hog.isActive());
        assertTrue(client.isActive());
        assertEquals(0, memory.used());
    }

    private static ListGroupsRequest listGroups() {
        return new ListGroupsRequest(new ListGroupsRequestData(), (short) 3);
    }
}
