package io.tideline.cluster.nemesis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class NemesisGeneratorTest {
    private static final NemesisSpec SPEC = new NemesisSpec(List.of(1, 2, 3, 4), 3, 12,
            Duration.ofMillis(100), Duration.ofMillis(900));

    @Property(tries = 300)
    void theSameSeedGivesTheSamePlan(@ForAll long seed) {
        NemesisPlan first = NemesisGenerator.plan(seed, SPEC);
        NemesisPlan again = NemesisGenerator.plan(seed, SPEC);

        assertEquals(first, again);
        assertEquals(first.toString(), again.toString());
    }

    @Test
    void differentSeedsGiveDifferentPlans() {
        Set<List<Operation>> plans = new HashSet<>();
        for (long seed = 0; seed < 50; seed++) {
            plans.add(NemesisGenerator.plan(seed, SPEC).steps());
        }

        assertEquals(50, plans.size());
    }

    /**
     * Replayed on a fresh model, a plan never breaks an invariant, and its healing leaves nothing broken: at most
     * one of 4 voters is down at a time, except while two were killed together from a whole cluster, and clocks
     * are skewed and put right in turn.
     */
    @Property(tries = 300)
    void everyPlanKeepsTheQuorumAndHealsEverything(@ForAll long seed) {
        NemesisPlan plan = NemesisGenerator.plan(seed, SPEC);
        ClusterModel model = SPEC.newModel();
        Set<Integer> down = new TreeSet<>();
        Set<Integer> skewed = new TreeSet<>();
        for (Operation step : plan.steps()) {
            step.update(model);
            if (step instanceof Kill k) {
                assertTrue(down.add(k.node()), plan.toString());
            } else if (step instanceof Stop s) {
                assertTrue(down.add(s.node()), plan.toString());
            } else if (step instanceof Restart r) {
                assertTrue(down.remove(r.node()), plan.toString());
            } else if (step instanceof KillTogether k) {
                assertTrue(down.isEmpty(), "two killed together only from a whole cluster: " + plan);
                assertEquals(2, k.nodes().size(), plan.toString());
                down.addAll(k.nodes());
            } else if (step instanceof RestartTogether r) {
                assertTrue(down.containsAll(r.nodes()), plan.toString());
                down.removeAll(r.nodes());
            } else if (step instanceof SkewClock c) {
                assertTrue(skewed.add(c.node()), plan.toString());
                assertTrue(Math.abs(c.offsetMs()) >= 500 && Math.abs(c.offsetMs()) <= 10_000, c.toString());
            } else if (step instanceof UnskewClock c) {
                assertTrue(skewed.remove(c.node()), plan.toString());
            }
            assertTrue(down.size() <= 1 || model.downNodes().size() == 2 && down.size() == 2,
                    "a majority of 4 voters is 3: " + plan);
            assertEquals(model.skewedNodes(), List.copyOf(skewed), plan.toString());
        }
        for (Operation step : plan.healing()) {
            step.update(model);
        }

        assertEquals(List.of(), model.downNodes(), plan.toString());
        assertEquals(List.of(), model.brokenLinks(), plan.toString());
        assertEquals(List.of(), model.skewedNodes(), plan.toString());
        assertEquals(3, new HashSet<>(plan.initialReplicas()).size());
    }

    @Test
    void stepsAlternateWithWaitsInTheSpecsRange() {
        NemesisPlan plan = NemesisGenerator.plan(7, SPEC);

        assertEquals(2 * SPEC.steps(), plan.steps().size());
        for (int i = 0; i < plan.steps().size(); i++) {
            Operation step = plan.steps().get(i);
            assertEquals(i % 2 == 1, step instanceof Wait, plan.toString());
            if (step instanceof Wait w) {
                assertTrue(w.duration().compareTo(Duration.ofMillis(100)) >= 0
                        && w.duration().compareTo(Duration.ofMillis(900)) <= 0, w.toString());
            }
        }
    }

    @Test
    void twoHundredSeedsUseEveryKindOfStep() {
        Set<String> kinds = new TreeSet<>();
        for (long seed = 1; seed <= 200; seed++) {
            NemesisGenerator.plan(seed, SPEC).steps().forEach(s -> kinds.add(s.kind()));
        }

        assertEquals(new TreeSet<>(List.of("cut", "delay", "delete-records", "drop-connections", "heal",
                "heal-partition", "heal-raft", "isolate-raft", "isolate-raft-leader", "kill", "kill-together",
                "partition", "pause", "reassign", "restart", "restart-together", "resume", "retention-pass",
                "skew-clock", "stop", "unskew-clock", "wait")), kinds);
    }

    @Test
    void aDiskIsFilledOnlyWhereTheSpecHasSmallDisksAndIsFreedByARestart() {
        NemesisSpec withDisks = new NemesisSpec(SPEC.nodes(), 3, 12, Duration.ofMillis(100), Duration.ofMillis(900),
                true);
        Set<String> with = new TreeSet<>();
        Set<String> without = new TreeSet<>();
        for (long seed = 1; seed <= 200; seed++) {
            NemesisPlan plan = NemesisGenerator.plan(seed, withDisks);
            plan.steps().forEach(s -> with.add(s.kind()));
            plan.healing().forEach(s -> with.add(s.kind()));
            NemesisGenerator.plan(seed, SPEC).steps().forEach(s -> without.add(s.kind()));
        }

        assertTrue(with.containsAll(List.of("fill-disk", "free-disk")), with.toString());
        assertTrue(without.stream().noneMatch(k -> k.endsWith("-disk")), without.toString());
        ClusterModel model = withDisks.newModel();
        new FillDisk(2).update(model);
        assertEquals(List.of(new FreeDisk(2)), model.healing());
    }

    @Test
    void aPlanPrintsAsNumberedReadableSteps() {
        NemesisPlan plan = new NemesisPlan(42, List.of(2, 1, 3), List.of(new Kill(2), new Wait(Duration.ofMillis(300)),
                new CutLinks(List.of("3->1 replication")), new DeleteRecords(0.5)),
                List.of(new Restart(2, true), new HealLink("3->1 replication")));

        assertEquals("""
                seed 42: replicas [2, 1, 3], 4 steps, then 2 to heal
                  1. kill 2
                  2. wait 300 ms
                  3. cut [3->1 replication]
                  4. delete records below 50% of the high watermark
                  5. restart 2 (heal)
                  6. heal 3->1 replication (heal)
                """, plan.toString());
        assertNotEquals(plan, NemesisGenerator.plan(42, SPEC));
    }
}
