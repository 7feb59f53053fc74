package io.tideline.node.replica;

import io.tideline.node.broker.BrokerMetadataHandler;
import io.tideline.node.broker.MetadataDelta;
import io.tideline.node.config.BrokerConfigResolver;
import io.tideline.node.config.DynamicBrokerConfigs;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the dynamic broker configs of the metadata image to this broker without a restart: when the
 * cluster-wide default or this broker's own set changes, the effective values are resolved again over the
 * static file ({@link BrokerConfigResolver}) and the log defaults go to every log at once (a retention
 * change acts at the next retention pass), min.insync.replicas to the partition settings (the replica
 * handler, which runs next, re-applies them to the partitions it changes), the throttle rates to the
 * running quotas.
 *
 * <p>Runs before the replica handler on each image, so that a log created by that image's leads and
 * follows starts with the values in force. Not thread-safe: the publisher calls it on one thread.
 */
public final class BrokerConfigApplier implements BrokerMetadataHandler {
    private static final Logger log = LoggerFactory.getLogger(BrokerConfigApplier.class);

    private final int brokerId;
    private final BrokerConfigResolver resolver;
    private final LogManager logManager;
    private final ReplicaManager replicaManager;
    private final PartitionSettingsResolver partitionSettings;
    private Map<String, String> appliedDefault = Map.of();
    private Map<String, String> appliedOwn = Map.of();

    public BrokerConfigApplier(int brokerId, BrokerConfigResolver resolver, LogManager logManager,
                               ReplicaManager replicaManager, PartitionSettingsResolver partitionSettings) {
        this.brokerId = brokerId;
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.logManager = Objects.requireNonNull(logManager, "logManager");
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
        this.partitionSettings = Objects.requireNonNull(partitionSettings, "partitionSettings");
    }

    @Override
    public void onDelta(MetadataDelta delta, MetadataImage image) {
        SortedMap<String, String> clusterDefault = image.brokerConfigs(DynamicBrokerConfigs.CLUSTER_DEFAULT);
        SortedMap<String, String> own = image.brokerConfigs(brokerId);
        if (clusterDefault.equals(appliedDefault) && own.equals(appliedOwn)) {
            return;
        }
        // Throws on a merged set that does not parse: the publisher then keeps its previous image and the
        // next image tries again, rather than running with half of the change.
        BrokerConfigResolver.Effective effective = resolver.resolve(clusterDefault, own);
        logManager.updateDefaults(effective.logDefaults());
        partitionSettings.setBrokerMinInsyncReplicas(effective.minInsyncReplicas());
        replicaManager.leaderQuota().setRate(effective.leaderThrottledRate());
        replicaManager.followerQuota().setRate(effective.followerThrottledRate());
        log.info("Dynamic broker configs applied (cluster default {}, broker {} {}): log defaults {}, "
                + "min.insync.replicas {}, leader.replication.throttled.rate {}, "
                + "follower.replication.throttled.rate {}", clusterDefault, brokerId, own, effective.logDefaults(),
                effective.minInsyncReplicas(), effective.leaderThrottledRate(), effective.followerThrottledRate());
        appliedDefault = Map.copyOf(clusterDefault);
        appliedOwn = Map.copyOf(own);
    }
}
