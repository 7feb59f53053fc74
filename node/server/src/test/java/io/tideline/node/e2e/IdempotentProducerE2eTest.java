package io.tideline.node.e2e;

import static io.tideline.node.e2e.E2e.bytes;
import static io.tideline.node.e2e.E2e.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.tideline.client.ChannelFactory;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.client.TidelineProducer;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.InitProducerIdRequest;
import io.tideline.proto.client.InitProducerIdResponse;
import io.tideline.proto.client.ProduceResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Tideline producer's idempotence against real nodes: lost Produce answers are retried and every record is
 * in the log exactly once and in order, with five batches in flight, across the death of the partition leader;
 * InitProducerId gives different producers different ids and bumps an epoch.
 */
class IdempotentProducerE2eTest {
    private static final String TOPIC = "ledger";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int RECORDS = 400;

    @TempDir
    Path dir;

    /**
     * Loses every {@code every}-th successful Produce answer on its way back, after the leader wrote and
     * acknowledged the batch (the client sees UNAVAILABLE, as after a dropped connection), up to {@code limit}
     * times; counts the Produce calls in flight.
     */
    private static final class LostAnswers implements ClientInterceptor {
        final int every;
        final int limit;
        final AtomicInteger successes = new AtomicInteger();
        final AtomicInteger lost = new AtomicInteger();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();

        LostAnswers(int every, int limit) {
            this.every = every;
            this.limit = limit;
        }

        private boolean loseThis(Object answer) {
            boolean success = answer instanceof ProduceResponse r && r.getPartitionsCount() > 0
                    && r.getPartitionsList().stream().allMatch(p -> p.getErrorCode() == Errors.NONE.code());
            if (!success || successes.incrementAndGet() % every != 0) {
                return false;
            }
            return lost.getAndUpdate(n -> n < limit ? n + 1 : n) < limit;
        }

