package io.tideline.node.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.tideline.common.time.MockTime;
import io.tideline.node.testutil.LogCapture;
import io.tideline.store.segment.FileRecords;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@link KafkaConnection} on an embedded channel, with APIs whose answers the test completes: order, the
 * memory pool, null answers, failed futures, versions not served, and stored slices as file regions.
 */
class KafkaConnectionTest {
    private static final short LIST_GROUPS_V3 = 3;

    @TempDir
    Path dir;

    private final List<CompletableFuture<ApiMessage>> pending = new ArrayList<>();
    private final List<KafkaRequest> handled = new ArrayList<>();
    private final KafkaRequestMemoryPool memory = new KafkaRequestMemoryPool(1 << 20);
    private final MetricRegistry registry = new MetricRegistry();
    private final MockTime time = new MockTime();
    /** The request handler threads: at once unless a test queues the work to run it later. */
    private Executor handlers = Runnable::run;
    private EmbeddedChannel channel;

    /** An API that records each request and answers with a future the test completes. */
    private record TestApi(ApiKeys key, short minVersion, short maxVersion,
                           Function<KafkaRequest, CompletableFuture<ApiMessage>> answer) implements KafkaApi {
        @Override
        public CompletableFuture<? extends ApiMessage> handle(KafkaRequest request) {
            return answer.apply(request);
        }
    }

    private CompletableFuture<ApiMessage> deferred(KafkaRequest request) {
        handled.add(request);
        CompletableFuture<ApiMessage> f = new CompletableFuture<>();
        pending.add(f);
        return f;
    }

    private static final long MAX_IDLE_MS = 60_000;
    private static final long RECEIVE_TIMEOUT_MS = 30_000;
    private static final int NODE_ID = 1;
    private static final String CLUSTER_ID = "test-cluster-id";

    private void open(KafkaApi... extra) {
        openAllowing(1, extra);
    }

    /** {@code maxInFlight}: kafka.max.in.flight.requests.per.connection. */
    private void openAllowing(int maxInFlight, KafkaApi... extra) {
        KafkaApis apis = new KafkaApis();
        apis.register(new ApiVersionsApi(apis, NODE_ID, CLUSTER_ID));
        for (KafkaApi api : extra) {
            apis.register(api);
        }
        channel = new EmbeddedChannel(new IdleStateHandler(0, 0, MAX_IDLE_MS, TimeUnit.MILLISECONDS),
                new KafkaConnection(apis, handlers, memory, 64 * 1024, maxInFlight, RECEIVE_TIMEOUT_MS,
                        new KafkaListenerMetrics(registry, "PLAINTEXT"), time));
        // The embedded loop's clock stands still from here until the test moves it.
        channel.freezeTime();
    }

