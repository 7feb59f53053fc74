package io.tideline.node.broker;

import io.tideline.common.TopicPartition;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.PartitionRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one broker must do to go from one metadata image to a later one: the partitions it now leads or
 * follows (only those whose state here changed), the replicas it no longer hosts, the logs to delete, and
 * whether it was fenced or unfenced. Computed by comparing two images, so a broker needs no intermediate
 * record and can skip any number of images (a fetching broker does).
 *
 * <p>Partitions are identified by topic id, not name: a topic deleted and re-created under the same name
 * between the two images shows up as a {@link LogToDelete} of the old id and a lead/follow of the new one
 * with the same {@link TopicPartition}. A handler therefore applies stops and deletes before leads and
 * follows. Every list is sorted by topic partition, then topic id, so the same two images always give
 * the same delta.
 *
 * <p>Immutable.
 */
public final class MetadataDelta {

    /** A broker's fence state change between the two images. */
    public enum FenceChange {
        NONE,
        /** Unfenced before, fenced (or re-registered, which starts fenced) now. */
        FENCED,
        /** Fenced or not registered before, unfenced now. */
        UNFENCED
    }

    private static final Comparator<PartitionToLead> LEAD_ORDER =
            Comparator.comparing(PartitionToLead::topicPartition).thenComparing(PartitionToLead::topicId);
    private static final Comparator<PartitionToFollow> FOLLOW_ORDER =
            Comparator.comparing(PartitionToFollow::topicPartition).thenComparing(PartitionToFollow::topicId);
    private static final Comparator<PartitionToStop> STOP_ORDER =
            Comparator.comparing(PartitionToStop::topicPartition).thenComparing(PartitionToStop::topicId);
    private static final Comparator<LogToDelete> DELETE_ORDER =
            Comparator.comparing(LogToDelete::topicPartition).thenComparing(LogToDelete::topicId);

    private final int brokerId;
    private final long previousOffset;
    private final long offset;
    private final List<PartitionToLead> partitionsToLead;
    private final List<PartitionToFollow> partitionsToFollow;
    private final List<PartitionToStop> partitionsToStop;
    private final List<LogToDelete> logsToDelete;
    private final FenceChange fenceChange;

    private MetadataDelta(int brokerId, long previousOffset, long offset, List<PartitionToLead> lead,
                          List<PartitionToFollow> follow, List<PartitionToStop> stop, List<LogToDelete> delete,
                          FenceChange fenceChange) {
        this.brokerId = brokerId;
        this.previousOffset = previousOffset;
        this.offset = offset;
        this.partitionsToLead = List.copyOf(lead);
        this.partitionsToFollow = List.copyOf(follow);
        this.partitionsToStop = List.copyOf(stop);
        this.logsToDelete = List.copyOf(delete);
        this.fenceChange = fenceChange;
    }

