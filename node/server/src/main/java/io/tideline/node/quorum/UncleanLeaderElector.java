package io.tideline.node.quorum;

import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.controller.ControllerSettings;
import io.tideline.node.controller.LeaderlessPartitions;
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
 * The active controller's periodic unclean election (docs/metadata.md, "Unclean election"), as Kafka's controller
 * runs it: every {@code unclean.leader.election.interval.ms}, the partitions with no leader whose
 * {@code unclean.leader.election.enable} is true get a live replica outside the ISR as leader. A broker that
 * comes back already leads what it can when it is unfenced; this round is what brings back a partition that was
 * offline before an operator turned the setting on, with its last ISR member gone for good. The command is
 * marked {@code only_where_enabled}, so a setting turned off again before it is applied keeps the partition
 * offline.
 */
public final class UncleanLeaderElector extends PeriodicElection {
    private static final Logger log = LoggerFactory.getLogger(UncleanLeaderElector.class);
    /** Kafka's bound of elections per round; the rest wait for the next. */
    static final int MAX_ELECTIONS_PER_ROUND = 1000;

    private final ControllerSettings settings;

    /**
     * @param active    true while this node is the ready Raft leader (the controller duties run)
     * @param submitter submits to the local Raft server only
     */
    public UncleanLeaderElector(ControllerSettings settings, long intervalMs, Time time, Scheduler scheduler,
                                Supplier<MetadataImage> images, BooleanSupplier active,
                                Function<ControllerCommand, CompletableFuture<ControllerResponse>> submitter) {
        super("controller-unclean-election", "Unclean election", log, intervalMs, time, scheduler, images, active,
                submitter);
        this.settings = settings;
    }

    @Override
    boolean enabled() {
        // Always scheduled: the setting can be turned on at run time (a topic config or the cluster default).
        return true;
    }

    @Override
    ElectLeaders plan(MetadataImage image) {
        List<TopicPartitionRef> elect = LeaderlessPartitions.uncleanElectable(image, settings, MAX_ELECTIONS_PER_ROUND);
        return elect.isEmpty() ? null : ElectLeaders.newBuilder().addAllPartitions(elect).setElectionType(1)
                .setOnlyWhereEnabled(true).build();
    }

    @Override
    void elected(List<String> partitions) {
        // ERROR, as Kafka logs it: records that only the lost ISR held are gone.
        log.error("Unclean leader election for {} offline partitions ({}): unclean.leader.election.enable is true "
                + "and no ISR member is alive, so a replica outside the ISR leads; records only the old ISR held are "
                + "lost", partitions.size(), names(partitions));
    }
}
