package io.tideline.cluster.nemesis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.BiFunction;

/**
 * Plans a round from a seed alone: one {@link Random} seeded with it draws the replicas and every step, and a
 * {@link ClusterModel} updated step by step keeps the plan within the cluster's invariants (no majority down,
 * only what is broken gets healed). So the same seed always gives the same plan, whatever the cluster does
 * while it runs; the cluster's answers (offsets, refusals) go into the report, not into the plan.
 *
 * <p>Each kind of step is one {@link Choice}: a name, a weight and how it proposes a step in the current
 * model (empty when it has none to offer, e.g. nothing to heal). A new kind of fault is one {@link Operation}
 * class and one entry in {@link #CHOICES}; what undoes a node fault is the model's business
 * ({@link ClusterModel#takeDown}), so "bring a node back" covers restart and resume alike.
 */
public final class NemesisGenerator {

    /** One kind of step, proposed {@code weight} times in {@code sum of weights} draws. */
    public record Choice(String name, int weight, BiFunction<Context, Random, Optional<Operation>> propose) { }

    /** What a choice may look at: the spec and the model as the plan so far leaves it. */
    public record Context(NemesisSpec spec, ClusterModel model) { }

    private static final int MAX_DELAY_MS = 300;
    /** Clock skews of 0.5 to 10 s either way: past every heartbeat interval, within a session timeout or two. */
    private static final int MIN_SKEW_MS = 500;
    private static final int MAX_SKEW_MS = 10_000;

    static final List<Choice> CHOICES = List.of(
            new Choice("cut one link", 3, (c, r) -> pick(r, c.model().healthyLinks())
                    .map(link -> new CutLinks(List.of(link)))),
            new Choice("cut a node's replication", 1, (c, r) -> {
                int node = pick(r, c.spec().nodes()).orElseThrow();
                List<String> healthy = c.spec().linksOf(node).stream()
                        .filter(c.model().healthyLinks()::contains).toList();
                return healthy.isEmpty() ? Optional.empty() : Optional.of(new CutLinks(healthy));
            }),
            new Choice("delay a link", 2, (c, r) -> pick(r, c.model().healthyLinks())
                    .map(link -> new DelayLink(link, Duration.ofMillis(20 + r.nextInt(MAX_DELAY_MS - 20))))),
            new Choice("heal a link", 3, (c, r) -> pick(r, c.model().brokenLinks()).map(HealLink::new)),
            new Choice("drop a link's connections", 1, (c, r) -> pick(r, c.model().links()).map(DropConnections::new)),
            new Choice("kill a node", 2, (c, r) -> c.model().canTakeDown()
                    ? pick(r, c.model().upNodes()).map(Kill::new) : Optional.empty()),
            new Choice("stop a node", 1, (c, r) -> c.model().canTakeDown()
                    ? pick(r, c.model().upNodes()).map(Stop::new) : Optional.empty()),
            new Choice("pause a node", 1, (c, r) -> c.model().canTakeDown()
                    ? pick(r, c.model().upNodes()).map(Pause::new) : Optional.empty()),
            new Choice("partition a node", 1, (c, r) -> c.model().canTakeDown()
                    ? pick(r, c.model().upNodes()).map(PartitionNode::new) : Optional.empty()),
            new Choice("cut a node's Raft links", 1, (c, r) -> c.model().canTakeDown()
                    ? pick(r, c.model().upNodes()).map(IsolateRaft::new) : Optional.empty()),
            new Choice("isolate the quorum leader", 1, (c, r) -> c.model().canTakeDown()
                    ? pick(r, c.model().upNodes()).map(IsolateRaftLeader::new) : Optional.empty()),
            new Choice("kill two nodes at once", 1, (c, r) -> c.model().downNodes().isEmpty()
                    && c.model().nodes().size() >= 3 ? Optional.of(new KillTogether(two(r, c.model().nodes())))
                    : Optional.empty()),
            new Choice("fill a node's disk", 1, (c, r) -> c.spec().diskFaults() && c.model().canTakeDown()
                    ? pick(r, c.model().upNodes()).map(FillDisk::new) : Optional.empty()),
            new Choice("skew a node's clock", 1, (c, r) -> pick(r, c.model().unskewedNodes())
                    .map(node -> new SkewClock(node, skewMs(r)))),
            new Choice("put a clock right", 2, (c, r) -> pick(r, c.model().skewedNodes()).map(UnskewClock::new)),
            new Choice("bring a node back", 3, (c, r) -> pick(r, c.model().downNodes())
                    .map(node -> c.model().bringBack(node))),
            new Choice("delete records", 1, (c, r) -> Optional.of(new DeleteRecords((1 + r.nextInt(10)) / 10.0))),
            new Choice("retention pass", 2, (c, r) -> pick(r, c.spec().nodes()).map(RetentionPass::new)),
            new Choice("reassign", 1, (c, r) -> Optional.of(new Reassign(replicas(c.spec(), r)))));

    private NemesisGenerator() {
    }

    public static NemesisPlan plan(long seed, NemesisSpec spec) {
        Random random = new Random(seed);
        List<Integer> replicas = replicas(spec, random);
        ClusterModel model = spec.newModel();
        Context context = new Context(spec, model);
        int totalWeight = CHOICES.stream().mapToInt(Choice::weight).sum();
        List<Operation> steps = new ArrayList<>();
        for (int i = 0; i < spec.steps(); i++) {
            Operation step = null;
            while (step == null) {
                step = draw(random, totalWeight).propose().apply(context, random).orElse(null);
            }
            step.update(model);
            steps.add(step);
            long waitMs = spec.minWait().toMillis()
                    + (long) (random.nextDouble() * (spec.maxWait().toMillis() - spec.minWait().toMillis()));
            steps.add(new Wait(Duration.ofMillis(waitMs)));
        }
        return new NemesisPlan(seed, replicas, steps, model.healing());
    }

    private static Choice draw(Random random, int totalWeight) {
        int ticket = random.nextInt(totalWeight);
        for (Choice choice : CHOICES) {
            ticket -= choice.weight();
            if (ticket < 0) {
                return choice;
            }
        }
        throw new AssertionError("weights changed");
    }

    /** {@code replicationFactor} distinct nodes in a random order (the first is the preferred leader). */
    private static List<Integer> replicas(NemesisSpec spec, Random random) {
        List<Integer> shuffled = new ArrayList<>(spec.nodes());
        Collections.shuffle(shuffled, random);
        return List.copyOf(shuffled.subList(0, spec.replicationFactor()));
    }

    /** Two distinct nodes, in ascending order. */
    private static List<Integer> two(Random random, List<Integer> nodes) {
        List<Integer> shuffled = new ArrayList<>(nodes);
        Collections.shuffle(shuffled, random);
        return shuffled.subList(0, 2).stream().sorted().toList();
    }

    private static long skewMs(Random random) {
        long magnitude = MIN_SKEW_MS + random.nextInt(MAX_SKEW_MS - MIN_SKEW_MS + 1);
        return random.nextBoolean() ? magnitude : -magnitude;
    }

    private static <T> Optional<T> pick(Random random, List<T> from) {
        return from.isEmpty() ? Optional.empty() : Optional.of(from.get(random.nextInt(from.size())));
    }
}