    /**
     * The delta for {@code brokerId} from {@code previous} to {@code current}. Use
     * {@link MetadataImage#EMPTY} as {@code previous} for a broker's first image: every hosted partition is
     * then listed.
     */
    public static MetadataDelta compute(int brokerId, MetadataImage previous, MetadataImage current) {
        Objects.requireNonNull(previous, "previous");
        Objects.requireNonNull(current, "current");
        Map<PartitionKey, PartitionRecord> before = partitions(previous);
        Map<PartitionKey, PartitionRecord> after = partitions(current);

        List<PartitionToLead> lead = new ArrayList<>();
        List<PartitionToFollow> follow = new ArrayList<>();
        for (Map.Entry<PartitionKey, PartitionRecord> e : after.entrySet()) {
            PartitionRecord now = e.getValue();
            if (!now.getReplicasList().contains(brokerId)) {
                continue;
            }
            PartitionKey key = e.getKey();
            PartitionRecord was = before.get(key);
            boolean hostedBefore = was != null && was.getReplicasList().contains(brokerId);
            if (now.getLeader() == brokerId) {
                boolean unchanged = hostedBefore
                        && was.getLeader() == brokerId
                        && was.getLeaderEpoch() == now.getLeaderEpoch()
                        && was.getPartitionEpoch() == now.getPartitionEpoch()
                        && was.getIsrList().equals(now.getIsrList())
                        && was.getReplicasList().equals(now.getReplicasList());
                if (!unchanged) {
                    lead.add(new PartitionToLead(key.topicPartition(), key.topicId(), now.getLeaderEpoch(),
                            now.getPartitionEpoch(), now.getIsrList(), now.getReplicasList()));
                }
            } else {
                boolean unchanged = hostedBefore
                        && was.getLeader() == now.getLeader()
                        && was.getLeaderEpoch() == now.getLeaderEpoch();
                if (!unchanged) {
                    follow.add(new PartitionToFollow(key.topicPartition(), key.topicId(), now.getLeader(),
                            now.getLeaderEpoch()));
                }
            }
        }

        List<PartitionToStop> stop = new ArrayList<>();
        List<LogToDelete> delete = new ArrayList<>();
        for (Map.Entry<PartitionKey, PartitionRecord> e : before.entrySet()) {
            if (!e.getValue().getReplicasList().contains(brokerId)) {
                continue;
            }
            PartitionKey key = e.getKey();
            PartitionRecord now = after.get(key);
            if (now != null && now.getReplicasList().contains(brokerId)) {
                continue;
            }
            LogToDelete.Reason reason = current.topicById(key.topicId()).isPresent()
                    ? LogToDelete.Reason.REPLICA_REMOVED
                    : LogToDelete.Reason.TOPIC_DELETED;
            stop.add(new PartitionToStop(key.topicPartition(), key.topicId()));
            delete.add(new LogToDelete(key.topicPartition(), key.topicId(), reason));
        }

        lead.sort(LEAD_ORDER);
        follow.sort(FOLLOW_ORDER);
        stop.sort(STOP_ORDER);
        delete.sort(DELETE_ORDER);
        return new MetadataDelta(brokerId, previous.offset(), current.offset(), lead, follow, stop, delete,
                fenceChange(brokerId, previous, current));
    }

    private static FenceChange fenceChange(int brokerId, MetadataImage previous, MetadataImage current) {
        // An unregistered broker counts as fenced: it may not lead or join an ISR.
        boolean fencedBefore = previous.broker(brokerId).map(BrokerRegistrationRecord::getFenced).orElse(true);
        boolean fencedNow = current.broker(brokerId).map(BrokerRegistrationRecord::getFenced).orElse(true);
        if (fencedBefore == fencedNow) {
            return FenceChange.NONE;
        }
        return fencedNow ? FenceChange.FENCED : FenceChange.UNFENCED;
    }

    private record PartitionKey(String topicId, TopicPartition topicPartition) {
    }

    private static Map<PartitionKey, PartitionRecord> partitions(MetadataImage image) {
        Map<PartitionKey, PartitionRecord> result = new TreeMap<>(
                Comparator.comparing(PartitionKey::topicId).thenComparing(PartitionKey::topicPartition));
        for (TopicImage topic : image.topics().values()) {
            for (PartitionRecord p : topic.partitions().values()) {
                result.put(new PartitionKey(topic.id(), new TopicPartition(topic.name(), p.getPartition())), p);
            }
        }
        return result;
    }

    public int brokerId() {
        return brokerId;
    }

    /** The offset of the image this delta starts from. */
    public long previousOffset() {
        return previousOffset;
    }

    /** The offset of the image this delta leads to. */
    public long offset() {
        return offset;
    }

    public List<PartitionToLead> partitionsToLead() {
        return partitionsToLead;
    }

    public List<PartitionToFollow> partitionsToFollow() {
        return partitionsToFollow;
    }

    public List<PartitionToStop> partitionsToStop() {
        return partitionsToStop;
    }

    public List<LogToDelete> logsToDelete() {
        return logsToDelete;
    }

    public FenceChange fenceChange() {
        return fenceChange;
    }

    public boolean fenced() {
        return fenceChange == FenceChange.FENCED;
    }

    public boolean unfenced() {
        return fenceChange == FenceChange.UNFENCED;
    }

    /** True when the broker has nothing to do (other brokers or topics may still have changed). */
    public boolean isEmpty() {
        return partitionsToLead.isEmpty() && partitionsToFollow.isEmpty() && partitionsToStop.isEmpty()
                && logsToDelete.isEmpty() && fenceChange == FenceChange.NONE;
    }

    @Override
    public String toString() {
        return "MetadataDelta(broker=" + brokerId + ", offsets " + previousOffset + "->" + offset
                + ", lead=" + partitionsToLead + ", follow=" + partitionsToFollow + ", stop=" + partitionsToStop
                + ", delete=" + logsToDelete + ", fence=" + fenceChange + ")";
    }
}
