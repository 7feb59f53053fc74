package io.tideline.cluster.nemesis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The runner's bookkeeping, with operations that record instead of touching a cluster. */
class NemesisRunnerTest {
    private final List<String> applied = new ArrayList<>();
    private final List<NemesisRunner.Step> listened = new ArrayList<>();
    private final ClusterModel model = new NemesisSpec(List.of(1, 2, 3), 3, 0, Duration.ZERO, Duration.ZERO).newModel();
    private final NemesisRunner runner = new NemesisRunner(null, model, listened::add);

    /** Takes a node down in the model; brought back by {@link Up}. */
    private record Down(int node, List<String> applied) implements Operation {
        public String kind() {
            return "down";
        }

        public void update(ClusterModel model) {
            model.takeDown(node, new Up(node, applied));
        }

        public String apply(NemesisContext context) {
            applied.add("down " + node);
            return "went down";
        }
    }

    private record Up(int node, List<String> applied) implements Operation {
        public String kind() {
            return "up";
        }

        public void update(ClusterModel model) {
            model.bringUp(node);
        }

        public String apply(NemesisContext context) {
            applied.add("up " + node);
            return "came up";
        }
    }

    @Test
    void aStepBreakingAnInvariantIsRefusedBeforeItTouchesTheCluster() {
        assertThrows(IllegalStateException.class,
                () -> runner.run(List.of(new Down(1, applied), new Down(2, applied))));

        assertEquals(List.of("down 1"), applied);
        assertEquals(1, runner.report(5).steps().size());
    }

    @Test
    void healAllUndoesWhatTheModelHasInForceAndEveryStepIsReported() throws Exception {
        runner.run(List.of(new Down(3, applied), new Wait(Duration.ofMillis(1))));
        runner.healAll();

        assertEquals(List.of("down 3", "up 3"), applied);
        assertEquals(List.of(), model.downNodes());
        NemesisReport report = runner.report(5);
        assertEquals(3, listened.size());
        assertEquals(Map.of("down", 1, "up", 1), report.counts());
        assertEquals("came up", report.steps().get(2).outcome());
        assertEquals(3, report.steps().get(2).index());
    }

    @Test
    void aStepThatThrowsIsReportedWithItsException() {
        Operation failing = new Operation() {
            public String kind() {
                return "boom";
            }

            public void update(ClusterModel model) {
            }

            public String apply(NemesisContext context) {
                throw new IllegalStateException("no such node");
            }
        };

        assertThrows(IllegalStateException.class, () -> runner.run(List.of(failing)));
        assertEquals("threw java.lang.IllegalStateException: no such node", runner.report(1).steps().get(0).outcome());
    }
}
