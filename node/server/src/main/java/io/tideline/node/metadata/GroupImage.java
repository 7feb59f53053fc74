package io.tideline.node.metadata;

import io.tideline.proto.metadata.CommittedOffset;
import io.tideline.proto.metadata.GroupMetadataRecord;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.util.Collection;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A consumer group as the quorum holds it: its metadata after the last completed rebalance (absent for a group
 * that only ever got simple commits) and its committed offsets, sorted by topic and partition. Heartbeats and
 * sessions are not here: they live in the coordinator's memory (docs/kafka-protocol.md, Consumer groups).
 * Immutable.
 */
public final class GroupImage {
    private final String groupId;
    private final GroupMetadataRecord metadata;
    private final SortedMap<String, CommittedOffset> offsets;

    GroupImage(String groupId, GroupMetadataRecord metadata, SortedMap<String, CommittedOffset> offsets) {
        this.groupId = groupId;
        this.metadata = metadata;
        this.offsets = Collections.unmodifiableSortedMap(offsets);
    }

    static GroupImage empty(String groupId) {
        return new GroupImage(groupId, null, new TreeMap<>());
    }

    public String groupId() {
        return groupId;
    }

    public Optional<GroupMetadataRecord> metadata() {
        return Optional.ofNullable(metadata);
    }

    /** -1 when no rebalance ever completed (Kafka's generation of a new group is 0 after its first one). */
    public int generation() {
        return metadata == null ? -1 : metadata.getGeneration();
    }

    public boolean hasMembers() {
        return metadata != null && metadata.getMembersCount() > 0;
    }

    public Collection<CommittedOffset> offsets() {
        return offsets.values();
    }

    public Optional<CommittedOffset> offset(String topic, int partition) {
        return Optional.ofNullable(offsets.get(offsetKey(topic, partition)));
    }

    /** The newest of the last commit and the last state change: offsets.retention.minutes counts from it. */
    public long lastActivityMs() {
        long last = metadata == null ? Long.MIN_VALUE : metadata.getTimestampMs();
        for (CommittedOffset o : offsets.values()) {
            last = Math.max(last, o.getCommitTimestampMs());
        }
        return last;
    }

    GroupImage withMetadata(GroupMetadataRecord record) {
        return new GroupImage(groupId, record, new TreeMap<>(offsets));
    }

    GroupImage withOffsets(Collection<CommittedOffset> committed) {
        TreeMap<String, CommittedOffset> next = new TreeMap<>(offsets);
        committed.forEach(o -> next.put(offsetKey(o.getTopic(), o.getPartition()), o));
        return new GroupImage(groupId, metadata, next);
    }

    GroupImage withoutOffsets(Collection<TopicPartitionRef> removed) {
        TreeMap<String, CommittedOffset> next = new TreeMap<>(offsets);
        removed.forEach(k -> next.remove(offsetKey(k.getTopic(), k.getPartition())));
        return new GroupImage(groupId, metadata, next);
    }

    /** Sorts by topic, then by partition number (NUL sorts before every character a topic name may hold). */
    static String offsetKey(String topic, int partition) {
        return topic + "\u0000" + String.format("%010d", partition);
    }

    @Override
    public String toString() {
        return "GroupImage(" + groupId + ", generation " + generation() + ", " + offsets.size() + " offsets)";
    }
}
