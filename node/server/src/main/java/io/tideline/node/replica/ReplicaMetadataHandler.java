package io.tideline.node.replica;

import io.tideline.common.TopicPartition;
import io.tideline.node.broker.BrokerMetadataHandler;
import io.tideline.node.broker.LogToDelete;
import io.tideline.node.broker.MetadataDelta;
import io.tideline.node.broker.PartitionToFollow;
import io.tideline.node.broker.PartitionToLead;
import io.tideline.node.broker.PartitionToStop;
import io.tideline.node.config.TopicConfigs;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.replication.server.LeaderAndIsr;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies metadata deltas to the broker's replicas: stops and deletes first (a topic re-created under the
 * same name needs its old log gone), then leads and follows at the committed epochs, then the set of live
 * brokers DeleteRecords waits for. Settings per partition come from the topic's configs over the broker
 * defaults ({@link PartitionSettingsResolver}).
 */
public final class ReplicaMetadataHandler implements BrokerMetadataHandler {
    private static final Logger log = LoggerFactory.getLogger(ReplicaMetadataHandler.class);

    private final int brokerId;
    private final ReplicaManager replicaManager;
    private final LogManager logManager;
    private final PartitionSettingsResolver settings;
    /** Told of a partition whose log could not be created here (the broker takes it offline and reports it). */
    private final java.util.function.BiConsumer<TopicPartition, RuntimeException> logCreationFailed;
    /** Topic configs as last applied, by topic id: a change re-applies the settings of hosted partitions. */
    private final Map<String, SortedMap<String, String>> appliedConfigs = new HashMap<>();
    /** The broker's min.insync.replicas as last applied: a dynamic change re-applies topics without their own. */
    private int appliedBrokerMinIsr;

    public ReplicaMetadataHandler(int brokerId, ReplicaManager replicaManager, LogManager logManager,
                                  PartitionSettingsResolver settings) {
        this(brokerId, replicaManager, logManager, settings, (tp, e) -> replicaManager.markOffline(List.of(tp)));
    }

    /**
     * @param logCreationFailed told of a partition whose log could not be created on this broker's disks; the
     *                          partition is skipped and the rest of the delta applied (docs/behaviours.md B145)
     */
    public ReplicaMetadataHandler(int brokerId, ReplicaManager replicaManager, LogManager logManager,
                                  PartitionSettingsResolver settings,
                                  java.util.function.BiConsumer<TopicPartition, RuntimeException> logCreationFailed) {
        this.logCreationFailed = Objects.requireNonNull(logCreationFailed, "logCreationFailed");
        this.brokerId = brokerId;
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
        this.logManager = Objects.requireNonNull(logManager, "logManager");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.appliedBrokerMinIsr = settings.brokerMinInsyncReplicas();
    }

    @Override
    public void onDelta(MetadataDelta delta, MetadataImage image) {
        for (PartitionToStop stop : delta.partitionsToStop()) {
            replicaManager.stopReplica(stop.topicPartition());
        }
        for (LogToDelete delete : delta.logsToDelete()) {
            replicaManager.stopReplica(delete.topicPartition());
            deleteLog(delete);
        }
        for (PartitionToLead lead : delta.partitionsToLead()) {
            TopicImage topic = image.topicById(lead.topicId()).orElseThrow();
            applyPartitionState(new LeaderAndIsr(lead.topicPartition(), lead.topicId(), brokerId,
                    lead.leaderEpoch(), lead.partitionEpoch(), lead.replicas(), lead.isr()),
                    settings.resolve(topic, lead.topicPartition().partition(), brokerId));
        }
        for (PartitionToFollow follow : delta.partitionsToFollow()) {
            TopicImage topic = image.topicById(follow.topicId()).orElseThrow();
            PartitionRecord p = topic.partition(follow.topicPartition().partition());
            applyPartitionState(new LeaderAndIsr(follow.topicPartition(), follow.topicId(),
                    follow.hasLeader() ? follow.leaderId() : LeaderAndIsr.NO_LEADER, follow.leaderEpoch(),
                    p.getPartitionEpoch(), p.getReplicasList(), p.getIsrList()),
                    settings.resolve(topic, follow.topicPartition().partition(), brokerId));
        }
        applyConfigChanges(delta, image);
        replicaManager.updateLiveBrokers(liveBrokers(image));
    }

