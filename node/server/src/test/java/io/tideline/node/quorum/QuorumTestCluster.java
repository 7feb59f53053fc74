package io.tideline.node.quorum;

import static org.awaitility.Awaitility.await;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.node.controller.ControllerSettings;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.BrokerHeartbeatResponse;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.Endpoint;
import io.tideline.testsupport.ports.Ports;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A metadata quorum in one JVM: voters on free loopback ports, each with its own storage directory,
 * all sharing one {@link MockTime} and {@link MockScheduler} for the controller duties (Ratis itself
 * runs on real time: elections and replication are real). Voters can be killed and restarted by id.
 * Every wait dumps each voter's image when it times out.
 */
final class QuorumTestCluster implements AutoCloseable {
    static final String CLUSTER_ID = "quorum-test";
    static final Duration WAIT = Duration.ofSeconds(20);

    final MockTime time = new MockTime();
    final MockScheduler scheduler = new MockScheduler(time);
    final List<String> faults = new CopyOnWriteArrayList<>();
    private final Path baseDir;
    private final ControllerSettings settings;
    private final Consumer<QuorumServer.Builder> customizer;
    private final Map<Integer, InetSocketAddress> voters;
    private final Map<Integer, QuorumServer> running = new ConcurrentHashMap<>();
    private final Map<Integer, MetricRegistry> metrics = new ConcurrentHashMap<>();
    private final List<ControllerClient> clients = new CopyOnWriteArrayList<>();

    private QuorumTestCluster(Path baseDir, int size, ControllerSettings settings, Consumer<QuorumServer.Builder> customizer) {
        this.baseDir = baseDir;
        this.settings = settings;
        this.customizer = customizer;
        Map<Integer, InetSocketAddress> v = new TreeMap<>();
        int[] ports = Ports.distinct(size);
        for (int id = 1; id <= size; id++) {
            v.put(id, new InetSocketAddress(InetAddress.getLoopbackAddress(), ports[id - 1]));
        }
        this.voters = Map.copyOf(v);
    }

    static QuorumTestCluster start(Path baseDir, int size) throws IOException {
        return start(baseDir, size, ControllerSettings.DEFAULT);
    }

    static QuorumTestCluster start(Path baseDir, int size, ControllerSettings settings) throws IOException {
        return start(baseDir, size, settings, b -> { });
    }

