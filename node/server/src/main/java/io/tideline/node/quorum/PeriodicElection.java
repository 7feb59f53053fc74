package io.tideline.node.quorum;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ElectLeaders;
import io.tideline.proto.metadata.ItemResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;

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
    private static final int MAX_NAMES_LOGGED = 20;
    private final String taskName;
    private final String roundName;
    private final Logger log;
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
    PeriodicElection(String taskName, String roundName, Logger log, long intervalMs, Time time, Scheduler scheduler,
                     Supplier<MetadataImage> images, BooleanSupplier active,
                     Function<ControllerCommand, CompletableFuture<ControllerResponse>> submitter) {
        if (intervalMs <= 0) {
            throw new IllegalArgumentException(taskName + ": the interval must be positive, got " + intervalMs);
        }
        this.taskName = taskName;
        this.roundName = roundName;
        this.log = log;
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

    /** Logs the partitions the round gave a new leader (never empty). */
    abstract void elected(List<String> partitions);

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

    private void report(ControllerResponse resp, Throwable err) {
        if (err != null) {
            log.info("{} round failed: {}", roundName, RatisErrors.message(err));
            return;
        }
        if (resp.getErrorCode() != Errors.NONE.code()) {
            log.info("{} round refused: {} {}", roundName, Errors.forCode(resp.getErrorCode()), resp.getErrorMessage());
            return;
        }
        List<String> elected = resp.getResultsList().stream().filter(r -> r.getErrorCode() == Errors.NONE.code())
                .map(ItemResult::getName).toList();
        if (!elected.isEmpty()) {
            elected(elected);
        }
    }

    /** The first few names: one line per round even when thousands of partitions move. */
    static String names(List<String> names) {
        String shown = names.stream().limit(MAX_NAMES_LOGGED).collect(Collectors.joining(", "));
        return names.size() > MAX_NAMES_LOGGED ? shown + " and " + (names.size() - MAX_NAMES_LOGGED) + " more" : shown;
    }

    @Override
    public synchronized void close() {
        if (task != null) {
            task.cancel();
            task = null;
        }
    }
}
