package io.tideline.node.quorum;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.controller.LeaderImbalance;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ElectLeaders;
import io.tideline.proto.metadata.ItemResult;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active controller's automatic preferred-leader balancing (auto.leader.rebalance.enable,
 * docs/behaviours.md B63): every leader.imbalance.check.interval.seconds, the partitions that
 * {@link LeaderImbalance} picks get a preferred election, submitted as one ElectLeaders command
 * through this voter's own Raft server (a deposed leader's round fails instead of reaching the new
 * leader). The command re-checks every partition when it is applied, so a round computed on a
 * slightly old image elects nothing that became wrong meanwhile.
 *
 * <p>Thread-safety: rounds run on the scheduler; {@link #runRound} may also be called by tests. The
 * only state is the in-flight flag, so one slow round is never overlapped by the next.
 */
public final class LeaderBalancer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaderBalancer.class);
    private static final int MAX_NAMES_LOGGED = 20;

    /** {@code auto.leader.rebalance.enable}, {@code leader.imbalance.per.broker.percentage}, the check interval. */
    public record Settings(boolean enabled, int imbalancePercentage, long checkIntervalMs) {
        public static final Settings DEFAULT = new Settings(true, 10, 300_000L);

        public Settings {
            if (checkIntervalMs <= 0) {
                throw new IllegalArgumentException("leader.imbalance.check.interval must be positive: " + checkIntervalMs);
            }
        }
    }

    private final Settings settings;
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
    public LeaderBalancer(Settings settings, Time time, Scheduler scheduler, Supplier<MetadataImage> images,
                          BooleanSupplier active,
                          Function<ControllerCommand, CompletableFuture<ControllerResponse>> submitter) {
        this.settings = settings;
        this.time = time;
        this.scheduler = scheduler;
        this.images = images;
        this.active = active;
        this.submitter = submitter;
    }

    /** Schedules the periodic round; with balancing disabled, nothing is scheduled. */
    public synchronized void start() {
        if (settings.enabled() && task == null) {
            task = scheduler.schedule("controller-leader-balance", this::runRound, settings.checkIntervalMs(),
                    settings.checkIntervalMs());
        }
    }

    /**
     * One round: nothing unless this node is the ready leader and no round is in flight.
     *
     * @return the command's answer, or null when nothing was submitted
     */
    public CompletableFuture<ControllerResponse> runRound() {
        List<TopicPartitionRef> elect;
        synchronized (this) {
            if (!settings.enabled() || inFlight || !active.getAsBoolean()) {
                return null;
            }
            elect = LeaderImbalance.plan(images.get(), settings.imbalancePercentage()).elect();
            if (elect.isEmpty()) {
                return null;
            }
            inFlight = true;
        }
        ControllerCommand command = ControllerCommand.newBuilder().setTimestampMs(time.milliseconds())
                .setElectLeaders(ElectLeaders.newBuilder().addAllPartitions(elect).setElectionType(0)).build();
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
            log.info("Leader balancing round failed: {}", RatisErrors.message(err));
            return;
        }
        if (resp.getErrorCode() != Errors.NONE.code()) {
            log.info("Leader balancing round refused: {} {}", Errors.forCode(resp.getErrorCode()), resp.getErrorMessage());
            return;
        }
        List<String> moved = new ArrayList<>();
        for (ItemResult r : resp.getResultsList()) {
            if (r.getErrorCode() == Errors.NONE.code()) {
                moved.add(r.getName());
            }
        }
        if (!moved.isEmpty()) {
            log.info("Leader balancing: preferred leaders elected for {} partitions ({}) above "
                            + "leader.imbalance.per.broker.percentage {}",
                    moved.size(), names(moved), settings.imbalancePercentage());
        }
    }

    /** The first few names: one line per round even when thousands of partitions move. */
    private static String names(List<String> moved) {
        String shown = moved.stream().limit(MAX_NAMES_LOGGED).collect(Collectors.joining(", "));
        return moved.size() > MAX_NAMES_LOGGED ? shown + " and " + (moved.size() - MAX_NAMES_LOGGED) + " more" : shown;
    }

    @Override
    public synchronized void close() {
        if (task != null) {
            task.cancel();
            task = null;
        }
    }
}
