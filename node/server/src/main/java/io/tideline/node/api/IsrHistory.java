package io.tideline.node.api;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.PartitionChangeRecord;
import java.util.List;

/**
 * "Since when" read off a partition's ISR history (oldest first), the controller's commit times. The
 * history keeps the last {@link MetadataImage#RECENT_CHANGES_PER_PARTITION} changes and has no entry for
 * the creation, so a state that held over the whole of a shorter history is reported as unknown (-1; it held
 * since the creation), except being out of the ISR (a partition is created with its replicas in it), and
 * over the whole of a full one as the oldest entry's time (it held at least since then).
 */
final class IsrHistory {
    private IsrHistory() {
    }

    /** When {@code replica} last entered ({@code member}) or left the ISR. */
    static long membershipSince(List<PartitionChangeRecord> history, int replica, boolean member) {
        int i = history.size() - 1;
        while (i >= 0 && history.get(i).getPartition().getIsrList().contains(replica) == member) {
            i--;
        }
        if (i < 0 && !member && !history.isEmpty() && history.size() < MetadataImage.RECENT_CHANGES_PER_PARTITION) {
            // A partition starts with its replicas in the ISR: out of it in the whole history means the first
            // change took it out.
            return history.get(0).getTimestampMs();
        }
        return since(history, i);
    }

    /** When {@code leader} began leading at {@code leaderEpoch}. */
    static long leaderSince(List<PartitionChangeRecord> history, int leader, int leaderEpoch) {
        int i = history.size() - 1;
        while (i >= 0 && history.get(i).getPartition().getLeader() == leader
                && history.get(i).getPartition().getLeaderEpoch() == leaderEpoch) {
            i--;
        }
        return since(history, i);
    }

    /** {@code last} is the newest entry where the state did not hold (-1: none did). */
    private static long since(List<PartitionChangeRecord> history, int last) {
        if (last == history.size() - 1) {
            return -1; // the newest entry does not show the state yet: the history is behind the caller
        }
        if (last >= 0) {
            return history.get(last + 1).getTimestampMs();
        }
        return history.size() >= MetadataImage.RECENT_CHANGES_PER_PARTITION ? history.get(0).getTimestampMs() : -1;
    }
}
