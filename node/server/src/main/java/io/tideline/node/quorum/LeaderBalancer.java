package io.tideline.node.quorum;

import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.controller.LeaderImbalance;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ElectLeaders;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active controller's automatic preferred-leader balancing (auto.leader.rebalance.enable,
 * docs/behaviours.md B63): every leader.imbalance.check.interval.seconds, the partitions that
 * {@link LeaderImbalance} picks get a preferred election, submitted as one ElectLeaders command
 * ({@link PeriodicElection}).
 */
public final class LeaderBalancer extends PeriodicElection {
    private static final Logger log = LoggerFactory.getLogger(LeaderBalancer.class);

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

    /**
     * @param active    true while this node is the ready Raft leader (the controller duties run)
     * @param submitter submits to the local Raft server only
     */
    public LeaderBalancer(Settings settings, Time time, Scheduler scheduler, Supplier<MetadataImage> images,
                          BooleanSupplier active,
                          Function<ControllerCommand, CompletableFuture<ControllerResponse>> submitter) {
        super("controller-leader-balance", "Leader balancing", log, settings.checkIntervalMs(), time, scheduler, images,
                active, submitter);
        this.settings = settings;
    }

    @Override
    boolean enabled() {
        return settings.enabled();
    }

    @Override
    ElectLeaders plan(MetadataImage image) {
        List<TopicPartitionRef> elect = LeaderImbalance.plan(image, settings.imbalancePercentage()).elect();
        return elect.isEmpty() ? null : ElectLeaders.newBuilder().addAllPartitions(elect).setElectionType(0).build();
    }

    @Override
    void elected(List<String> moved) {
        log.info("Leader balancing: preferred leaders elected for {} partitions ({}) above "
                + "leader.imbalance.per.broker.percentage {}", moved.size(), names(moved), settings.imbalancePercentage());
    }
}