        @Override
        public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
            ClientCall<Q, A> call = next.newCall(method, options);
            if (!method.equals(ClientServiceGrpc.getProduceMethod())) {
                return call;
            }
            return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
                @Override
                public void start(Listener<A> listener, Metadata headers) {
                    maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    // The client counts a batch as answered on the message, before the call closes.
                    AtomicBoolean answered = new AtomicBoolean();
                    AtomicBoolean dropped = new AtomicBoolean();
                    super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                        @Override
                        public void onMessage(A message) {
                            if (loseThis(message)) {
                                dropped.set(true);
                                return;
                            }
                            if (answered.compareAndSet(false, true)) {
                                inFlight.decrementAndGet();
                            }
                            super.onMessage(message);
                        }

                        @Override
                        public void onClose(Status status, Metadata trailers) {
                            if (answered.compareAndSet(false, true)) {
                                inFlight.decrementAndGet();
                            }
                            super.onClose(dropped.get() ? Status.UNAVAILABLE.withDescription("answer lost by the test")
                                    : status, dropped.get() ? new Metadata() : trailers);
                        }
                    }, headers);
                }
            };
        }
    }

    private static ChannelFactory losing(LostAnswers interceptor) {
        ChannelFactory plain = ChannelFactory.plaintext();
        return new ChannelFactory() {
            @Override
            public ManagedChannel create(String host, int port) {
                return wrap(plain.create(host, port));
            }

            @Override
            public ManagedChannel create(String host, int port, long connectTimeoutMs) {
                return wrap(plain.create(host, port, connectTimeoutMs));
            }

            private ManagedChannel wrap(ManagedChannel channel) {
                Channel intercepted = ClientInterceptors.intercept(channel, interceptor);
                return new ManagedChannel() {
                    @Override
                    public ManagedChannel shutdown() {
                        return channel.shutdown();
                    }

                    @Override
                    public boolean isShutdown() {
                        return channel.isShutdown();
                    }

                    @Override
                    public boolean isTerminated() {
                        return channel.isTerminated();
                    }

                    @Override
                    public ManagedChannel shutdownNow() {
                        return channel.shutdownNow();
                    }

                    @Override
                    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
                        return channel.awaitTermination(timeout, unit);
                    }

                    @Override
                    public <Q, A> ClientCall<Q, A> newCall(MethodDescriptor<Q, A> method, CallOptions options) {
                        return intercepted.newCall(method, options);
                    }

                    @Override
                    public String authority() {
                        return channel.authority();
                    }
                };
            }
        };
    }

    private static List<String> readAll(NodeTestCluster cluster, int expected) {
        List<String> values = new ArrayList<>();
        try (TidelineConsumer consumer = new TidelineConsumer(E2e.clientConfig(cluster,
                Map.of("auto.offset.reset", "earliest")))) {
            consumer.assign(List.of(TP));
            consumer.seekToBeginning(List.of(TP));
            Awaitility.await("every record read back").atMost(E2e.WAIT).until(() -> {
                for (ConsumerRecord r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(string(r.value()));
                }
                return values.size() >= expected && consumer.position(TP) >= consumer.endOffsets(List.of(TP)).get(TP);
            });
        }
        return values;
    }

    @Test
    void lostAnswersAreRetriedAndTheLogHoldsEachRecordOnceInOrderAcrossALeaderDeath() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of()).startAll();
             TidelineAdmin admin = new TidelineAdmin(E2e.clientConfig(cluster, Map.of()))) {
            int leader = E2e.createTopic(cluster, admin, TOPIC, 1, 3, Map.of("min.insync.replicas", "2"))
                    .get(0).leader();
            LostAnswers lostAnswers = new LostAnswers(3, 60);
            List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
            AtomicInteger lostBeforeKill = new AtomicInteger();
            try (TidelineProducer producer = new TidelineProducer(E2e.clientConfig(cluster, Map.of(
                    "linger.ms", 0, "batch.size", 60, "max.in.flight.requests.per.connection", 5)),
                    io.tideline.common.time.Time.SYSTEM, losing(lostAnswers))) {
                for (int i = 0; i < RECORDS; i++) {
                    futures.add(producer.send(new ProducerRecord(TOPIC, 0, null, bytes("r" + i))));
                    if (i == RECORDS / 2) {
                        Awaitility.await("half acknowledged").atMost(E2e.WAIT)
                                .until(() -> futures.stream().filter(CompletableFuture::isDone).count() > RECORDS / 4);
                        lostBeforeKill.set(lostAnswers.lost.get());
                        cluster.kill(leader);
                    }
                }
                producer.flush();
            }
            long previous = -1;
            for (int i = 0; i < RECORDS; i++) {
                long offset = futures.get(i).join().offset();
                assertTrue(offset > previous, "record " + i + " at " + offset + " after " + previous);
                previous = offset;
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                expected.add("r" + i);
            }
            assertEquals(expected, readAll(cluster, RECORDS), "each record once, in the order sent");
            assertTrue(lostBeforeKill.get() >= 3 && lostAnswers.lost.get() > lostBeforeKill.get(),
                    "answers lost before the leader died " + lostBeforeKill.get() + ", in all " + lostAnswers.lost.get());
            int most = lostAnswers.maxInFlight.get();
            assertTrue(most > 1 && most <= 5, "Produce requests of the one partition in flight at once: " + most);
        }
    }

    @Test
    void producersGetDifferentIdsFromAnyBrokerAndAnEpochBumpKeepsTheId() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 2, Map.of()).startAll()) {
            Set<Long> ids = new HashSet<>();
            for (int node = 1; node <= 2; node++) {
                for (int i = 0; i < 3; i++) {
                    InitProducerIdResponse r = cluster.client(node).initProducerId(InitProducerIdRequest.newBuilder()
                            .setProducerId(-1).setProducerEpoch(-1).build());
                    assertEquals(Errors.NONE.code(), r.getErrorCode());
                    assertEquals(0, r.getProducerEpoch());
                    assertTrue(r.getProducerId() >= 0);
                    assertTrue(ids.add(r.getProducerId()), "id " + r.getProducerId() + " handed out twice");
                }
            }
            long id = ids.iterator().next();
            InitProducerIdResponse bumped = cluster.client(2).initProducerId(InitProducerIdRequest.newBuilder()
                    .setProducerId(id).setProducerEpoch(4).build());
            assertEquals(id, bumped.getProducerId());
            assertEquals(5, bumped.getProducerEpoch());
            InitProducerIdResponse transactional = cluster.client(1).initProducerId(InitProducerIdRequest.newBuilder()
                    .setProducerId(-1).setProducerEpoch(-1).setTransactionalId("tx-1").build());
            assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code(), transactional.getErrorCode());
            long nextBlock = cluster.node(1).image().nextProducerId();
            assertNotEquals(0, nextBlock);
            assertTrue(ids.stream().allMatch(i -> i < nextBlock), "every id below the committed next block " + nextBlock);
        }
    }
}