    /**
     * A disk fault is this broker's, not the image's (docs/behaviours.md B145): a log that cannot be created
     * takes its partition offline here and is reported, and the rest of the delta is applied. Thrown out of
     * the handler it would make the publisher refuse the image, and every later image would repeat the same
     * create and fail on it, so the broker's metadata would stop moving.
     */
    private void applyPartitionState(LeaderAndIsr state, io.tideline.replication.server.PartitionSettings resolved) {
        try {
            replicaManager.applyPartitionState(state, resolved);
        } catch (io.tideline.common.errors.TidelineException e) {
            if (e.error() != io.tideline.common.errors.Errors.KAFKA_STORAGE_ERROR) {
                throw e;
            }
            log.error("Applying {} failed on this broker's disk; the partition is offline here: {}",
                    state.topicPartition(), e.getMessage());
            logCreationFailed.accept(state.topicPartition(), e);
        }
    }

    /**
     * A log whose files cannot be removed is a disk fault of its dir (docs/behaviours.md B145): the dir goes
     * offline (the broker reports its partitions) and the rest of the delta is applied. What is left of the
     * deleted log stays in the offline dir until an operator repairs it.
     */
    private void deleteLog(LogToDelete delete) {
        TopicPartition tp = delete.topicPartition();
        java.util.Optional<java.nio.file.Path> dir = logManager.logDir(tp);
        try {
            logManager.deleteLog(tp);
            log.info("Deleted the log of {} ({})", tp, delete.reason());
        } catch (IOException | UncheckedIOException | io.tideline.common.errors.TidelineException e) {
            log.error("Deleting the log of {} failed; its log dir goes offline: {}", tp, e.toString());
            dir.ifPresent(d -> logManager.markLogDirOffline(d, "deleting the log of " + tp + " failed: " + e));
        }
    }

    /**
     * Topics whose configs changed, and, when the broker's min.insync.replicas changed, topics without their
     * own: partitions not already re-applied above get their new settings.
     */
    private void applyConfigChanges(MetadataDelta delta, MetadataImage image) {
        Set<TopicPartition> applied = new HashSet<>();
        delta.partitionsToLead().forEach(p -> applied.add(p.topicPartition()));
        delta.partitionsToFollow().forEach(p -> applied.add(p.topicPartition()));
        int brokerMinIsr = settings.brokerMinInsyncReplicas();
        boolean brokerMinIsrChanged = brokerMinIsr != appliedBrokerMinIsr;
        Map<String, SortedMap<String, String>> current = new HashMap<>();
        for (TopicImage topic : image.topics().values()) {
            current.put(topic.id(), topic.configs());
            SortedMap<String, String> before = appliedConfigs.get(topic.id());
            boolean topicChanged = before != null && !before.equals(topic.configs());
            boolean followsBroker = brokerMinIsrChanged
                    && !topic.configs().containsKey(TopicConfigs.MIN_IN_SYNC_REPLICAS_CONFIG);
            if (!topicChanged && !followsBroker) {
                continue;
            }
            for (PartitionRecord p : topic.partitions().values()) {
                TopicPartition tp = new TopicPartition(topic.name(), p.getPartition());
                if (p.getReplicasList().contains(brokerId) && !applied.contains(tp)) {
                    log.info("{} changed; applying the settings again to {}", topicChanged
                            ? "Topic configs of " + topic.name() : "The broker's min.insync.replicas (" + brokerMinIsr
                            + ")", tp);
                    replicaManager.updateSettings(tp, settings.resolve(topic, p.getPartition(), brokerId));
                }
            }
        }
        appliedConfigs.clear();
        appliedConfigs.putAll(current);
        appliedBrokerMinIsr = brokerMinIsr;
    }

    private static Set<Integer> liveBrokers(MetadataImage image) {
        Set<Integer> live = new HashSet<>();
        for (int id : image.brokers().keySet()) {
            if (image.isBrokerUnfenced(id)) {
                live.add(id);
            }
        }
        return live;
    }
}