    /** {@code customizer} adjusts every voter's builder after the cluster's defaults. */
    static QuorumTestCluster start(Path baseDir, int size, ControllerSettings settings,
                                   Consumer<QuorumServer.Builder> customizer) throws IOException {
        QuorumTestCluster c = new QuorumTestCluster(baseDir, size, settings, customizer);
        try {
            for (int id : c.voters.keySet()) {
                c.startVoter(id);
            }
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** A voter built with this cluster's settings over its usual directory, not started. */
    QuorumServer newVoter(int id) {
        MetricRegistry registry = new MetricRegistry();
        metrics.put(id, registry);
        QuorumServer.Builder b = QuorumServer.builder()
                .nodeId(id)
                .voters(voters)
                .clusterId(CLUSTER_ID)
                .storageDir(storageDir(id))
                .controllerSettings(settings)
                .time(time)
                .scheduler(scheduler)
                .metrics(registry)
                .faultHandler((message, cause) -> faults.add(message + ": " + cause))
                .heartbeatIntervalMs(2000)
                .sessionTimeoutMs(9000)
                .rpcTimeout(Duration.ofMillis(300), Duration.ofMillis(600))
                .firstElectionTimeout(Duration.ofMillis(200), Duration.ofMillis(400))
                // Off unless a test asks for it: these tests jump the mock clock by minutes and assert
                // leaders that an automatic balancing round would move.
                .leaderBalance(new LeaderBalancer.Settings(false, 10, 300_000L));
        customizer.accept(b);
        return b.build();
    }

    QuorumServer startVoter(int id) throws IOException {
        if (running.containsKey(id)) {
            throw new IllegalStateException("voter " + id + " runs already");
        }
        QuorumServer s = newVoter(id);
        s.start();
        running.put(id, s);
        return s;
    }

    void kill(int id) {
        QuorumServer s = running.remove(id);
        if (s == null) {
            throw new IllegalStateException("voter " + id + " is not running");
        }
        s.close();
    }

    Path storageDir(int id) {
        return baseDir.resolve("voter-" + id);
    }

    /** Ratis' state machine directory of a voter: where its snapshots are. */
    File snapshotDir(int id) {
        return storageDir(id).resolve(QuorumIds.groupId(CLUSTER_ID).getUuid().toString()).resolve("sm").toFile();
    }

    Map<Integer, InetSocketAddress> voters() {
        return voters;
    }

    QuorumServer voter(int id) {
        QuorumServer s = running.get(id);
        if (s == null) {
            throw new IllegalStateException("voter " + id + " is not running");
        }
        return s;
    }

    List<QuorumServer> live() {
        return new ArrayList<>(new TreeMap<>(running).values());
    }

    /** A client of the quorum that the cluster closes. */
    ControllerClient client() {
        ControllerClient c = new ControllerClient(CLUSTER_ID, voters, time, Duration.ofSeconds(20));
        clients.add(c);
        return c;
    }

    /** The voter whose controller duties are active (the ready Raft leader). */
    QuorumServer awaitLeader() {
        awaitTrue("a ready leader", () -> currentLeader().isPresent());
        return currentLeader().orElseThrow();
    }

    private Optional<QuorumServer> currentLeader() {
        return live().stream().filter(s -> s.isLeader() && s.duties().active()).findFirst();
    }

    /** Waits until every live voter's image satisfies {@code condition}. */
    void awaitAllImages(String what, Predicate<MetadataImage> condition) {
        awaitTrue(what + " on every voter", () -> live().stream().allMatch(s -> condition.test(s.image())));
    }

    /** Waits until every live voter is at the same offset with byte-identical images; returns that image. */
    MetadataImage awaitIdenticalImages() {
        awaitTrue("identical images on every voter", () -> {
            List<QuorumServer> l = live();
            byte[] first = ImageSerde.serialize(l.get(0).image());
            return l.stream().allMatch(s -> Arrays.equals(first, ImageSerde.serialize(s.image())));
        });
        return live().get(0).image();
    }

    /** Ids of the voters not running now, ascending. */
    List<Integer> down() {
        List<Integer> ids = new ArrayList<>(new TreeMap<>(voters).keySet());
        ids.removeAll(running.keySet());
        return ids;
    }

    /**
     * Waits until every live voter has applied the same Raft index and returns each one's image at it
     * (node id -> image). Unlike {@link #awaitIdenticalImages()} it does not wait for equal bytes, so a
     * divergence at one index is for the caller to assert, not a timeout. Images are immutable values:
     * one read per voter per poll gives a consistent set. The term is compared too: Ratis' first entry
     * has index 0, so offset 0 alone cannot tell the empty image from one that applied that entry.
     */
    Map<Integer, MetadataImage> awaitSameOffset() {
        AtomicReference<Map<Integer, MetadataImage>> found = new AtomicReference<>();
        awaitTrue("every live voter at the same offset", () -> {
            Map<Integer, MetadataImage> images = new TreeMap<>();
            for (QuorumServer s : live()) {
                images.put(s.nodeId(), s.image());
            }
            if (images.values().stream().map(img -> img.term() + "/" + img.offset()).distinct().count() != 1) {
                return false;
            }
            found.set(images);
            return true;
        });
        return found.get();
    }

    /**
     * Registers the brokers (ids >= 0, endpoints on localhost) and heartbeats each through the active
     * controller until it is unfenced; returns their broker epochs.
     */
    Map<Integer, Long> registerAndUnfence(ControllerClient client, int... brokerIds) throws Exception {
        Map<Integer, Long> epochs = new TreeMap<>();
        for (int id : brokerIds) {
            ControllerResponse r = client.registerBroker(id, "incarnation-" + id,
                    List.of(Endpoint.newBuilder().setName("CLIENT").setHost("localhost")
                            .setPort(9090 + id).build()), "").get();
            if (r.getErrorCode() != Errors.NONE.code()) {
                throw new AssertionError("registering broker " + id + " failed: " + r);
            }
            epochs.put(id, r.getBrokerEpoch());
        }
        for (int id : brokerIds) {
            long epoch = epochs.get(id);
            awaitTrue("broker " + id + " unfenced", () -> {
                BrokerHeartbeatResponse hb = client.heartbeat(id, epoch, epoch, false).get();
                return hb.getErrorCode() == Errors.NONE.code() && !hb.getFenced();
            });
        }
        awaitDutiesSettled();
        return epochs;
    }

    /** Waits until no controller command submitted by the duties is pending on any voter. */
    void awaitDutiesSettled() {
        awaitTrue("duties settled", () -> live().stream().allMatch(s -> s.duties().inFlightCommands() == 0));
    }

    void awaitTrue(String what, java.util.concurrent.Callable<Boolean> condition) {
        try {
            await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).ignoreExceptions().until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("Timed out waiting for " + what + "\n" + dump(), e);
        }
    }

    @SuppressWarnings("unchecked")
    <T> T gauge(int voterId, String name) {
        return ((Gauge<T>) metrics.get(voterId).getGauges().get(name)).getValue();
    }

    /** Every voter's role and image, for failure messages. */
    String dump() {
        StringBuilder sb = new StringBuilder("mock time " + time.milliseconds() + "\n");
        for (int id : voters.keySet()) {
            QuorumServer s = running.get(id);
            if (s == null) {
                sb.append("voter ").append(id).append(": down\n");
                continue;
            }
            sb.append("voter ").append(id).append(s.isLeader() ? " (leader" + (s.duties().active() ? ", duties active)" : ")") : "")
                    .append(" leader=").append(s.leaderId().map(String::valueOf).orElse("?"))
                    .append(" inFlight=").append(s.duties().inFlightCommands()).append('\n')
                    .append(ImageSerde.toSnapshot(s.image())).append('\n');
        }
        if (!faults.isEmpty()) {
            sb.append("faults: ").append(faults).append('\n');
        }
        return sb.toString();
    }

    /** Closes clients, then every voter in parallel (a Ratis server takes up to ~1.5 s to close). */
    /**
     * Closes everything, then fails if a voter reported a metadata fault or a scheduled task threw:
     * both would otherwise pass unnoticed (they happen on Ratis' and the scheduler's threads).
     */
    public void closeAndAssertNoFaults() {
        List<String> seenFaults = List.copyOf(faults);
        close();
        if (!seenFaults.isEmpty()) {
            throw new AssertionError("metadata faults: " + seenFaults);
        }
        if (!scheduler.failures().isEmpty()) {
            throw new AssertionError("scheduled task failures: " + scheduler.failures());
        }
    }

    @Override
    public void close() {
        clients.forEach(ControllerClient::close);
        clients.clear();
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (int id : new ArrayList<>(running.keySet())) {
            QuorumServer s = running.remove(id);
            closing.add(CompletableFuture.runAsync(s::close));
        }
        closing.forEach(CompletableFuture::join);
    }

}
