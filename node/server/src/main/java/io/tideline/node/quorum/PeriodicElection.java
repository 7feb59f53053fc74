package io.tideline.node.quorum;

import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ElectLeaders;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A round the active controller runs every interval: plan an ElectLeaders command from the current image and
 * submit it through this voter's own Raft server (a deposed leader's round fails instead of reaching the new
 * leader). The command re-checks every partition when it is applied, so a round planned on a slightly old image
 * elects nothing that became wrong meanwhile.
 *
 * <p>Thread-safety: rounds run on the scheduler; {@link #runRound} may also be called by tests. The only state
 * is the in-flight flag, so one slow round is never overlapped by the next.
 */
public abstract class PeriodicElection implements AutoCloseable {
    private final String taskName;
    private final long intervalMs;
    private final Time time;
    private final Scheduler scheduler;
    private final Supplier<MetadataImage> images;
    private final BooleanSupplier active;
    private final Function<ControllerCommand, CompletableFuture<ControllerResponse>> submitter;
    private boolean inFlight;
    private Scheduler.Cancellable task;

    /**
     * @param active    true while this node is the ready Raft leader (the controller duties run)
     * @param submitter submits to the local Raft server only
     */
    PeriodicElection(String taskName, long intervalMs, Time time, Scheduler scheduler, Supplier<MetadataImage> images,
                     BooleanSupplier active, Function<ControllerCommand, CompletableFuture<ControllerResponse>> submitter) {
        this.taskName = taskName;
        this.intervalMs = intervalMs;
        this.time = time;
        this.scheduler = scheduler;
        this.images = images;
        this.active = active;
        this.submitter = submitter;
    }

    /** Whether rounds run at all; when not, nothing is scheduled. */
    abstract boolean enabled();

    /** The election to submit for {@code image}, or null when there is nothing to elect. */
    abstract ElectLeaders plan(MetadataImage image);

    /** Logs what the round did ({@code err} or a refusal, else the per-partition results). */
    abstract void report(ControllerResponse resp, Throwable err);

    /** Schedules the periodic round, the first one interval from now. */
    public synchronized void start() {
        if (enabled() && task == null) {
            task = scheduler.schedule(taskName, this::runRound, intervalMs, intervalMs);
        }
    }

    /**
     * One round: nothing unless this node is the ready leader and no round is in flight.
     *
     * @return the command's answer, or null when nothing was submitted
     */
    public CompletableFuture<ControllerResponse> runRound() {
        ElectLeaders election;
        synchronized (this) {
            if (!enabled() || inFlight || !active.getAsBoolean()) {
                return null;
            }
            election = plan(images.get());
            if (election == null) {
                return null;
            }
            inFlight = true;
        }
        ControllerCommand command = ControllerCommand.newBuilder().setTimestampMs(time.milliseconds())
                .setElectLeaders(election).build();
        CompletableFuture<ControllerResponse> answer;
        try {
            answer = submitter.apply(command);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        return answer.whenComplete((resp, err) -> {
            synchronized (this) {
                inFlight = false;
            }
            report(resp, err);
        });
    }

    @Override
    public synchronized void close() {
        if (task != null) {
            task.cancel();
            task = null;
        }
    }
}
