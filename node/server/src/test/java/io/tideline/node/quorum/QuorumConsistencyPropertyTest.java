package io.tideline.node.quorum;

import io.tideline.common.errors.Errors;
import io.tideline.node.controller.ControllerSettings;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.BrokerHeartbeatResponse;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.Endpoint;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.TargetReassignment;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;

/**
 * Random command sequences against three real voters, with the Raft leader killed (sometimes with a
 * client's command or the duties' fencings in flight) and stopped voters restarted at random moments,
 * never more than one voter down so a majority always remains. After every step, once every live voter has applied the same index,
 * their images must be byte-identical there and satisfy the partition invariants; leader and
 * partition epochs never go down over the whole run. At the end every voter runs again and all three
 * agree.
 *
 * <p>Each step is drawn from the image as it is then (a valid AlterPartition needs the current
 * epochs), and what the quorum does depends on Raft timing, so a seed reproduces the kind of run, not
 * every byte of it: a failure prints the seed and every step with its outcome. Shrinking is off:
 * each try costs seconds of real elections.
 */
class QuorumConsistencyPropertyTest {
    private static final int BROKERS = 5;
    private static final int TOPICS = 4;

    @Property(tries = 5, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void everyLiveVoterHoldsTheSameImageAtTheSameIndexAndInvariantsHold(
            @ForAll long seed, @ForAll @IntRange(min = 15, max = 30) int steps, @ForAll boolean unclean) throws Exception {
        Path dir = Files.createTempDirectory("quorum-property");
        List<String> trace = new ArrayList<>();
        try {
            // A low snapshot threshold: restarts rebuild from snapshot + log tail, not from the log alone.
            try (QuorumTestCluster cluster = QuorumTestCluster.start(dir, 3, new ControllerSettings(unclean),
                    b -> b.snapshotThreshold(20))) {
                new Run(cluster, new Random(seed), trace).run(steps);
            }
        } catch (Throwable t) {
            throw new AssertionError("seed " + seed + ", " + steps + " steps, unclean.leader.election.enable=" + unclean
                    + "; steps:\n  " + String.join("\n  ", trace) + "\n" + t.getMessage(), t);
        } finally {
            deleteRecursively(dir);
        }
    }

    /** One try: the cluster, the random source and what the test remembers between steps. */
    private static final class Run {
        private final QuorumTestCluster cluster;
        private final ControllerClient client;
        private final Random random;
        private final List<String> trace;
        /** "topicId-partition" -> {leader epoch, partition epoch} last seen; ids are never reused. */
        private final Map<String, int[]> epochs = new HashMap<>();
        private final int[] incarnations = new int[BROKERS];
        private long lastOffset;

        Run(QuorumTestCluster cluster, Random random, List<String> trace) {
            this.cluster = cluster;
            this.client = cluster.client();
            this.random = random;
            this.trace = trace;
        }

        void run(int steps) throws Exception {
            for (int i = 0; i < steps; i++) {
                Step step = next(image());
                trace.add(i + ": " + step.description + " -> (running)");
                long t0 = System.nanoTime();
                String outcome = step.start.call().get();
                long t1 = System.nanoTime();
                trace.set(i, i + ": " + step.description + " -> " + outcome);
                checkConsistency();
                // Slow steps point at Raft trouble (elections, catch-up) rather than at the controller.
                trace.set(i, trace.get(i) + " [" + (t1 - t0) / 1_000_000 + " ms, agreed after " + (System.nanoTime() - t1) / 1_000_000 + " ms]");
            }
            for (int id : cluster.down()) {
                cluster.startVoter(id);
                trace.add("end: restart voter " + id);
            }
            checkConsistency();
            if (cluster.live().size() != 3) {
                throw new AssertionError("every voter runs at the end: " + cluster.live());
            }
            if (!cluster.faults.isEmpty() || !cluster.scheduler.failures().isEmpty()) {
                throw new AssertionError("faults " + cluster.faults + ", scheduled task failures " + cluster.scheduler.failures());
            }
        }

        private MetadataImage image() {
            return cluster.live().get(0).image();
        }

        // ------------------------------------------------------------ checks

        /** Same bytes on every live voter at a common index, invariants, and nothing went back. */
        private void checkConsistency() {
            cluster.awaitDutiesSettled();
            Map<Integer, MetadataImage> images = cluster.awaitSameOffset();
            Map.Entry<Integer, MetadataImage> first = images.entrySet().iterator().next();
            byte[] expected = ImageSerde.serialize(first.getValue());
            for (Map.Entry<Integer, MetadataImage> e : images.entrySet()) {
                if (!Arrays.equals(expected, ImageSerde.serialize(e.getValue()))) {
                    throw new AssertionError("voters " + first.getKey() + " and " + e.getKey() + " differ at offset "
                            + e.getValue().offset() + ":\n" + ImageSerde.toSnapshot(first.getValue()) + "\nvs\n"
                            + ImageSerde.toSnapshot(e.getValue()));
                }
            }
            MetadataImage image = first.getValue();
            if (image.offset() < lastOffset) {
                throw new AssertionError("the agreed offset went back from " + lastOffset + " to " + image.offset());
            }
            lastOffset = image.offset();
            checkInvariants(image);
        }

        private void checkInvariants(MetadataImage image) {
            for (TopicImage t : image.topics().values()) {
                for (PartitionRecord p : t.partitions().values()) {
                    String name = t.name() + "-" + p.getPartition() + " at offset " + image.offset() + ": " + p;
                    List<Integer> replicas = p.getReplicasList();
                    check(p.getIsrCount() > 0, "empty ISR", name);
                    check(replicas.containsAll(p.getIsrList()), "ISR not within the replicas", name);
                    check(new HashSet<>(p.getIsrList()).size() == p.getIsrCount(), "duplicate ISR member", name);
                    check(new HashSet<>(replicas).size() == replicas.size(), "duplicate replica", name);
                    check(p.getLeader() == -1 || p.getIsrList().contains(p.getLeader()), "leader not in the ISR", name);
                    check(replicas.containsAll(p.getAddingReplicasList()) && replicas.containsAll(p.getRemovingReplicasList()),
                            "adding/removing replicas not within the replicas", name);
                    check(Collections.disjoint(p.getAddingReplicasList(), p.getRemovingReplicasList()),
                            "a replica both added and removed", name);
                    check(replicas.containsAll(p.getTargetReplicasList()), "target replicas not within the replicas", name);
                    String key = p.getTopicId() + "-" + p.getPartition();
                    int[] last = epochs.get(key);
                    if (last != null) {
                        check(p.getLeaderEpoch() >= last[0], "leader epoch went down from " + last[0], name);
                        check(p.getPartitionEpoch() >= last[1], "partition epoch went down from " + last[1], name);
                    }
                    epochs.put(key, new int[] {p.getLeaderEpoch(), p.getPartitionEpoch()});
                }
            }
        }

        private static void check(boolean ok, String what, String where) {
            if (!ok) {
                throw new AssertionError(what + ": " + where);
            }
        }

        // ------------------------------------------------------------ steps

        /** {@code start} sends a command and returns its pending outcome, or runs a local step to completion. */
        private record Step(String description, Callable<CompletableFuture<String>> start) {
            static Step local(String description, Callable<String> body) {
                return new Step(description, () -> CompletableFuture.completedFuture(body.call()));
            }
        }

        /** A step drawn from the current image: mostly valid commands, some stale or refused ones. */
        private Step next(MetadataImage image) {
            List<PartitionRecord> partitions = new ArrayList<>();
            for (TopicImage t : image.topics().values()) {
                partitions.addAll(t.partitions().values());
            }
            boolean oneDown = !cluster.down().isEmpty();
            int registered = image.brokers().size();
            boolean anyFenced = image.brokers().values().stream().anyMatch(BrokerRegistrationRecord::getFenced);
            // ISR changes of partitions that are moving or under-replicated: these complete reassignments.
            List<PartitionRecord> unsettled = partitions.stream()
                    .filter(p -> p.getAddingReplicasCount() > 0 || p.getIsrCount() < p.getReplicasCount()).toList();
            while (true) {
                int pick = random.nextInt(24);
                if (registered < 3 && random.nextBoolean()) {
                    pick = 0; // brokers first, or most commands are refused for want of them
                } else if (anyFenced && random.nextInt(4) == 0) {
                    pick = 1; // and heartbeats, which unfence them
                }
                switch (pick) {
                    case 0 -> {
                        return register(image);
                    }
                    case 1, 2, 3 -> {
                        return tick(image);
                    }
                    case 4, 5 -> {
                        return createTopic(image);
                    }
                    case 6 -> {
                        return deleteTopic(image);
                    }
                    case 7, 8, 9, 10 -> {
                        if (!partitions.isEmpty()) {
                            return alterPartition(image, partitions);
                        }
                    }
                    case 11, 12, 13 -> {
                        if (!unsettled.isEmpty()) {
                            return alterPartition(image, unsettled);
                        }
                    }
                    case 14, 15 -> {
                        if (!partitions.isEmpty()) {
                            return reassign(image, partitions);
                        }
                    }
                    case 16 -> {
                        if (!partitions.isEmpty()) {
                            return cancel(image, partitions);
                        }
                    }
                    case 17 -> {
                        return electLeaders(image, partitions);
                    }
                    case 18, 19 -> {
                        if (!oneDown) {
                            return killLeader(image, partitions);
                        }
                    }
                    case 20, 21 -> {
                        if (oneDown) {
                            return restart();
                        }
                    }
                    default -> {
                        return snapshot();
                    }
                }
            }
        }

        private Step register(MetadataImage image) {
            List<Integer> unknown = new ArrayList<>();
            for (int b = 0; b < BROKERS; b++) {
                if (!image.brokers().containsKey(b)) {
                    unknown.add(b);
                }
            }
            // Mostly new brokers. A known one either restarted (a new incarnation: new epoch, fenced, its
            // leaderships moved) or retries its registration (same incarnation: nothing changes).
            int broker = !unknown.isEmpty() && random.nextInt(4) > 0 ? unknown.get(random.nextInt(unknown.size())) : random.nextInt(BROKERS);
            if (!image.brokers().containsKey(broker) || random.nextInt(3) == 0) {
                incarnations[broker]++;
            }
            String incarnation = "inc-" + broker + "-" + incarnations[broker];
            String rack = random.nextBoolean() ? "" : "rack-" + broker % 2;
            return command("register broker " + broker + " " + incarnation + (rack.isEmpty() ? "" : " in " + rack),
                    () -> client.registerBroker(broker, incarnation,
                            List.of(Endpoint.newBuilder().setName("CLIENT").setHost("localhost").setPort(9090 + broker).build()), rack));
        }

        /**
         * Moves the mock clock in one-second steps; the listed brokers heartbeat after each (a fenced
         * one that heartbeats is unfenced), the others drift towards their session timeout.
         */
        private Step tick(MetadataImage image) {
            long seconds = 1 + random.nextInt(12);
            Map<Integer, Long> beating = new HashMap<>();
            for (BrokerRegistrationRecord b : image.brokers().values()) {
                if (random.nextInt(4) > 0) {
                    beating.put(b.getBrokerId(), b.getBrokerEpoch());
                }
            }
            return Step.local("advance " + seconds + " s, heartbeats from " + new TreeSet<>(beating.keySet()), () -> {
                cluster.awaitLeader(); // heartbeats right after a failover would meet a controller not ready yet
                Map<String, Integer> answers = new HashMap<>();
                for (long s = 0; s < seconds; s++) {
                    cluster.time.advance(1000);
                    List<CompletableFuture<BrokerHeartbeatResponse>> sent = new ArrayList<>();
                    beating.forEach((id, epoch) -> sent.add(client.heartbeat(id, epoch, Long.MAX_VALUE, false)));
                    for (CompletableFuture<BrokerHeartbeatResponse> f : sent) {
                        answers.merge(Errors.forCode(f.get().getErrorCode()).name(), 1, Integer::sum);
                    }
                }
                return "heartbeat answers " + answers;
            });
        }

        /** Mostly a replication factor the unfenced brokers can hold; sometimes one they cannot. */
        private Step createTopic(MetadataImage image) {
            List<String> missing = new ArrayList<>();
            for (int t = 0; t < TOPICS; t++) {
                if (image.topic("t" + t).isEmpty()) {
                    missing.add("t" + t);
                }
            }
            String name = !missing.isEmpty() && random.nextInt(4) > 0 ? missing.get(random.nextInt(missing.size())) : "t" + random.nextInt(TOPICS);
            int partitions = 1 + random.nextInt(3);
            long unfenced = image.brokers().values().stream().filter(b -> !b.getFenced()).count();
            int rf = 1 + random.nextInt(random.nextInt(6) == 0 ? 3 : (int) Math.max(1, Math.min(3, unfenced)));
            return command("create " + name + " partitions=" + partitions + " rf=" + rf, () -> client.createTopics(List.of(
                    CreatableTopic.newBuilder().setName(name).setNumPartitions(partitions).setReplicationFactor(rf).build()), false));
        }

        private Step deleteTopic(MetadataImage image) {
            List<String> names = new ArrayList<>(image.topics().keySet());
            String name = names.isEmpty() || random.nextInt(4) == 0 ? "t" + random.nextInt(TOPICS) : names.get(random.nextInt(names.size()));
            return command("delete " + name, () -> client.deleteTopics(List.of(name)));
        }

        /**
         * From the partition's leader: half the time every eligible replica joins (followers caught up,
         * which completes reassignments), else a random subset of the replicas with the leader; now and
         * then at a stale epoch. A partition without a leader gets a request from some replica (refused).
         */
        private Step alterPartition(MetadataImage image, List<PartitionRecord> partitions) {
            PartitionRecord p = partitions.get(random.nextInt(partitions.size()));
            int sender = p.getLeader() >= 0 ? p.getLeader() : p.getReplicas(random.nextInt(p.getReplicasCount()));
            List<Integer> isr = new ArrayList<>();
            boolean catchUp = random.nextBoolean();
            for (int r : p.getReplicasList()) {
                boolean eligible = image.broker(r).map(b -> !b.getFenced() && !b.getInControlledShutdown()).orElse(false);
                if (r == sender || (catchUp ? p.getIsrList().contains(r) || eligible : random.nextBoolean())) {
                    isr.add(r);
                }
            }
            int leaderEpoch = p.getLeaderEpoch();
            int partitionEpoch = p.getPartitionEpoch();
            String stale = "";
            switch (random.nextInt(10)) {
                case 0 -> {
                    leaderEpoch--;
                    stale = " (stale leader epoch)";
                }
                case 1 -> {
                    partitionEpoch--;
                    stale = " (stale partition epoch)";
                }
                default -> {
                }
            }
            AlterPartition request = AlterPartition.newBuilder().setBrokerId(sender)
                    .setBrokerEpoch(image.broker(sender).map(BrokerRegistrationRecord::getBrokerEpoch).orElse(0L))
                    .setTopicId(p.getTopicId()).setPartition(p.getPartition()).setLeaderEpoch(leaderEpoch)
                    .setPartitionEpoch(partitionEpoch).addAllNewIsr(isr)
                    .setReason(catchUp ? ChangeReason.CAUGHT_UP : ChangeReason.LAGGING).build();
            return command("alter " + name(image, p) + " from " + sender + " epochs " + leaderEpoch + "/" + partitionEpoch
                    + " ISR " + p.getIsrList() + " -> " + isr + stale, () -> client.alterPartition(request));
        }

        private Step reassign(MetadataImage image, List<PartitionRecord> partitions) {
            PartitionRecord p = partitions.get(random.nextInt(partitions.size()));
            List<Integer> brokers = new ArrayList<>(image.brokers().keySet());
            Collections.shuffle(brokers, random);
            List<Integer> target = brokers.subList(0, Math.min(brokers.size(), 1 + random.nextInt(3)));
            return reassignment("reassign " + name(image, p) + " " + p.getReplicasList() + " -> " + target, image, p, target);
        }

        private Step cancel(MetadataImage image, List<PartitionRecord> partitions) {
            List<PartitionRecord> moving = partitions.stream().filter(p -> p.getAddingReplicasCount() + p.getRemovingReplicasCount() > 0).toList();
            List<PartitionRecord> from = moving.isEmpty() || random.nextInt(4) == 0 ? partitions : moving;
            PartitionRecord p = from.get(random.nextInt(from.size()));
            return reassignment("cancel reassignment of " + name(image, p) + " " + p.getReplicasList(), image, p, List.of());
        }

        private Step reassignment(String description, MetadataImage image, PartitionRecord p, List<Integer> target) {
            TargetReassignment t = TargetReassignment.newBuilder().setTopic(image.topicById(p.getTopicId()).orElseThrow().name())
                    .setPartition(p.getPartition()).addAllReplicas(target).build();
            return command(description, () -> client.alterReassignments(List.of(t)));
        }

        private Step electLeaders(MetadataImage image, List<PartitionRecord> partitions) {
            if (partitions.isEmpty() || random.nextBoolean()) {
                return command("elect preferred leaders everywhere", () -> client.electLeaders(List.of()));
            }
            PartitionRecord p = partitions.get(random.nextInt(partitions.size()));
            TopicPartitionRef ref = TopicPartitionRef.newBuilder().setTopic(image.topicById(p.getTopicId()).orElseThrow().name())
                    .setPartition(p.getPartition()).build();
            return command("elect preferred leader of " + name(image, p), () -> client.electLeaders(List.of(ref)));
        }

        /**
         * Kills the ready Raft leader; half the time with something in flight on it: a command just
         * submitted (whose answer, after the client's retries at the new leader, is awaited after the
         * kill), or fencings the duties just submitted after a session timeout of silence.
         */
        private Step killLeader(MetadataImage image, List<PartitionRecord> partitions) {
            Step inFlight = null;
            if (random.nextBoolean()) {
                int kind = partitions.isEmpty() ? random.nextInt(2) * 3 : random.nextInt(4);
                inFlight = switch (kind) {
                    case 0 -> createTopic(image);
                    case 1 -> alterPartition(image, partitions);
                    case 2 -> reassign(image, partitions);
                    default -> Step.local("10 s without heartbeats", () -> {
                        cluster.time.advance(10_000);
                        return "fencings submitted";
                    });
                };
            }
            Step concurrent = inFlight;
            String description = "kill the Raft leader" + (concurrent == null ? "" : " right after: " + concurrent.description);
            return Step.local(description, () -> {
                int leader = cluster.awaitLeader().nodeId();
                CompletableFuture<String> answer = concurrent == null ? null : concurrent.start.call();
                cluster.kill(leader);
                return "killed voter " + leader + (answer == null ? "" : "; then: " + answer.get());
            });
        }

        private Step restart() {
            int id = cluster.down().get(0);
            return Step.local("restart voter " + id, () -> {
                QuorumServer s = cluster.startVoter(id);
                return "restarted at offset " + s.image().offset();
            });
        }

        private Step snapshot() {
            List<QuorumServer> live = cluster.live();
            QuorumServer s = live.get(random.nextInt(live.size()));
            return Step.local("snapshot on voter " + s.nodeId(), () -> "snapshot at index " + s.takeSnapshot());
        }

        private Step command(String description, Supplier<CompletableFuture<ControllerResponse>> send) {
            return new Step(description, () -> send.get().thenApply(Run::describe));
        }

        private static String describe(ControllerResponse r) {
            String items = r.getResultsList().stream().map(ItemResult::getErrorCode).map(c -> Errors.forCode(c).name())
                    .collect(Collectors.joining(",", "[", "]"));
            return Errors.forCode(r.getErrorCode()).name() + (r.getResultsCount() > 0 ? " " + items : "") + " @" + r.getOffset();
        }

        private static String name(MetadataImage image, PartitionRecord p) {
            return image.topicById(p.getTopicId()).map(TopicImage::name).orElse(p.getTopicId()) + "-" + p.getPartition();
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
