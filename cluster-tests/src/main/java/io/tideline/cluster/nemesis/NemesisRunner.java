package io.tideline.cluster.nemesis;

import java.util.ArrayList;
import java.util.List;

/**
 * Applies a plan's steps to a cluster one after the other, each checked against the runner's own
 * {@link ClusterModel} before it touches the cluster (so a hand-written or edited plan cannot kill a majority
 * or restart a running node either), and records each step with its outcome and duration. {@link #healAll}
 * undoes whatever the model still has in force; call it at the end of a round, also after a failure, so the
 * next round starts whole. Used from one thread.
 */
public final class NemesisRunner {

    /** Called after every step, e.g. to sample the replicas' watermarks or mark a restart in the history. */
    @FunctionalInterface
    public interface Listener {
        void afterStep(Step step) throws Exception;
    }

    /** One step as it ran: its position in the round (from 1), what it did and how long it took. */
    public record Step(int index, Operation operation, String outcome, long tookMs) {
        @Override
        public String toString() {
            return index + ". " + operation + " -> " + outcome + " (" + tookMs + " ms)";
        }
    }

    private final NemesisContext context;
    private final ClusterModel model;
    private final Listener listener;
    private final List<Step> steps = new ArrayList<>();

    public NemesisRunner(NemesisContext context, ClusterModel model, Listener listener) {
        this.context = context;
        this.model = model;
        this.listener = listener;
    }

    public void run(List<Operation> operations) throws Exception {
        for (Operation operation : operations) {
            step(operation);
        }
    }

    /** Brings every down node back and heals every broken link, as the model has them. */
    public void healAll() throws Exception {
        run(model.healing());
    }

    private void step(Operation operation) throws Exception {
        operation.update(model);
        long start = System.nanoTime();
        String outcome;
        try {
            outcome = operation.apply(context);
        } catch (Exception | Error e) {
            steps.add(new Step(steps.size() + 1, operation, "threw " + e, (System.nanoTime() - start) / 1_000_000));
            throw e;
        }
        Step step = new Step(steps.size() + 1, operation, outcome, (System.nanoTime() - start) / 1_000_000);
        steps.add(step);
        listener.afterStep(step);
    }

    public ClusterModel model() {
        return model;
    }

    /** What ran so far, for {@code seed}'s round. */
    public NemesisReport report(long seed) {
        return new NemesisReport(seed, steps);
    }
}
