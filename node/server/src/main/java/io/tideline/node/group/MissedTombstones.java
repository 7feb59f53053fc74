package io.tideline.node.group;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.node.metadata.GroupImage;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.CommittedOffset;
import io.tideline.store.cleaner.LogCleanerManager;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction's classic silent loss, made visible (docs/behaviours.md B194): a consumer group whose committed offset
 * on a compacted partition lies at or below a tombstone that this broker's cleaner already removed as its key's
 * latest record. Such a group, reading on, never sees that delete. Checked on the partitions this broker leads (each
 * replica cleans on its own; consumers read from the leader), from the metadata image's committed offsets. Each
 * suspect is logged at WARN once and counted by the gauge {@value #GAUGE}. Thread-safe.
 */
public final class MissedTombstones {
    /** The number of (group, partition) pairs found at the last check. */
    public static final String GAUGE = "tideline.group:type=CompactedTopics,name=GroupPartitionsBelowRemovedTombstone";

    private static final Logger log = LoggerFactory.getLogger(MissedTombstones.class);

    /** One group and partition whose committed offset lies at or below a removed tombstone. */
    public record Suspect(String group, TopicPartition topicPartition, long committedOffset,
                          long removedTombstoneOffset) {
    }

    private final Supplier<MetadataImage> image;
    private final Function<TopicPartition, Optional<Log>> logs;
    private final Function<TopicPartition, Optional<Long>> removedTombstones;
    private final Predicate<TopicPartition> leads;
    private final Set<Suspect> reported = ConcurrentHashMap.newKeySet();
    private volatile int lastCount;

    MissedTombstones(Supplier<MetadataImage> image, Function<TopicPartition, Optional<Log>> logs,
                     Function<TopicPartition, Optional<Long>> removedTombstones, Predicate<TopicPartition> leads) {
        this.image = image;
        this.logs = logs;
        this.removedTombstones = removedTombstones;
        this.leads = leads;
    }

    /** The check over this broker's logs; a broker without a cleaner never has suspects. */
    public static MissedTombstones of(Supplier<MetadataImage> image, LogManager logManager,
                                      Predicate<TopicPartition> leads) {
        Optional<LogCleanerManager> manager = logManager.cleaner().map(c -> c.manager());
        return new MissedTombstones(image, logManager::getLog,
                tp -> manager.flatMap(m -> m.removedTombstoneOffset(tp)), leads);
    }

    public void register(MetricRegistry registry) {
        registry.register(GAUGE, (Gauge<Integer>) () -> lastCount);
    }

    /** Looks at every group's committed offsets now; logs the suspects not reported before and returns all. */
    public List<Suspect> check() {
        List<Suspect> found = new ArrayList<>();
        for (GroupImage group : image.get().groups().values()) {
            for (CommittedOffset committed : group.offsets()) {
                TopicPartition tp = new TopicPartition(committed.getTopic(), committed.getPartition());
                if (!leads.test(tp) || logs.apply(tp).map(l -> !l.config().compact()).orElse(true)) {
                    continue;
                }
                Optional<Long> removed = removedTombstones.apply(tp);
                if (removed.isPresent() && committed.getOffset() <= removed.get()) {
                    found.add(new Suspect(group.groupId(), tp, committed.getOffset(), removed.get()));
                }
            }
        }
        for (Suspect s : found) {
            if (reported.add(s)) {
                log.warn("Group {} may have missed a delete on {}: its committed offset {} is at or below offset {} of "
                        + "a tombstone the cleaner removed after delete.retention.ms; reading on, it will not see "
                        + "that key deleted", s.group(), s.topicPartition(), s.committedOffset(),
                        s.removedTombstoneOffset());
            }
        }
        reported.retainAll(found);
        lastCount = found.size();
        return found;
    }
}
