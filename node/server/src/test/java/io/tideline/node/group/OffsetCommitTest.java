package io.tideline.node.group;

import static org.apache.kafka.common.protocol.Errors.COORDINATOR_LOAD_IN_PROGRESS;
import static org.apache.kafka.common.protocol.Errors.COORDINATOR_NOT_AVAILABLE;
import static org.apache.kafka.common.protocol.Errors.ILLEGAL_GENERATION;
import static org.apache.kafka.common.protocol.Errors.NONE;
import static org.apache.kafka.common.protocol.Errors.OFFSET_METADATA_TOO_LARGE;
import static org.apache.kafka.common.protocol.Errors.UNKNOWN_MEMBER_ID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.proto.metadata.ControllerCommand;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OffsetCommitTest extends GroupTestSupport {
    private GroupCoordinator c;

    @BeforeEach
    void setUp() {
        quorum.brokers(1);
        c = coordinator(1, Map.of());
    }

    private static short code(OffsetCommitResponseData r) {
        return r.topics().get(0).partitions().get(0).errorCode();
    }

    @Test
    void commitsArrivingWhileAnEntryIsInFlightGoAsOneEntry() {
        quorum.hold(true);
        List<CompletableFuture<OffsetCommitResponseData>> answers = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            answers.add(c.commitOffsets(commit("group-" + (i % 5), -1, "", "t", i, 100 + i)));
        }
        assertEquals(1, quorum.heldCount(), "one entry in flight, 49 commits queued behind it");
        assertFalse(answers.get(0).isDone(), "answered only when the entry commits");
        quorum.releaseOne();
        assertTrue(answers.get(0).isDone());
        assertFalse(answers.get(1).isDone());
        assertEquals(1, quorum.heldCount(), "the whole queue went as the next entry");
        quorum.releaseOne();
        answers.forEach(a -> assertEquals(error(NONE), code(a.join())));
        assertEquals(2, quorum.count(ControllerCommand.CommandCase.COMMIT_OFFSETS));
        assertEquals(2, c.commitEntriesSent());
        for (int i = 0; i < 50; i++) {
            assertEquals(100 + i, quorum.image().group("group-" + (i % 5)).orElseThrow().offset("t", i).orElseThrow()
                    .getOffset());
        }
    }

    @Test
    void aFullQueueAnswersCoordinatorLoadInProgress() {
        GroupCoordinator small = coordinator(1, Map.of(GroupConfig.OFFSETS_COMMIT_QUEUE_MAX_BYTES_CONFIG, 1024));
        quorum.hold(true);
        small.commitOffsets(commit("q", -1, "", "t", 0, 1));
        List<CompletableFuture<OffsetCommitResponseData>> queued = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            queued.add(small.commitOffsets(commit("q", -1, "", "t", i, 1)));
        }
        long refused = queued.stream().filter(f -> f.isDone()
                && code(f.join()) == error(COORDINATOR_LOAD_IN_PROGRESS)).count();
        assertTrue(refused > 0 && refused < 200, "the queue holds about 1 KiB: " + refused + " refused");
    }

    @Test
    void aCommitNotCommittedInOffsetsCommitTimeoutIsAnsweredCoordinatorNotAvailable() {
        quorum.hold(true);
        CompletableFuture<OffsetCommitResponseData> inFlight = c.commitOffsets(commit("x", -1, "", "t", 0, 1));
        CompletableFuture<OffsetCommitResponseData> queued = c.commitOffsets(commit("x", -1, "", "t", 1, 1));
        time.advance(4999);
        assertFalse(queued.isDone());
        time.advance(1);
        assertEquals(error(COORDINATOR_NOT_AVAILABLE), code(inFlight.join()));
        assertEquals(error(COORDINATOR_NOT_AVAILABLE), code(queued.join()));
        quorum.hold(false);
        quorum.releaseOne();
        assertTrue(quorum.image().group("x").orElseThrow().offset("t", 1).isEmpty(),
                "a commit that timed out in the queue is never sent");
        CompletableFuture<OffsetCommitResponseData> after = c.commitOffsets(commit("x", -1, "", "t", 2, 1));
        assertTrue(after.isDone(), "entries " + c.commitEntriesSent() + " held " + quorum.heldCount()
                + " failures " + scheduler.failures());
        assertEquals(error(NONE), code(after.join()),
                "the queue moves again after the timeout");
    }

    @Test
    void memberCommitsNeedTheCurrentGenerationAndSimpleCommitsAnEmptyGroup() {
        CompletableFuture<JoinGroupResponseData> f = joinNew(c, "g", "a");
        time.advance(INITIAL_DELAY_MS);
        JoinGroupResponseData a = f.join();
        c.syncGroup(sync("g", a, Map.of(a.memberId(), new byte[0]))).join();
        assertEquals(error(NONE), code(c.commitOffsets(commit("g", 1, a.memberId(), "t", 0, 42)).join()));
        assertEquals(error(ILLEGAL_GENERATION), code(c.commitOffsets(commit("g", 0, a.memberId(), "t", 0, 1)).join()));
        assertEquals(error(UNKNOWN_MEMBER_ID), code(c.commitOffsets(commit("g", 1, "other", "t", 0, 1)).join()));
        assertEquals(error(UNKNOWN_MEMBER_ID), code(c.commitOffsets(commit("g", -1, "", "t", 0, 1)).join()),
                "no simple commit while the group has members");
        var tooLarge = commit("g", 1, a.memberId(), "t", 0, 43);
        tooLarge.topics().get(0).partitions().get(0).setCommittedMetadata("x".repeat(4097));
        assertEquals(error(OFFSET_METADATA_TOO_LARGE), code(c.commitOffsets(tooLarge).join()));
        assertEquals(42, c.fetchOffsets("g", null).topics().get(0).partitions().get(0).offset());

        assertEquals(error(NONE), code(c.commitOffsets(commit("fresh", -1, "", "t", 3, 7)).join()),
                "a simple commit creates an Empty group (kafka-consumer-groups --reset-offsets)");
        Map<String, List<Integer>> asked = new HashMap<>();
        asked.put("t", List.of(3, 4));
        var fetched = c.fetchOffsets("fresh", asked).topics().get(0).partitions();
        assertEquals(7, fetched.get(0).offset());
        assertEquals(-1, fetched.get(1).offset(), "no commit: -1");
    }
}