    private void idleFor(long ms) {
        time.advance(ms);
        channel.advanceTimeBy(ms, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();
    }

    @Test
    void anIdleConnectionIsClosedButNotOneWithARequestInProgress() {
        openWithListGroups();
        idleFor(MAX_IDLE_MS - 1);
        assertTrue(channel.isActive());
        ListGroupsRequest request = listGroups(LIST_GROUPS_V3);
        send(request, 1);
        idleFor(2 * MAX_IDLE_MS);
        assertTrue(channel.isActive(), "the node owes an answer: not idle");
        complete(0, new ListGroupsResponseData());
        assertEquals(Errors.NONE, errorOf(answer(request, 1)));
        idleFor(MAX_IDLE_MS + 1);
        assertFalse(channel.isActive(), "idle between requests for connections.max.idle.ms");
    }

    @Test
    void aPeerThatStopsInTheMiddleOfARequestIsClosedAndItsMemoryFreed() {
        openWithListGroups();
        byte[] whole = KafkaWire.frame(KafkaWire.request(listGroups(LIST_GROUPS_V3), 1));
        try (LogCapture logs = new LogCapture()) {
            channel.writeInbound(Unpooled.wrappedBuffer(whole, 0, whole.length - 1));
            channel.runPendingTasks();
            assertEquals(whole.length - 4, memory.used());
            idleFor(MAX_IDLE_MS + 1);
            assertFalse(channel.isActive());
            assertEquals(0, memory.used());
            assertTrue(handled.isEmpty());
            assertEquals(1, logs.messagesOf(KafkaConnection.class).size(), logs.messagesOf(KafkaConnection.class).toString());
        }
    }

    private void openWithListGroups() {
        open(new TestApi(ApiKeys.LIST_GROUPS, (short) 0, LIST_GROUPS_V3, this::deferred));
    }

    @AfterEach
    void close() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    private static ListGroupsRequest listGroups(short version) {
        return new ListGroupsRequest(new ListGroupsRequestData(), version);
    }

    private void send(AbstractRequest request, int correlationId) {
        channel.writeInbound(Unpooled.wrappedBuffer(KafkaWire.frame(KafkaWire.request(request, correlationId))));
        channel.runPendingTasks();
    }

    /** The next answer, one buffer, parsed for {@code request} and checked for its correlation id. */
    private AbstractResponse answer(AbstractRequest request, int correlationId) {
        ByteBuf out = channel.readOutbound();
        try {
            ByteBuffer b = out.nioBuffer();
            assertEquals(b.remaining() - 4, b.getInt());
            return AbstractResponse.parseResponse(b, KafkaWire.headerOf(request, correlationId));
        } finally {
            out.release();
        }
    }

    private static Errors errorOf(AbstractResponse response) {
        return Errors.forCode(((ListGroupsResponse) response).data().errorCode());
    }

    private void complete(int index, ApiMessage response) {
        pending.get(index).complete(response);
        channel.runPendingTasks();
    }

    /** Sends {@code count} ListGroups requests with correlation ids 1..count in one write. */
    private ListGroupsRequest pipelined(int count) {
        ListGroupsRequest request = listGroups(LIST_GROUPS_V3);
        byte[] all = new byte[0];
        for (int id = 1; id <= count; id++) {
            all = KafkaWire.concat(all, KafkaWire.frame(KafkaWire.request(request, id)));
        }
        channel.writeInbound(Unpooled.wrappedBuffer(all));
        channel.runPendingTasks();
        return request;
    }

    @Test
    void pipelinedRequestsAreHandledInOrderUpToTheBoundAndAnsweredInOrder() {
        openAllowing(3, new TestApi(ApiKeys.LIST_GROUPS, (short) 0, LIST_GROUPS_V3, this::deferred));
        ListGroupsRequest request = pipelined(5);
        assertEquals(List.of(1, 2, 3), handled.stream().map(r -> r.header().correlationId()).toList(),
                "three may be unanswered; the fourth waits, unread");
        assertFalse(channel.config().isAutoRead());
        assertEquals(0, memory.used(), "handled requests hold no request bytes");

        // The third is answered first: it waits for the two before it.
        complete(2, new ListGroupsResponseData().setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code()));
        assertNull(channel.readOutbound());
        assertEquals(3, handled.size(), "still three unanswered");

        complete(0, new ListGroupsResponseData());
        assertEquals(Errors.NONE, errorOf(answer(request, 1)));
        assertNull(channel.readOutbound(), "the second is not known yet, so the third stays back");
        assertEquals(List.of(1, 2, 3, 4), handled.stream().map(r -> r.header().correlationId()).toList(),
                "one written, one more read");

        complete(1, new ListGroupsResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()));
        assertEquals(Errors.NOT_COORDINATOR, errorOf(answer(request, 2)));
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, errorOf(answer(request, 3)));
        assertEquals(5, handled.size());

        complete(4, new ListGroupsResponseData());
        complete(3, new ListGroupsResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()));
        assertEquals(Errors.NOT_COORDINATOR, errorOf(answer(request, 4)));
        assertEquals(Errors.NONE, errorOf(answer(request, 5)));
        assertNull(channel.readOutbound());
        assertTrue(channel.config().isAutoRead(), "reading again once nothing is buffered");
    }

    @Test
    void eachAnsweredRequestsTimeIsSplitIntoKafkasPhases() {
        List<Runnable> queued = new ArrayList<>();
        handlers = queued::add;
        openAllowing(2, new TestApi(ApiKeys.LIST_GROUPS, (short) 0, LIST_GROUPS_V3, r -> {
            time.advance(3); // the API's own work on the handler thread: local time
            return deferred(r);
        }));
        ListGroupsRequest request = pipelined(2);
        time.advance(2);
        runQueued(queued); // the first: 2 ms in the queue, handled by 5
        time.advance(1);
        runQueued(queued); // the second, read at 5: 1 ms in the queue, handled by 9
        time.advance(4);
        complete(1, new ListGroupsResponseData()); // the second known at 13, and waiting for the first
        time.advance(10);
        complete(0, new ListGroupsResponseData()); // the first known at 23
        assertEquals(Errors.NONE, errorOf(answer(request, 1)));
        assertEquals(Errors.NONE, errorOf(answer(request, 2)));

        assertEquals(List.of(1L, 2L), phase("RequestQueueTimeMs"));
        assertEquals(List.of(3L, 3L), phase("LocalTimeMs"));
        assertEquals(List.of(4L, 18L), phase("RemoteTimeMs"), "known 18 ms after the first was handled, 4 after the second");
        assertEquals(List.of(0L, 10L), phase("ResponseQueueTimeMs"), "the second waited 10 ms behind the first");
        assertEquals(List.of(0L, 0L), phase("ResponseSendTimeMs"));
        assertEquals(List.of(18L, 23L), phase("TotalTimeMs"));
    }

    /** Runs what the handler threads were given, then what they handed back to the event loop. */
    private void runQueued(List<Runnable> queued) {
        List<Runnable> now = new ArrayList<>(queued);
        queued.clear();
        now.forEach(Runnable::run);
        channel.runPendingTasks();
    }

    /** The values of one phase's ListGroups histogram, smallest first. */
    private List<Long> phase(String name) {
        long[] values = registry.histogram(KafkaRequestTimes.PREFIX + name + ",request=ListGroups").getSnapshot()
                .getValues();
        return java.util.Arrays.stream(values).boxed().toList();
    }

    @Test
    void anAnswerKnownEarlyAndApiVersionsWaitBehindAnUnansweredRequest() {
        openAllowing(5, new TestApi(ApiKeys.LIST_GROUPS, (short) 0, LIST_GROUPS_V3, this::deferred));
        ListGroupsRequest request = listGroups(LIST_GROUPS_V3);
        ListGroupsRequest unsupported = listGroups((short) 4);
        channel.writeInbound(Unpooled.wrappedBuffer(KafkaWire.concat(KafkaWire.frame(KafkaWire.request(request, 1)),
                KafkaWire.frame(KafkaWire.request(unsupported, 2)))));
        channel.runPendingTasks();
        assertNull(channel.readOutbound(), "the UNSUPPORTED_VERSION answer is known at once, and waits for the first");
        complete(0, new ListGroupsResponseData());
        assertEquals(Errors.NONE, errorOf(answer(request, 1)));
        assertEquals(Errors.UNSUPPORTED_VERSION, errorOf(answer(unsupported, 2)));
    }

    @Test
    void aBadFrameBehindUnansweredRequestsClosesOnlyOnceTheyAreAnswered() {
        openAllowing(3, new TestApi(ApiKeys.LIST_GROUPS, (short) 0, LIST_GROUPS_V3, this::deferred));
        ListGroupsRequest request = listGroups(LIST_GROUPS_V3);
        byte[] garbage = KafkaWire.frame(new byte[] {(byte) 0xAB, (byte) 0xAB, (byte) 0xAB, (byte) 0xAB, 0, 0, 0, 1});
        try (LogCapture logs = new LogCapture()) {
            channel.writeInbound(Unpooled.wrappedBuffer(KafkaWire.concat(
                    KafkaWire.frame(KafkaWire.request(request, 1)), KafkaWire.frame(KafkaWire.request(request, 2)),
                    garbage, KafkaWire.frame(KafkaWire.request(request, 3)))));
            channel.runPendingTasks();
            assertEquals(List.of(1, 2), handled.stream().map(r -> r.header().correlationId()).toList(),
                    "nothing behind the bad frame is read");
            assertEquals(1, logs.messagesOf(KafkaConnection.class).size(), logs.messagesOf(KafkaConnection.class).toString());
            assertTrue(channel.isActive(), "two answers are owed");
            assertFalse(channel.config().isAutoRead());
            assertEquals(0, memory.used());

            complete(1, new ListGroupsResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()));
            assertNull(channel.readOutbound(), "in order: the first is not known yet");
            assertTrue(channel.isActive());
            complete(0, new ListGroupsResponseData());
            assertEquals(Errors.NONE, errorOf(answer(request, 1)));
            assertEquals(Errors.NOT_COORDINATOR, errorOf(answer(request, 2)));
            assertFalse(channel.isActive(), "closed once nothing is owed");
            assertEquals(2, handled.size());
            assertEquals(1, logs.messagesOf(KafkaConnection.class).size(), "still the one line");
        }
    }

    @Test
    void aBadFrameWithNothingOwedClosesAtOnce() {
        openWithListGroups();
        try (LogCapture logs = new LogCapture()) {
            channel.writeInbound(Unpooled.wrappedBuffer(KafkaWire.frame(new byte[] {0, 3, 0})));
            channel.runPendingTasks();
            assertFalse(channel.isActive());
            assertEquals(1, logs.messagesOf(KafkaConnection.class).size(), logs.messagesOf(KafkaConnection.class).toString());
        }
    }

    @Test
    void closingWithAnswersUnwrittenGivesTheirSlicesBack() throws Exception {
        openAllowing(2, new TestApi(ApiKeys.LIST_GROUPS, (short) 0, LIST_GROUPS_V3, this::deferred),
                new TestApi(ApiKeys.FETCH, (short) 4, (short) 12, this::deferred));
        FileRecords file = storedBytes(new byte[100]);
        SliceRecords slice = new SliceRecords(file.slice(0, 100));
        file.close();
        send(listGroups(LIST_GROUPS_V3), 1);
        send(fetch(), 2);
        complete(1, fetchAnswer(slice));
        assertTrue(file.isOpen(), "the Fetch answer waits behind the first, holding its slice");
        channel.close();
        channel.runPendingTasks();
        assertFalse(file.isOpen(), "closed with the connection");
        complete(0, new ListGroupsResponseData());
        assertNull(channel.readOutbound());
    }

    @Test
    void requestsAreAnsweredOneAtATimeInOrder() {
        openWithListGroups();
        ListGroupsRequest request = listGroups(LIST_GROUPS_V3);
        byte[] two = KafkaWire.concat(KafkaWire.frame(KafkaWire.request(request, 1)),
                KafkaWire.frame(KafkaWire.request(request, 2)));
        channel.writeInbound(Unpooled.wrappedBuffer(two));
        channel.runPendingTasks();
        // The second request waits in the buffer until the first is answered.
        assertEquals(1, handled.size());
        assertFalse(channel.config().isAutoRead(), "reading is off while a request is in flight");
        assertEquals(0, memory.used(), "the request's bytes are given back once its handler returned");

        complete(0, new ListGroupsResponseData().setErrorCode(Errors.NONE.code()));
        assertEquals(Errors.NONE, errorOf(answer(request, 1)));
        assertEquals(2, handled.size());
        assertEquals(2, handled.get(1).header().correlationId());
        assertNull(channel.readOutbound());

        complete(1, new ListGroupsResponseData().setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code()));
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, errorOf(answer(request, 2)));
        assertTrue(channel.config().isAutoRead(), "reading again once nothing is in flight");
    }

    @Test
    void aNullAnswerSendsNothingAndTheNextRequestIsRead() {
        openWithListGroups();
        ListGroupsRequest request = listGroups(LIST_GROUPS_V3);
        send(request, 1);
        complete(0, null);
        assertNull(channel.readOutbound());
        send(request, 2);
        assertEquals(2, handled.size());
        assertTrue(channel.isActive());
    }

    @Test
    void aFailedFutureIsAnsweredWithTheApisErrorResponse() {
        openWithListGroups();
        ListGroupsRequest request = listGroups(LIST_GROUPS_V3);
        try (LogCapture logs = new LogCapture()) {
            send(request, 1);
            pending.get(0).completeExceptionally(new CoordinatorNotAvailableException("not yet"));
            channel.runPendingTasks();
            assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, errorOf(answer(request, 1)));
            assertEquals(List.of(), logs.errors(), "a Kafka ApiException is an answer, not a server error");

            send(request, 2);
            pending.get(1).completeExceptionally(new IllegalStateException("bug"));
            channel.runPendingTasks();
            assertEquals(Errors.UNKNOWN_SERVER_ERROR, errorOf(answer(request, 2)));
            assertEquals(1, logs.errors().size(), logs.errors().toString());
        }
    }

    @Test
    void anApiThatThrowsIsAnsweredWithUnknownServerError() {
        open(new TestApi(ApiKeys.LIST_GROUPS, (short) 0, LIST_GROUPS_V3, r -> {
            throw new IllegalArgumentException("thrown, not a failed future");
        }));
        ListGroupsRequest request = listGroups(LIST_GROUPS_V3);
        try (LogCapture logs = new LogCapture()) {
            send(request, 1);
            assertEquals(Errors.UNKNOWN_SERVER_ERROR, errorOf(answer(request, 1)));
            assertEquals(1, logs.errors().size());
        }
        assertEquals(0, memory.used());
    }

    private ApiVersionsResponseData apiVersionsV5(Integer nodeId, String clusterId, int correlationId) {
        ApiVersionsRequestData data = new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1");
        if (nodeId != null) {
            data.setNodeId(nodeId).setClusterId(clusterId);
        }
        ApiVersionsRequest request = new ApiVersionsRequest(data, (short) 5);
        send(request, correlationId);
        return ((ApiVersionsResponse) answer(request, correlationId)).data();
    }

    @Test
    void apiVersionsV5ChecksTheClusterAndNodeTheClientMeans() {
        open();
        assertEquals(Errors.NONE.code(), apiVersionsV5(null, null, 1).errorCode(), "no ids: nothing to check");
        ApiVersionsResponseData here = apiVersionsV5(NODE_ID, CLUSTER_ID, 2);
        assertEquals(Errors.NONE.code(), here.errorCode());
        assertEquals(5, here.apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion());
        assertEquals(Errors.REBOOTSTRAP_REQUIRED.code(), apiVersionsV5(NODE_ID + 1, CLUSTER_ID, 3).errorCode(),
                "another node's id");
        assertEquals(Errors.REBOOTSTRAP_REQUIRED.code(), apiVersionsV5(NODE_ID, "another-cluster", 4).errorCode(),
                "another cluster's id");
    }

    @Test
    void aServedKeyAtAVersionNotServedGetsUnsupportedVersion() {
        openWithListGroups();
        ListGroupsRequest v4 = listGroups((short) 4);
        send(v4, 9);
        assertEquals(Errors.UNSUPPORTED_VERSION, errorOf(answer(v4, 9)));
        assertTrue(handled.isEmpty(), "the API never sees a version it does not serve");
        assertTrue(channel.isActive());
    }

    @Test
    void aRequestWaitsForRoomInTheRequestMemoryPool() {
        openWithListGroups();
        long capacity = memory.capacity();
        // A request received whole and not yet handled holds the pool: its handler will free it.
        Object other = new Object();
        memory.acquire(other, capacity, () -> { });
        memory.frameEnded(other);
        ListGroupsRequest request = listGroups(LIST_GROUPS_V3);
        send(request, 1);
        assertTrue(handled.isEmpty(), "no room: the request is not read");
        assertEquals(1, memory.waitingCount());
        memory.release(capacity);
        channel.runPendingTasks();
        assertEquals(1, handled.size());
        assertEquals(0, memory.used());
    }

    private FileRecords storedBytes(byte[] content) throws Exception {
        Path file = dir.resolve("00000000000000000000.log");
        Files.write(file, content);
        return FileRecords.open(file);
    }

    private static FetchRequest fetch() {
        return new FetchRequest(new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1)
                .setTopics(new ArrayList<>(List.of(new FetchRequestData.FetchTopic().setTopic("t")
                        .setPartitions(new ArrayList<>(List.of(new FetchRequestData.FetchPartition()
                                .setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1024))))))), (short) 12);
    }

    private static FetchResponseData fetchAnswer(SliceRecords records) {
        return new FetchResponseData().setResponses(new ArrayList<>(List.of(new FetchResponseData.FetchableTopicResponse()
                .setTopic("t").setPartitions(new ArrayList<>(List.of(new FetchResponseData.PartitionData()
                        .setPartitionIndex(0).setHighWatermark(5).setRecords(records)))))));
    }

    @Test
    void storedSlicesGoOutAsFileRegionsBetweenBuffersAndAreClosedOnceSent() throws Exception {
        open(new TestApi(ApiKeys.FETCH, (short) 4, (short) 12, this::deferred));
        byte[] stored = new byte[300];
        for (int i = 0; i < stored.length; i++) {
            stored[i] = (byte) i;
        }
        FileRecords file = storedBytes(stored);
        SliceRecords slice = new SliceRecords(file.slice(0, stored.length));
        file.close();
        FetchRequest request = fetch();
        send(request, 3);
        complete(0, fetchAnswer(slice));

        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        List<String> kinds = new ArrayList<>();
        Object part;
        while ((part = channel.readOutbound()) != null) {
            kinds.add(part instanceof ByteBuf ? "buffer" : part.getClass().getSimpleName());
            if (part instanceof ByteBuf b) {
                byte[] bytes = new byte[b.readableBytes()];
                b.readBytes(bytes);
                wire.write(bytes);
                b.release();
            } else {
                SliceRegion region = assertInstanceOf(SliceRegion.class, part);
                long sent = 0;
                while (sent < region.count()) {
                    sent += region.transferTo(Channels.newChannel(wire), sent);
                }
                assertTrue(file.isOpen(), "open while being sent");
                region.release();
            }
        }
        assertEquals(List.of("buffer", "SliceRegion", "buffer"), kinds);
        ByteBuffer frame = ByteBuffer.wrap(wire.toByteArray());
        assertEquals(frame.remaining() - 4, frame.getInt());
        FetchResponse parsed = (FetchResponse) AbstractResponse.parseResponse(frame, KafkaWire.headerOf(request, 3));
        FetchResponseData.PartitionData p = parsed.data().responses().get(0).partitions().get(0);
        ByteBuffer records = ((org.apache.kafka.common.record.internal.MemoryRecords) p.records()).buffer();
        byte[] got = new byte[records.remaining()];
        records.get(got);
        assertArrayEquals(stored, got, "the stored bytes, unchanged");
        assertFalse(file.isOpen(), "the slice let go of the segment file once sent");
    }

    @Test
    void aSliceOfAnAnswerThatCanNoLongerBeSentIsClosed() throws Exception {
        open(new TestApi(ApiKeys.FETCH, (short) 4, (short) 12, this::deferred));
        FileRecords file = storedBytes(new byte[64]);
        SliceRecords slice = new SliceRecords(file.slice(0, 64));
        file.close();
        send(fetch(), 3);
        channel.close();
        channel.runPendingTasks();
        assertTrue(file.isOpen(), "the test holds a slice");
        complete(0, fetchAnswer(slice));
        assertFalse(file.isOpen(), "the unsent slice let go of the segment file");
    }
}
