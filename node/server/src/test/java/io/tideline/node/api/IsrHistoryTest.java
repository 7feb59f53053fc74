package io.tideline.node.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ChangeReason;
import io.tideline.proto.metadata.PartitionChangeRecord;
import io.tideline.proto.metadata.PartitionRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IsrHistoryTest {

    private static PartitionChangeRecord change(long at, int leader, int epoch, Integer... isr) {
        return PartitionChangeRecord.newBuilder().setTimestampMs(at).setReason(ChangeReason.LAGGING)
                .setPartition(PartitionRecord.newBuilder().setLeader(leader).setLeaderEpoch(epoch).addAllIsr(List.of(isr)))
                .build();
    }

    @Test
    void sinceIsTheChangeThatLastFlippedTheReplicasMembership() {
        List<PartitionChangeRecord> h = List.of(change(100, 1, 0, 1, 2), change(200, 1, 0, 1, 2, 3),
                change(300, 1, 0, 1, 3), change(400, 1, 0, 1, 3));
        assertEquals(300, IsrHistory.membershipSince(h, 2, false), "left at 300, still out at 400");
        assertEquals(200, IsrHistory.membershipSince(h, 3, true), "joined at 200");
        assertEquals(-1, IsrHistory.membershipSince(h, 2, true), "the history does not show it in yet");
    }

    @Test
    void aStateOverTheWholeShortHistoryDatesFromCreationOrTheFirstChange() {
        List<PartitionChangeRecord> h = List.of(change(100, 1, 0, 1), change(200, 1, 0, 1));
        assertEquals(-1, IsrHistory.membershipSince(h, 1, true), "in since the creation, whose time is not kept");
        assertEquals(100, IsrHistory.membershipSince(h, 2, false), "created in the ISR, so the first change took it out");
        assertEquals(-1, IsrHistory.leaderSince(h, 1, 0));
        assertEquals(-1, IsrHistory.membershipSince(List.of(), 2, false));
    }

    @Test
    void overAWholeFullHistoryTheOldestKeptChangeIsALowerBound() {
        List<PartitionChangeRecord> h = new ArrayList<>();
        for (int i = 0; i < MetadataImage.RECENT_CHANGES_PER_PARTITION; i++) {
            h.add(change(1000 + i, 1, 0, 1, 2));
        }
        assertEquals(1000, IsrHistory.membershipSince(h, 2, true));
        assertEquals(1000, IsrHistory.leaderSince(h, 1, 0));
    }

    @Test
    void leaderSinceIsTheChangeThatStartedItsEpoch() {
        List<PartitionChangeRecord> h = List.of(change(100, 1, 0, 1, 2), change(200, 2, 1, 2), change(300, 2, 1, 1, 2));
        assertEquals(200, IsrHistory.leaderSince(h, 2, 1));
        assertEquals(-1, IsrHistory.leaderSince(h, 1, 2), "the history is behind the caller's epoch");
    }
}
