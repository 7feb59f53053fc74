package io.tideline.replication.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ServerCalls;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.proto.replication.FetchPartition;
import io.tideline.proto.replication.FetchedPartition;
import io.tideline.proto.replication.ReplicaFetchRequest;
import io.tideline.proto.replication.ReplicaFetchResponse;
import io.tideline.proto.replication.ReplicaFetchServiceGrpc;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.server.FailedReplicaReporter;
import io.tideline.replication.server.LeaderAndIsr;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica fetch endpoint's own checks, over in-process gRPC to a real leader (broker 1 leading
 * orders-0 with replicas [1, 2]; broker 2 exists only as the id these requests carry), and the follower's side of
 * it, {@link GrpcLeaderEndpoint}: fetches on one stream, answered by correlation id, and unary calls to a leader
 * that has no stream.
 */
class ReplicaFetchGrpcServiceTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private LogManager logManager;
    private ReplicaManager replicaManager;
    private Server server;
    private ManagedChannel channel;
    /** Calls the leader's server started, by method name (Fetch, FetchStream). */
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final ServerInterceptor counting = new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                           ServerCallHandler<Q, R> next) {
            calls.computeIfAbsent(call.getMethodDescriptor().getBareMethodName(), k -> new AtomicInteger())
                    .incrementAndGet();
            return next.startCall(call, headers);
        }
    };

    @BeforeEach
    void startLeader() throws Exception {
        logManager = new LogManager(StoreConfig.fromMap(Map.of("log.dirs", dir.toString())), "test", 1, time, scheduler,
                new MetricRegistry(), new Random(1));
        logManager.startup();
        replicaManager = new ReplicaManager(1, ReplicationConfig.fromMap(Map.of()), logManager, time, scheduler,
                (tp, topicId, epoch, proposal) -> new CompletableFuture<>(), FailedReplicaReporter.NONE,
                id -> Optional.empty(), new MetricRegistry());
        replicaManager.startup();
        replicaManager.applyPartitionState(new LeaderAndIsr(TP, "id-orders", 1, 0, 0, List.of(1, 2), List.of(1, 2)),
                PartitionSettings.defaults());
        RecordBatchBuilder batch = new RecordBatchBuilder(0L);
        for (int i = 0; i < 3; i++) {
            batch.append(time.milliseconds(), "k", "v" + i);
        }
        replicaManager.appendRecords(Map.of(TP, MemoryRecords.of(batch.build())), 1, 1000).get();
        String name = "fetch-service-" + UUID.randomUUID();
        server = InProcessServerBuilder.forName(name).directExecutor()
                .addService(new ReplicaFetchGrpcService(replicaManager)).intercept(counting).build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow();
        server.shutdownNow();
        replicaManager.close();
        logManager.close();
    }

    @Test
    void malformedPartitionsAreRefusedOneByOneAndTheRestIsAnswered() {
        ReplicaFetchRequest request = request(2, 1, 1024 * 1024, 0,
                partition("orders", 0, 0, 1024),
                partition("orders", 1, -1, 1024),
                partition("", 0, 0, 1024),
                partition("orders", -1, 0, 1024),
                partition("orders", 2, 0, 0),
                partition("orders", 0, 2, 1024));

        ReplicaFetchResponse response = blocking().fetch(request);

        assertEquals(0, response.getErrorCode());
        assertEquals(6, response.getPartitionsCount());
        List<FetchedPartition> answered = response.getPartitionsList().stream()
                .filter(p -> p.getErrorCode() == Errors.NONE.code()).toList();
        assertEquals(1, answered.size(), response.toString());
        FetchedPartition valid = answered.get(0);
        assertEquals("orders", valid.getTopic());
        assertEquals(0, valid.getPartition());
        assertEquals(3, valid.getLogEndOffset());
        assertEquals(3, MemoryRecords.readableRecords(valid.getRecords().asReadOnlyByteBuffer()).records().size());

        List<FetchedPartition> refused = response.getPartitionsList().stream().filter(p -> p != valid).toList();
        for (FetchedPartition p : refused) {
            // Had one of them reached the replica manager, it would say NOT_LEADER_OR_FOLLOWER for a
            // partition not hosted here, or record the follower at offset 2 for the repeat.
            assertEquals(Errors.INVALID_REQUEST.code(), p.getErrorCode(), p.toString());
            assertEquals(-1, p.getHighWatermark());
            assertEquals(-1, p.getLogStartOffset());
            assertEquals(-1, p.getLogEndOffset());
            assertTrue(p.getRecords().isEmpty());
            assertFalse(p.getErrorMessage().isEmpty());
        }
        assertEquals(0, followerLogEndOnLeader(2), "only the first orders-0 entry reached the leader");
    }

    @Test
    void badRequestLevelFieldsRefuseEveryPartitionWithoutWaiting() {
        List<ReplicaFetchRequest> bad = List.of(
                request(-1, 1, 1024, 0, partition("orders", 0, 0, 1024)),
                request(2, -1, 1024, 0, partition("orders", 0, 0, 1024)),
                request(2, 1, 0, 0, partition("orders", 0, 0, 1024)),
                request(2, 1, 1024, -5, partition("orders", 0, 0, 1024), partition("orders", 1, 0, 1024)));
        for (ReplicaFetchRequest request : bad) {
            ReplicaFetchResponse response = blocking().fetch(request);
            assertEquals(request.getPartitionsCount(), response.getPartitionsCount());
            for (FetchedPartition p : response.getPartitionsList()) {
                assertEquals(Errors.INVALID_REQUEST.code(), p.getErrorCode(), request + " -> " + p);
            }
        }
        assertEquals(-1, followerLogEndOnLeader(2), "no fetch reached the leader");
    }

    @Test
    void aFollowerCannotParkAFetchLongerThanTheLeadersCap() throws Exception {
        // At the log end, knowing the high watermark it moves to, min.bytes out of reach: only the wait ends it.
        FetchPartition atTheEnd = partition("orders", 0, 3, 1024).toBuilder().setHighWatermark(3).build();
        ListenableFuture<ReplicaFetchResponse> answer = ReplicaFetchServiceGrpc.newFutureStub(channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .fetch(request(2, Integer.MAX_VALUE, 1024, Integer.MAX_VALUE, atTheEnd));
        time.advance(ReplicaFetchGrpcService.MAX_WAIT_CAP_MS - 1);
        assertFalse(answer.isDone());
        time.advance(1);
        ReplicaFetchResponse response = answer.get(5, TimeUnit.SECONDS);
        assertEquals(Errors.NONE.code(), response.getPartitions(0).getErrorCode());
        assertTrue(response.getPartitions(0).getRecords().isEmpty());
        assertEquals(3, followerLogEndOnLeader(2));
    }

    @Test
    void aFetchSentAheadIsRecordedAtWhatTheFollowerAppendedAndAnImpossibleOneIsRefused() {
        // Reads from 2 while it still appends what it fetched before: it has written nothing yet.
        FetchPartition ahead = partition("orders", 0, 2, 1024).toBuilder().setLogEndOffset(0).build();
        FetchedPartition answered = blocking().fetch(request(2, 1, 1024, 0, ahead)).getPartitions(0);
        assertEquals(Errors.NONE.code(), answered.getErrorCode(), answered.toString());
        assertFalse(answered.getRecords().isEmpty());
        assertEquals(0, followerLogEndOnLeader(2), "the leader counts what the follower wrote, not where it reads");

        for (long logEnd : new long[] {3, -1}) {
            FetchPartition impossible = partition("orders", 0, 2, 1024).toBuilder().setLogEndOffset(logEnd).build();
            FetchedPartition refused = blocking().fetch(request(2, 1, 1024, 0, impossible)).getPartitions(0);
            assertEquals(Errors.INVALID_REQUEST.code(), refused.getErrorCode(), "log_end_offset " + logEnd);
        }
        assertEquals(0, followerLogEndOnLeader(2));
    }

    /** At the log end, knowing the high watermark, min.bytes out of reach: parked until maxWaitMs passes. */
    private static FollowerFetch parked() {
        return new FollowerFetch(TP, 0, 3, -1, 0, 3, 1024);
    }

    private static FollowerFetch fromTheStart() {
        return new FollowerFetch(TP, 0, 0, -1, 0, 0, 1024);
    }

    private int started(String method) {
        AtomicInteger n = calls.get(method);
        return n == null ? 0 : n.get();
    }

    @Test
    void onTheStreamAParkedFetchHoldsBackNoOtherAndEachAnswerFindsItsFetch() throws Exception {
        GrpcLeaderEndpoint endpoint = new GrpcLeaderEndpoint(channel, 1L);
        CompletableFuture<Map<TopicPartition, FetchResponseData>> waiting =
                endpoint.fetch(2, List.of(parked()), Integer.MAX_VALUE, 1024, 10_000);
        Map<TopicPartition, FetchResponseData> immediate =
                endpoint.fetch(2, List.of(fromTheStart()), 1, 1024, 10_000).get(5, TimeUnit.SECONDS);
        assertEquals(3, immediate.get(TP).records().records().size(), "sent after the parked one, answered first");
        assertFalse(waiting.isDone());

        time.advance(10_000);
        FetchResponseData late = waiting.get(5, TimeUnit.SECONDS).get(TP);
        assertEquals(Errors.NONE, late.error());
        assertEquals(0, late.records().sizeInBytes(), "the parked fetch got its own (empty) answer");
        assertEquals(1, started("FetchStream"), "both on one stream");
        assertEquals(0, started("Fetch"));
        endpoint.close();
    }

    @Test
    void aFetchGivenUpOnEndsItsStreamAndTheNextFetchOpensANewOne() throws Exception {
        GrpcLeaderEndpoint endpoint = new GrpcLeaderEndpoint(channel, 1L);
        CompletableFuture<Map<TopicPartition, FetchResponseData>> abandoned =
                endpoint.fetch(2, List.of(parked()), Integer.MAX_VALUE, 1024, 10_000);
        CompletableFuture<Map<TopicPartition, FetchResponseData>> behind =
                endpoint.fetch(2, List.of(parked()), Integer.MAX_VALUE, 1024, 10_000);
        // What the fetcher thread does when its timeout passes: the link may be dead, so the stream goes.
        abandoned.cancel(false);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> behind.get(5, TimeUnit.SECONDS));
        assertEquals(Status.Code.CANCELLED, Status.fromThrowable(failed.getCause()).getCode(), failed.toString());

        Map<TopicPartition, FetchResponseData> next =
                endpoint.fetch(2, List.of(fromTheStart()), 1, 1024, 10_000).get(5, TimeUnit.SECONDS);
        assertEquals(3, next.get(TP).records().records().size());
        assertEquals(2, started("FetchStream"));
        endpoint.close();
    }

    @Test
    void aLeaderWithoutTheStreamIsFetchedFromWithOneCallPerFetch() throws Exception {
        // A node of a release before FetchStream: its service has only Fetch, and gRPC answers UNIMPLEMENTED.
        ReplicaFetchGrpcService service = new ReplicaFetchGrpcService(replicaManager);
        ServerServiceDefinition unaryOnly = ServerServiceDefinition.builder(ReplicaFetchServiceGrpc.SERVICE_NAME)
                .addMethod(ReplicaFetchServiceGrpc.getFetchMethod(), ServerCalls.asyncUnaryCall(service::fetch)).build();
        String name = "unary-only-" + UUID.randomUUID();
        Server old = InProcessServerBuilder.forName(name).directExecutor().addService(unaryOnly).build().start();
        // Counted where they are sent: a server does not intercept a method it does not know.
        Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();
        ManagedChannel toOld = InProcessChannelBuilder.forName(name).directExecutor().intercept(new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
                sent.computeIfAbsent(method.getBareMethodName(), k -> new AtomicInteger()).incrementAndGet();
                return next.newCall(method, options);
            }
        }).build();
        try {
            GrpcLeaderEndpoint endpoint = new GrpcLeaderEndpoint(toOld, 1L);
            for (int i = 0; i < 2; i++) {
                Map<TopicPartition, FetchResponseData> answer =
                        endpoint.fetch(2, List.of(fromTheStart()), 1, 1024, 10_000).get(5, TimeUnit.SECONDS);
                assertEquals(3, answer.get(TP).records().records().size());
            }
            assertEquals(2, sent.get("Fetch").get(), "each fetch its own call");
            assertEquals(1, sent.get("FetchStream").get(), "tried once, not again");
        } finally {
            toOld.shutdownNow();
            old.shutdownNow();
        }
    }

    private ReplicaFetchServiceGrpc.ReplicaFetchServiceBlockingStub blocking() {
        // Every answer here is immediate: a request that parked would never be answered on the mock clock.
        return ReplicaFetchServiceGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
    }

    private long followerLogEndOnLeader(int replicaId) {
        return replicaManager.partition(TP).orElseThrow()
                .withLeaderState(s -> s.follower(replicaId).orElseThrow().logEndOffset()).orElseThrow();
    }

    private static ReplicaFetchRequest request(int replicaId, int minBytes, int maxBytes, int maxWaitMs,
                                               FetchPartition... partitions) {
        return ReplicaFetchRequest.newBuilder().setReplicaId(replicaId).setBrokerEpoch(1).setMinBytes(minBytes)
                .setMaxBytes(maxBytes).setMaxWaitMs(maxWaitMs).addAllPartitions(List.of(partitions)).build();
    }

    private static FetchPartition partition(String topic, int partition, long fetchOffset, int maxBytes) {
        return FetchPartition.newBuilder().setTopic(topic).setPartition(partition).setCurrentLeaderEpoch(0)
                .setFetchOffset(fetchOffset).setLastFetchedEpoch(-1).setLogStartOffset(0).setHighWatermark(0)
                .setPartitionMaxBytes(maxBytes).build();
    }
}
