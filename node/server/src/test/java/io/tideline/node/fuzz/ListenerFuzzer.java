package io.tideline.node.fuzz;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.tideline.common.TopicPartition;
import io.tideline.node.api.ApiTestSupport;
import io.tideline.proto.admin.AdminServiceGrpc;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.CreateTopicsResponse;
import io.tideline.replication.server.Partition;
import java.time.Duration;
import org.awaitility.Awaitility;
import io.tideline.node.kafka.KafkaApi;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import io.tideline.proto.admin.DeleteTopicsRequest;
import io.tideline.proto.admin.NewTopic;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.MetadataRequest;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Runs the listener fuzzer against node 1 of a {@link NodeTestCluster} (docs/testing.md, "The listener fuzzer";
 * docs/behaviours.md B160-B162). Each step draws, from a {@link Random} of its own seeded by (run seed, step), one
 * request for either listener: a Kafka frame for a key and version the node serves ({@link KafkaFrames}) or a gRPC
 * call to a method of the client, admin or replication service ({@link GrpcMessages}). After it: a health request
 * on each listener must be answered within the health bound, and every partition's log must have changed only as
 * the {@link LogOracle} allows. A failure names the seed and step, the request (its bytes in hex) and the rerun.
 *
 * <p>Not thread-safe: one run at a time.
 */
final class ListenerFuzzer implements AutoCloseable {
    /** How a run is set up. {@code keepGoing}: record a failure and go on (while the node stays healthy). */
    record Settings(long seed, long firstStep, long requests, int answerWaitMs, int healthBoundMs,
                    boolean keepGoing, PrintStream log) {
    }

    /** What a run did. */
    static final class Tally {
        long kafka;
        long grpc;
        long noAnswer;
        long closedByNode;
        long fixturesRecreated;
        long maxHealthMs;
        /** Milliseconds spent sending and waiting for answers, in health checks, in the oracle, tidying topics. */
        long sendMs;
        long healthMs;
        long oracleMs;
        long tidyMs;
        final Map<String, Long> perApi = new TreeMap<>();
        final List<String> failures = new ArrayList<>();

        long sent() {
            return kafka + grpc;
        }

        @Override
        public String toString() {
            return "sent " + sent() + " (Kafka " + kafka + ", gRPC " + grpc + "), unanswered within the wait "
                    + noAnswer + ", connections closed by the node " + closedByNode + ", fixture topics recreated "
                    + fixturesRecreated + ", slowest health check " + maxHealthMs + " ms, ms spent sending " + sendMs
                    + " / in health checks " + healthMs + " / in the oracle " + oracleMs + " / tidying " + tidyMs
                    + ", failures " + failures.size();
        }
    }

    private final NodeTestCluster cluster;
    private final Map<String, Integer> fixtures;
    private final ManagedChannel channel;
    private final List<GrpcTarget.Method> methods = GrpcTarget.methods();
    private final Set<String> topicsDeleted = new HashSet<>();
    private Socket health;

    /** {@code fixtures}: topic name to partition count, created on node 1 (RF 1) before the run. */
    ListenerFuzzer(NodeTestCluster cluster, Map<String, Integer> fixtures) {
        this.cluster = cluster;
        this.fixtures = new TreeMap<>(fixtures);
        this.channel = NettyChannelBuilder.forAddress("127.0.0.1", cluster.clientPort(1)).usePlaintext()
                .maxInboundMessageSize(TidelineNode.MAX_MESSAGE_BYTES).build();
    }

