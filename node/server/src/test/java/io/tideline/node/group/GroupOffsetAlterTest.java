package io.tideline.node.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The admin API's offset alter (docs/behaviours.md B245): the same commit as OffsetCommit's, only without members. */
class GroupOffsetAlterTest extends GroupTestSupport {
    private GroupCoordinator c;

    @BeforeEach
    void setUp() {
        quorum.brokers(1);
        c = coordinator(1, Map.of());
    }

    private static List<GroupOffsets.PartitionOffset> offsets(long offset) {
        return List.of(new GroupOffsets.PartitionOffset("t", 0, offset, -1, null),
                new GroupOffsets.PartitionOffset("t", 1, offset, -1, null));
    }

    private long committed(String group, int partition) {
        return quorum.image().group(group).orElseThrow().offset("t", partition).orElseThrow().getOffset();
    }

    @Test
    void aGroupNobodyCreatedIsCreatedWithTheOffsets() {
        GroupOffsets.CommitOutcome outcome = c.alterOffsets("fresh", offsets(7)).join();
        assertEquals(Errors.NONE, outcome.error());
        assertEquals(Errors.NONE, outcome.partition("t", 1));
        assertEquals(7, committed("fresh", 0));
        assertEquals(7, committed("fresh", 1));
    }

    @Test
    void aGroupWithAMemberIsNonEmptyAndKeepsItsOffsetsUntilTheMemberLeaves() {
        java.util.concurrent.CompletableFuture<JoinGroupResponseData> f = joinNew(c, "g", "a");
        time.advance(INITIAL_DELAY_MS);
        JoinGroupResponseData a = f.join();
        c.syncGroup(sync("g", a, Map.of(a.memberId(), new byte[0]))).join();
        c.commitOffsets(commit("g", a.generationId(), a.memberId(), "t", 0, 42)).join();

        assertEquals(Errors.NON_EMPTY_GROUP, c.alterOffsets("g", offsets(0)).join().error());
        assertEquals(42, committed("g", 0), "nothing committed");

        c.leaveGroup(new LeaveGroupRequestData().setGroupId("g").setMemberId(a.memberId()), (short) 0);
        assertEquals(Errors.NONE, c.alterOffsets("g", offsets(0)).join().error());
        assertEquals(0, committed("g", 0));
        assertTrue(c.describeGroup("g").summary().orElseThrow().members().isEmpty());
    }

    @Test
    void partitionsTheCommitRefusesCarryTheirOwnErrorAndTheRestAreCommitted() {
        GroupOffsets.CommitOutcome outcome = c.alterOffsets("g2", List.of(
                new GroupOffsets.PartitionOffset("t", 0, 3, -1, null),
                new GroupOffsets.PartitionOffset("t", 1, 3, -1, "x".repeat(100_000)))).join();
        assertEquals(Errors.NONE, outcome.error());
        assertEquals(Errors.NONE, outcome.partition("t", 0));
        assertEquals(Errors.OFFSET_METADATA_TOO_LARGE, outcome.partition("t", 1));
        assertEquals(3, committed("g2", 0));
        assertTrue(quorum.image().group("g2").orElseThrow().offset("t", 1).isEmpty());
    }
}