    /**
     * Step {@code step}'s own generator: SplitMix64's finaliser over (seed, step), since {@code new Random(n)} for
     * neighbouring n starts with nearly the same values (every step would pick the same listener).
     */
    static Random stepRandom(long seed, long step) {
        long z = seed + (step + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return new Random(z ^ (z >>> 31));
    }

    /** The tally of the run in progress (or the last one), for a report when the run is stopped from outside. */
    private volatile Tally current = new Tally();

    Tally current() {
        return current;
    }

    Tally run(Settings s) throws Exception {
        Tally tally = new Tally();
        current = tally;
        TidelineNode node = cluster.node(1);
        List<KafkaApi> served = new ArrayList<>(node.kafkaApis().orElseThrow().all().values());
        s.log().println("listener fuzzer: seed " + s.seed() + ", steps " + s.firstStep() + ".."
                + (s.firstStep() + s.requests() - 1) + ", Kafka APIs served " + served.size() + ", gRPC methods "
                + methods.size());
        long started = System.nanoTime();
        try (KafkaTarget kafka = new KafkaTarget(node.kafkaPort().orElseThrow(), s.answerWaitMs(), node::image,
                node.kafkaApis().orElseThrow()); ErrorLogOracle errorLog = new ErrorLogOracle()) {
            GrpcTarget grpc = new GrpcTarget(channel, s.answerWaitMs());
            LogOracle.Permits carried = new LogOracle.Permits();
            int unhealthyInARow = 0;
            for (long step = s.firstStep(); step < s.firstStep() + s.requests(); step++) {
                Random random = stepRandom(s.seed(), step);
                FuzzValues values = new FuzzValues(random, topicPool(), topicIds(node));
                awaitPublished(node);
                Map<TopicPartition, LogOracle.Offsets> before = LogOracle.snapshot(node);
                long sendStart = System.nanoTime();
                StepResult r = random.nextBoolean()
                        ? kafkaStep(kafka, served, values, s, tally) : grpcStep(grpc, values, s, tally);
                tally.sendMs += (System.nanoTime() - sendStart) / 1_000_000;
                List<String> problems = new ArrayList<>();
                if (r.untypedError() != null) {
                    problems.add(r.untypedError());
                }
                long t0 = System.nanoTime();
                String unhealthy = healthProblem(s.healthBoundMs());
                long healthTook = (System.nanoTime() - t0) / 1_000_000;
                tally.maxHealthMs = Math.max(tally.maxHealthMs, healthTook);
                tally.healthMs += healthTook;
                long oracleStart = System.nanoTime();
                if (unhealthy != null) {
                    problems.add(unhealthy);
                }
                errorLog.drain().forEach(line -> problems.add("the node logged at ERROR: " + line));
                r.afterHealthCheck().run();
                LogOracle.Permits permits = new LogOracle.Permits();
                permits.addAll(r.permits());
                permits.addAll(carried);
                topicsDeleted.addAll(r.permits().topicsDeleted());
                awaitPublished(node);
                Map<TopicPartition, LogOracle.Offsets> after = LogOracle.snapshot(node);
                List<String> changes = LogOracle.violations(before, after, permits,
                        topicsInImage(node, before, after, permits.topicsDeleted()),
                        fixtures.keySet(), topicsDeleted);
                problems.addAll(changes);
                tally.oracleMs += (System.nanoTime() - oracleStart) / 1_000_000;
                if (!problems.isEmpty()) {
                    String report = failure(s, step, r, problems, before, after);
                    s.log().println(report);
                    tally.failures.add(report);
                    unhealthyInARow = unhealthy == null ? 0 : unhealthyInARow + 1;
                    if (!s.keepGoing() || unhealthyInARow >= 3) {
                        break; // with keepGoing, a node that failed three health checks in a row is gone
                    }
                } else {
                    unhealthyInARow = 0;
                }
                // An unanswered write may still land: its permits hold for the next step as well.
                carried = r.answered() ? new LogOracle.Permits() : r.permits();
                long tidyStart = System.nanoTime();
                tidyTopics(node, tally);
                tally.tidyMs += (System.nanoTime() - tidyStart) / 1_000_000;
                if ((step - s.firstStep() + 1) % 500 == 0) {
                    s.log().printf("listener fuzzer: %d steps in %d s: %s%n", step - s.firstStep() + 1,
                            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), tally);
                }
            }
        } finally {
            closeHealth();
        }
        s.log().printf("listener fuzzer: seed %d done in %d s: %s%n", s.seed(),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), tally);
        return tally;
    }

    /**
     * The topics in the node's image, once it has dropped every topic whose logs are gone: a broker deletes the
     * logs of a deleted topic while it applies the deletion, before it publishes the image without it, so the
     * image may trail the logs by that long (bounded here by 10 s).
     */
    private Set<String> topicsInImage(TidelineNode node, Map<TopicPartition, LogOracle.Offsets> before,
                                      Map<TopicPartition, LogOracle.Offsets> after, Set<String> deletedNow) {
        Set<String> vanished = new HashSet<>();
        before.keySet().stream().filter(tp -> !after.containsKey(tp)).forEach(tp -> vanished.add(tp.topic()));
        vanished.removeAll(topicsDeleted);
        vanished.removeAll(deletedNow);
        if (!vanished.isEmpty()) {
            try {
                Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                        .until(() -> vanished.stream().noneMatch(node.image().topics().keySet()::contains));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                // the oracle reports the partition that disappeared with its topic still in the image
            }
        }
        return node.image().topics().keySet();
    }

    /**
     * Waits (up to 30 s) until the node has published every metadata entry its quorum member had applied when
     * called. The publisher acts on a committed entry (creating or deleting logs) after the request that wrote it
     * was answered, and under a delta of hundreds of partitions that takes seconds: without this wait a log
     * change lands steps later and reads as the change of whatever request was sent then.
     */
    private static void awaitPublished(TidelineNode node) {
        long applied = node.quorum().map(q -> q.image().offset()).orElse(0L);
        try {
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                    .until(() -> node.image().offset() >= applied);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // the oracle then compares what it finds, and reports any change nothing permitted
        }
    }

    /** One step's request and what it got; {@code afterHealthCheck} releases what the step kept open. */
    private record StepResult(String listener, String request, byte[] bytes, String outcome, boolean answered,
                              LogOracle.Permits permits, String untypedError, Runnable afterHealthCheck) {
    }

    private StepResult kafkaStep(KafkaTarget kafka, List<KafkaApi> served, FuzzValues values, Settings s,
                                 Tally tally) throws IOException {
        Random random = values.random();
        KafkaApi api = served.get(random.nextInt(served.size()));
        ApiKeys key = api.key();
        short version = (short) (api.minVersion() + random.nextInt(api.maxVersion() - api.minVersion() + 1));
        if (values.chance(0.04)) {
            // A key kafka-clients knows that the node may not serve, at any version kafka-clients knows.
            ApiKeys[] all = ApiKeys.values();
            ApiKeys other = all[random.nextInt(all.length)];
            int versions = other.latestVersion(true) - other.oldestVersion() + 1;
            if (versions > 0) {
                key = other;
                version = (short) (other.oldestVersion() + random.nextInt(versions));
            }
        }
        KafkaFrames.KafkaCase c = new KafkaFrames(values).next(key, version);
        tally.kafka++;
        tally.perApi.merge("kafka " + key.name, 1L, Long::sum);
        KafkaTarget.Result result = kafka.send(c.frame());
        if (result.outcome() == KafkaTarget.Outcome.NO_ANSWER) {
            tally.noAnswer++;
        } else if (result.outcome() == KafkaTarget.Outcome.CLOSED_BY_NODE) {
            tally.closedByNode++;
        }
        return new StepResult("Kafka", c.description() + "; the node would parse it as " + result.parsedAs(),
                c.frame(), result.outcome().name(), result.outcome() == KafkaTarget.Outcome.ANSWERED,
                result.permits(), result.untypedError(), () -> kafka.resetIfOwed(result));
    }

    private StepResult grpcStep(GrpcTarget grpc, FuzzValues values, Settings s, Tally tally)
            throws InterruptedException {
        Random random = values.random();
        GrpcTarget.Method method = methods.get(random.nextInt(methods.size()));
        GrpcMessages messages = new GrpcMessages(values);
        int count = method.typed().getType() == io.grpc.MethodDescriptor.MethodType.UNARY ? 1 : values.between(1, 4);
        List<byte[]> requests = new ArrayList<>();
        StringBuilder what = new StringBuilder(method.name()).append(':');
        for (int i = 0; i < count; i++) {
            com.google.protobuf.Message m = messages.next(method.requestPrototype());
            if (values.chance(0.12)) {
                byte[] damaged = messages.damaged(m.toByteArray());
                requests.add(damaged);
                what.append(" [").append(damaged.length).append(" bytes that are not the message as built]");
            } else {
                requests.add(m.toByteArray());
                what.append(" [").append(abbreviate(com.google.protobuf.TextFormat.shortDebugString(m), 2_000))
                        .append(']');
            }
        }
        tally.grpc++;
        tally.perApi.merge("grpc " + method.name(), 1L, Long::sum);
        GrpcTarget.Result result = grpc.call(method, requests);
        if (result.status() == io.grpc.Status.Code.DEADLINE_EXCEEDED) {
            tally.noAnswer++;
        }
        byte[] all = requests.size() == 1 ? requests.get(0) : concat(requests);
        return new StepResult("gRPC", what.toString(), all, result.status() + " " + result.statusDescription(),
                result.status() != io.grpc.Status.Code.DEADLINE_EXCEEDED, result.permits(), result.untypedError(),
                () -> { });
    }

    /**
     * Null when both listeners answer their health request within {@code boundMs}: ApiVersions on a Kafka
     * connection of its own, and Metadata of a fixture topic on the gRPC listener.
     */
    private String healthProblem(int boundMs) {
        List<String> problems = new ArrayList<>();
        try {
            if (health == null) {
                health = new Socket(InetAddress.getLoopbackAddress(), cluster.node(1).kafkaPort().orElseThrow());
                health.setSoLinger(true, 0);
                health.setTcpNoDelay(true);
            }
            health.setSoTimeout(boundMs);
            ApiVersionsRequest request = new ApiVersionsRequest.Builder().build((short) 3);
            RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "fuzz-health", 1);
            ByteBuffer payload = request.serializeWithHeader(header);
            byte[] frame = ByteBuffer.allocate(4 + payload.remaining()).putInt(payload.remaining()).put(payload)
                    .array();
            health.getOutputStream().write(frame);
            DataInputStream in = new DataInputStream(health.getInputStream());
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            ApiVersionsResponse response = (ApiVersionsResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(answer),
                    header);
            if (response.data().errorCode() != Errors.NONE.code()) {
                problems.add("Kafka health: ApiVersions answered " + Errors.forCode(response.data().errorCode()));
            }
        } catch (IOException | RuntimeException e) {
            closeHealth();
            problems.add("Kafka health: ApiVersions not answered within " + boundMs + " ms: " + e);
        }
        try {
            ClientServiceGrpc.newBlockingStub(channel).withDeadlineAfter(boundMs, TimeUnit.MILLISECONDS)
                    .metadata(MetadataRequest.newBuilder().addTopics(fixtures.keySet().iterator().next()).build());
        } catch (RuntimeException e) {
            problems.add("gRPC health: Metadata not answered within " + boundMs + " ms: " + e);
        }
        return problems.isEmpty() ? null : String.join("; ", problems);
    }

    private void closeHealth() {
        if (health != null) {
            try {
                health.close();
            } catch (IOException e) {
                // gone already
            }
            health = null;
        }
    }

    /**
     * Keeps the node's state the same from step to step: topics a step created are deleted, and a fixture topic a
     * valid DeleteTopics deleted is created again (empty), so that the next steps find the names they aim at.
     */
    private void tidyTopics(TidelineNode node, Tally tally) {
        Set<String> inImage = node.image().topics().keySet();
        List<String> extra = new ArrayList<>(inImage.stream().filter(t -> !fixtures.containsKey(t)).toList());
        // A fixture a CreatePartitions grew is deleted and made again at its size, so that steps stay cheap.
        fixtures.forEach((name, partitions) -> node.image().topic(name).filter(t -> t.partitions().size() > partitions)
                .ifPresent(t -> {
                    extra.add(name);
                    topicsDeleted.add(name);
                }));
        if (!extra.isEmpty()) {
            topicsDeleted.addAll(extra);
            AdminServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .deleteTopics(DeleteTopicsRequest.newBuilder().addAllNames(extra).setTimeoutMs(30_000).build());
        }
        Set<String> present = node.image().topics().keySet();
        List<NewTopic> missing = fixtures.entrySet().stream().filter(e -> !present.contains(e.getKey()))
                .map(e -> ApiTestSupport.newTopic(e.getKey(), e.getValue(), 1, Map.of())).toList();
        if (!missing.isEmpty()) {
            // The old topic's logs go first: the oracle knows a log by its partition's name, so one of the old
            // topic still there when the new one is made would read as the new topic's log going back.
            Set<String> names = new HashSet<>();
            missing.forEach(t -> names.add(t.getName()));
            Awaitility.await("the deleted fixtures' logs are gone").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(5)).until(() -> node.logManager().allLogs().stream()
                            .noneMatch(l -> names.contains(l.topicPartition().topic())));
            createFixtures(node, missing);
            missing.forEach(t -> topicsDeleted.remove(t.getName()));
            tally.fixturesRecreated += missing.size();
        }
    }

    /** Creates the topics (on this fuzzer's own channel) and waits until node 1 leads every partition of them. */
    void createFixtures(TidelineNode node, List<NewTopic> topics) {
        CreateTopicsResponse created = AdminServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                .createTopics(CreateTopicsRequest.newBuilder().addAllTopics(topics).setTimeoutMs(30_000).build());
        created.getResultsList().forEach(r -> {
            if (r.getErrorCode() != Errors.NONE.code()) {
                throw new IllegalStateException("a fixture topic was not created: " + created);
            }
        });
        for (NewTopic t : topics) {
            for (int p = 0; p < t.getNumPartitions(); p++) {
                TopicPartition tp = new TopicPartition(t.getName(), p);
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> node.replicaManager().partition(tp)
                        .map(Partition::isLeader).orElse(false));
            }
        }
    }

    private List<String> topicPool() {
        return new ArrayList<>(fixtures.keySet());
    }

    private static List<Uuid> topicIds(TidelineNode node) {
        List<Uuid> ids = new ArrayList<>();
        node.image().topics().values().forEach(t -> {
            try {
                ids.add(Uuid.fromString(t.id()));
            } catch (RuntimeException e) {
                // not in Kafka's form: leave it out
            }
        });
        return ids;
    }

    private String failure(Settings s, long step, StepResult r, List<String> problems,
                           Map<TopicPartition, LogOracle.Offsets> before, Map<TopicPartition, LogOracle.Offsets> after) {
        StringBuilder b = new StringBuilder();
        b.append("LISTENER FUZZER FAILED at step ").append(step).append(" of seed ").append(s.seed()).append('\n');
        b.append("  listener: ").append(r.listener()).append(", outcome: ").append(r.outcome()).append('\n');
        b.append("  request: ").append(r.request()).append('\n');
        b.append("  bytes (").append(r.bytes().length).append("): ")
                .append(abbreviate(HexFormat.of().formatHex(r.bytes()), 4_000)).append('\n');
        problems.forEach(p -> b.append("  problem: ").append(abbreviate(p, 4_000)).append('\n'));
        b.append("  logs before: ").append(before).append('\n');
        b.append("  logs after:  ").append(after).append('\n');
        b.append("  rerun: mvn -B -o -q -pl node/server -am test -Dtest=ListenerFuzzTest"
                + " -Dsurefire.failIfNoSpecifiedTests=false -Dfuzz.seed=").append(s.seed()).append(" -Dfuzz.from=")
                .append(step).append(" -Dfuzz.requests=1");
        return b.toString();
    }

    private static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "... (" + s.length() + " chars)";
    }

    private static byte[] concat(List<byte[]> parts) {
        int n = parts.stream().mapToInt(p -> p.length).sum();
        ByteBuffer b = ByteBuffer.allocate(n);
        parts.forEach(b::put);
        return b.array();
    }

    @Override
    public void close() {
        channel.shutdownNow();
        closeHealth();
    }
}
