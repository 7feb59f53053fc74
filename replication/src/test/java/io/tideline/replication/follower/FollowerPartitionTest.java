package io.tideline.replication.follower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.follower.FetchOutcome.Kind;
import io.tideline.store.config.LogConfig;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The follower side of one partition over real logs: the leader's answers are read from a leader
 * {@link Log} with its bounds, as the leader's fetch handler would (docs/behaviours.md B26, B39-B44).
 */
class FollowerPartitionTest {
    private static final long DAY_MS = 24 * 60 * 60 * 1000L;
    private static final int MAX_BYTES = 400;
    private static final int LEADER_ID = 1;

    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final SegmentDeleter deleter = new SegmentDeleter(scheduler);
    private final LogConfig config = LogConfig.fromMap(Map.of("segment.bytes", 600, "retention.ms", 7 * DAY_MS,
            "file.delete.delay.ms", 0));
    private final List<Log> opened = new ArrayList<>();

    @AfterEach
    void closeLogs() {
        for (Log log : opened) {
            if (!log.isClosed()) {
                log.close();
            }
        }
    }

    private Log open(String broker) throws Exception {
        Log log = Log.open(tmp.resolve(broker).resolve("orders-0"), config, time, scheduler, new Random(1), deleter,
                0, 0, -1, true);
        opened.add(log);
        return log;
    }

    private void appendAsLeader(Log log, int epoch, int batches, int recordsPerBatch) {
        for (int b = 0; b < batches; b++) {
            RecordBatchBuilder builder = new RecordBatchBuilder(0);
            for (int i = 0; i < recordsPerBatch; i++) {
                builder.append(time.milliseconds(), "key-" + i, "value-" + b + "-" + i + "-0123456789");
            }
            log.appendAsLeader(builder.buildRecords(), epoch);
        }
    }

    private static MemoryRecords memory(FetchDataInfo fetch) {
        try {
            return fetch.records().toMemoryRecords();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** What the leader answers to a fetch at the follower's fetch offset. */
    private static FetchResponseData respond(Log leader, FollowerPartition follower) {
        long offset = follower.fetchOffset();
        if (offset < leader.logStartOffset() || offset > leader.logEndOffset()) {
            return FetchResponseData.error(Errors.OFFSET_OUT_OF_RANGE, leader.highWatermark(), leader.logStartOffset(),
                    leader.logEndOffset());
        }
        try (FetchDataInfo fetch = leader.read(offset, MAX_BYTES, leader.logEndOffset(), true)) {
            MemoryRecords records = memory(fetch);
            return FetchResponseData.records(records, leader.highWatermark(), leader.logStartOffset(),
                    leader.logEndOffset());
        }
    }

    /** Fetches until the follower has the leader's log end and high watermark (or stops fetching). */
    private List<FetchOutcome> catchUp(Log leader, FollowerPartition follower) {
        List<FetchOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 1000 && follower.shouldFetch(); i++) {
            outcomes.add(follower.onFetchResponse(respond(leader, follower), time.milliseconds()));
            if (follower.fetchOffset() == leader.logEndOffset()
                    && follower.log().highWatermark() == Math.min(leader.highWatermark(), leader.logEndOffset())
                    && follower.log().logStartOffset() >= Math.min(leader.logStartOffset(), follower.log().highWatermark())) {
                break;
            }
        }
        return outcomes;
    }

    private static List<Record> readAll(Log log, long from, long to) {
        List<Record> records = new ArrayList<>();
        long next = from;
        while (next < to) {
            try (FetchDataInfo fetch = log.read(next, Integer.MAX_VALUE, to, true)) {
                List<Record> chunk = memory(fetch).records();
                if (chunk.isEmpty()) {
                    break;
                }
                for (Record r : chunk) {
                    if (r.offset() >= next && r.offset() < to) {
                        records.add(r);
                    }
                }
                next = chunk.get(chunk.size() - 1).offset() + 1;
            }
        }
        return records;
    }

    private static void assertSameRecords(Log leader, Log follower, long from) {
        List<Record> expected = readAll(leader, from, leader.logEndOffset());
        assertEquals(leader.logEndOffset() - from, expected.size());
        assertEquals(expected, readAll(follower, from, follower.logEndOffset()));
    }

    /** Leader and follower share offsets [0, 50); then the follower is cut off and the leader's retention passes it. */
    private FollowerPartition followerLeftBehindByRetention(Log leader, OutOfRangePolicy policy) throws Exception {
        appendAsLeader(leader, 0, 10, 5);
        Log followerLog = open("follower");
        FollowerPartition follower = new FollowerPartition(followerLog, LEADER_ID, 0, policy);
        catchUp(leader, follower);
        assertEquals(50, follower.fetchOffset());
        // Cut off for 8 days under retention.ms = 7 days: the leader goes on writing, rolls, and its
        // retention deletes past offset 50.
        appendAsLeader(leader, 0, 10, 5);
        time.advance(8 * DAY_MS);
        appendAsLeader(leader, 0, 20, 5);
        assertTrue(leader.deleteOldSegments() > 0);
        assertTrue(leader.logStartOffset() > 50, "leader start offset " + leader.logStartOffset());
        return follower;
    }

    @Test
    void catchUpAppendsWithTheLeadersOffsetsAndRaisesHighWatermarkToMinOfLeadersAndOwnEnd() throws Exception {
        Log leader = open("leader");
        appendAsLeader(leader, 3, 6, 5);
        appendAsLeader(leader, 5, 4, 5);
        leader.updateHighWatermark(42);
        FollowerPartition follower = new FollowerPartition(open("follower"), LEADER_ID, 5, OutOfRangePolicy.HALT);

        FetchOutcome first = follower.onFetchResponse(respond(leader, follower), time.milliseconds());
        assertEquals(Kind.APPENDED, first.kind());
        assertTrue(first.appendedBytes() > 0);
        assertTrue(follower.fetchOffset() < 42, "one fetch of " + MAX_BYTES + " bytes does not reach the leader's HW");
        assertEquals(follower.fetchOffset(), follower.log().highWatermark(), "HW = min(leader HW, own log end)");

        List<FetchOutcome> outcomes = catchUp(leader, follower);
        assertTrue(outcomes.size() > 2);
        assertTrue(outcomes.stream().allMatch(o -> o.kind() == Kind.APPENDED));
        assertEquals(50, follower.fetchOffset());
        assertEquals(42, follower.log().highWatermark());
        assertEquals(leader.leaderEpochEntries(), follower.log().leaderEpochEntries());
        assertSameRecords(leader, follower.log(), 0);
        assertEquals(ReplicaStatus.FETCHING, follower.status());

        leader.updateHighWatermark(50);
        FetchOutcome empty = follower.onFetchResponse(respond(leader, follower), time.milliseconds());
        assertEquals(Kind.APPENDED, empty.kind());
        assertEquals(0, empty.appendedBytes());
        assertEquals(50, follower.log().highWatermark());
    }

    @Test
    void followerDeletesItsSegmentsBelowAStartOffsetRaisedByDeleteRecords() throws Exception {
        Log leader = open("leader");
        appendAsLeader(leader, 0, 20, 5);
        FollowerPartition follower = new FollowerPartition(open("follower"), LEADER_ID, 0, OutOfRangePolicy.HALT);
        catchUp(leader, follower);
        int segmentsBefore = follower.log().numberOfSegments();
        assertTrue(segmentsBefore > 3);

        assertEquals(62, leader.deleteRecords(62).lowWatermark());
        follower.onFetchResponse(respond(leader, follower), time.milliseconds());

        assertEquals(62, follower.log().logStartOffset());
        assertTrue(follower.log().numberOfSegments() < segmentsBefore);
        assertTrue(follower.log().segments().get(0).baseOffset() <= 62);
        assertTrue(follower.log().segments().size() < 2 || follower.log().segments().get(1).baseOffset() > 62);
        assertEquals(leader.numberOfSegments(), follower.log().numberOfSegments());
        assertSameRecords(leader, follower.log(), 62);
    }

    @Test
    void haltKeepsAReplicaCutOffPastRetentionFailedWithItsDataOverRepeatedResponses() throws Exception {
        Log leader = open("leader");
        FollowerPartition follower = followerLeftBehindByRetention(leader, OutOfRangePolicy.HALT);
        Log followerLog = follower.log();
        List<Record> kept = readAll(followerLog, 0, 50);
        int segments = followerLog.numberOfSegments();
        long failedAt = time.milliseconds();

        FetchOutcome outcome = follower.onFetchResponse(respond(leader, follower), failedAt);
        assertEquals(Kind.FAILED, outcome.kind());
        assertEquals(Errors.OFFSET_OUT_OF_RANGE, outcome.error());
        assertEquals(ReplicaStatus.FAILED, follower.status());
        assertFalse(follower.shouldFetch());
        FailureReason reason = follower.failureReason().orElseThrow();
        assertEquals(50, reason.fetchOffset());
        assertEquals(leader.logStartOffset(), reason.leaderLogStartOffset());
        assertEquals(leader.logEndOffset(), reason.leaderLogEndOffset());
        assertEquals(failedAt, reason.sinceMs());
        assertTrue(reason.message().contains("halt"), reason.message());

        for (int i = 0; i < 5; i++) {
            time.advance(DAY_MS);
            appendAsLeader(leader, 0, 2, 5);
            leader.deleteOldSegments();
            FetchOutcome again = follower.onFetchResponse(FetchResponseData.error(Errors.OFFSET_OUT_OF_RANGE,
                    leader.highWatermark(), leader.logStartOffset(), leader.logEndOffset()), time.milliseconds());
            assertEquals(Kind.FAILED, again.kind());
            assertEquals(ReplicaStatus.FAILED, follower.status());
            assertEquals(reason, follower.failureReason().orElseThrow(), "the first failure stays the reason");
            assertEquals(50, follower.fetchOffset());
        }
        assertEquals(0, followerLog.logStartOffset());
        assertEquals(segments, followerLog.numberOfSegments());
        assertEquals(kept, readAll(followerLog, 0, 50));
    }

    @Test
    void rebuildTruncatesFullyRestartsAtTheLeadersStartOffsetAndEndsEqualToTheLeader() throws Exception {
        Log leader = open("leader");
        FollowerPartition follower = followerLeftBehindByRetention(leader, OutOfRangePolicy.REBUILD);
        long leaderStart = leader.logStartOffset();
        long leaderHw = leader.highWatermark();

        FetchOutcome outcome = follower.onFetchResponse(respond(leader, follower), time.milliseconds());
        assertEquals(Kind.REBUILDING, outcome.kind());
        assertEquals(leaderStart, outcome.offset());
        assertEquals(ReplicaStatus.REBUILDING, follower.status());
        assertTrue(follower.shouldFetch());
        Log followerLog = follower.log();
        assertEquals(leaderStart, followerLog.logStartOffset());
        assertEquals(leaderStart, followerLog.logEndOffset());
        assertEquals(leaderStart, followerLog.highWatermark(), "docs/behaviours.md B43");
        RebuildProgress progress = follower.rebuildProgress().orElseThrow();
        assertEquals(new RebuildProgress(leaderStart, leaderHw, leaderStart), progress);
        assertEquals(0.0, progress.fraction());

        follower.onFetchResponse(respond(leader, follower), time.milliseconds());
        assertEquals(ReplicaStatus.REBUILDING, follower.status());
        double fraction = follower.rebuildProgress().orElseThrow().fraction();
        assertTrue(fraction > 0 && fraction < 1, "progress " + fraction);

        catchUp(leader, follower);
        assertEquals(ReplicaStatus.FETCHING, follower.status());
        assertTrue(follower.rebuildProgress().isEmpty());
        assertTrue(follower.failureReason().isEmpty());
        assertEquals(leader.logEndOffset(), followerLog.logEndOffset());
        assertEquals(leader.highWatermark(), followerLog.highWatermark());
        assertEquals(leaderStart, followerLog.logStartOffset());
        assertSameRecords(leader, followerLog, leaderStart);
        assertEquals(leader.leaderEpochEntries(), followerLog.leaderEpochEntries());
    }

    @Test
    void newEmptyReplicaBootstrapsAtTheLeadersStartOffsetEvenInsideABatch() throws Exception {
        Log leader = open("leader");
        appendAsLeader(leader, 2, 12, 5);
        assertEquals(37, leader.deleteRecords(37).lowWatermark());
        FollowerPartition follower = new FollowerPartition(open("follower"), LEADER_ID, 2, OutOfRangePolicy.HALT);

        FetchOutcome outcome = follower.onFetchResponse(respond(leader, follower), time.milliseconds());
        assertEquals(Kind.BOOTSTRAPPED, outcome.kind());
        assertEquals(ReplicaStatus.FETCHING, follower.status());
        assertEquals(37, follower.fetchOffset());
        assertEquals(37, follower.log().highWatermark());

        catchUp(leader, follower);
        assertEquals(ReplicaStatus.FETCHING, follower.status());
        assertEquals(60, follower.log().logEndOffset());
        assertEquals(37, follower.log().logStartOffset(), "docs/behaviours.md B44: the batch holding 37 starts at 35");
        assertSameRecords(leader, follower.log(), 37);
    }

    @Test
    void followerAheadOfTheLeaderTruncatesToTheLeadersLogEnd() throws Exception {
        Log leader = open("leader");
        appendAsLeader(leader, 1, 4, 5);
        FollowerPartition follower = new FollowerPartition(open("follower"), LEADER_ID, 1, OutOfRangePolicy.HALT);
        catchUp(leader, follower);
        // The old leader had replicated 5 more records to this follower only; an unclean election chose `leader`.
        follower.log().appendAsFollower(new RecordBatchBuilder(20).partitionLeaderEpoch(1)
                .append(time.milliseconds(), "k", "lost").append(time.milliseconds(), "k", "lost").buildRecords());
        assertEquals(22, follower.fetchOffset());
        follower.updateLeader(LEADER_ID, 2);

        FetchOutcome outcome = follower.onFetchResponse(respond(leader, follower), time.milliseconds());
        assertEquals(Kind.TRUNCATED, outcome.kind());
        assertEquals(20, outcome.offset());
        assertEquals(20, follower.fetchOffset());
        assertEquals(ReplicaStatus.FETCHING, follower.status());

        appendAsLeader(leader, 2, 3, 5);
        catchUp(leader, follower);
        assertSameRecords(leader, follower.log(), 0);
        assertEquals(leader.leaderEpochEntries(), follower.log().leaderEpochEntries());
    }

    @Test
    void divergingEpochTruncatesWithoutAppendingTheFetchedRecords() throws Exception {
        Log leader = open("leader");
        appendAsLeader(leader, 1, 2, 5);
        FollowerPartition follower = new FollowerPartition(open("follower"), LEADER_ID, 1, OutOfRangePolicy.HALT);
        catchUp(leader, follower);
        assertEquals(10, follower.log().highWatermark());
        // An unreplicated tail of epoch 1 on the follower; the new leader wrote epoch 2 from offset 10.
        follower.log().appendAsFollower(new RecordBatchBuilder(10).partitionLeaderEpoch(1)
                .append(time.milliseconds(), "k", "tail-1").append(time.milliseconds(), "k", "tail-2")
                .append(time.milliseconds(), "k", "tail-3").buildRecords());
        appendAsLeader(leader, 2, 2, 5);
        follower.updateLeader(LEADER_ID, 2);
        MemoryRecords leaderRecords;
        try (FetchDataInfo fetch = leader.read(10, MAX_BYTES, leader.logEndOffset(), true)) {
            leaderRecords = fetch.records().toMemoryRecords();
        }

        FetchOutcome outcome = follower.onFetchResponse(new FetchResponseData(Errors.NONE, leaderRecords,
                leader.highWatermark(), leader.logStartOffset(), leader.logEndOffset(),
                Optional.of(new DivergingEpoch(1, 10))), time.milliseconds());
        assertEquals(Kind.TRUNCATED, outcome.kind());
        assertEquals(Errors.NONE, outcome.error());
        assertEquals(10, follower.fetchOffset(), "truncated to min(leader's end of epoch 1, ours) and nothing appended");
        assertEquals(10, follower.log().highWatermark());

        catchUp(leader, follower);
        assertSameRecords(leader, follower.log(), 0);
        assertEquals(leader.leaderEpochEntries(), follower.log().leaderEpochEntries());
    }

    @Test
    void divergingEpochUsesTheLocalEndOfTheEpochWhenItIsLower() throws Exception {
        Log followerLog = open("follower");
        FollowerPartition follower = new FollowerPartition(followerLog, LEADER_ID, 3, OutOfRangePolicy.HALT);
        followerLog.appendAsFollower(new RecordBatchBuilder(0).partitionLeaderEpoch(1)
                .append(time.milliseconds(), "k", "a").append(time.milliseconds(), "k", "b").buildRecords());
        followerLog.appendAsFollower(new RecordBatchBuilder(2).partitionLeaderEpoch(2)
                .append(time.milliseconds(), "k", "c").buildRecords());
        // The leader says epoch 1 ends at 5 on its side; ours ends at 2 (epoch 2 starts there).
        follower.onFetchResponse(new FetchResponseData(Errors.NONE, MemoryRecords.EMPTY, 0, 0, 5,
                Optional.of(new DivergingEpoch(1, 5))), time.milliseconds());
        assertEquals(2, follower.fetchOffset());
    }

    /** A follower log that is not the leader's: one batch of {@code records} records of epoch 0, all committed. */
    private FollowerPartition followerWithOneForeignBatch(int records) throws Exception {
        Log followerLog = open("follower");
        RecordBatchBuilder batch = new RecordBatchBuilder(0).partitionLeaderEpoch(0);
        for (int i = 0; i < records; i++) {
            batch.append(time.milliseconds(), "k", "old-" + i);
        }
        followerLog.appendAsFollower(batch.buildRecords());
        followerLog.updateHighWatermark(records);
        return new FollowerPartition(followerLog, LEADER_ID, 0, OutOfRangePolicy.HALT);
    }

    @Test
    void aDivergingEpochEndingInsideALocalBatchFailsTheReplicaInsteadOfTruncatingAgainAndAgain() throws Exception {
        Log leader = open("leader");
        appendAsLeader(leader, 0, 2, 5);
        leader.updateHighWatermark(10);
        FollowerPartition follower = followerWithOneForeignBatch(30);
        FetchResponseData diverging = new FetchResponseData(Errors.NONE, MemoryRecords.EMPTY, 10, 0, 10,
                Optional.of(new DivergingEpoch(0, 10)));

        time.advance(1_000);
        FetchOutcome outcome = follower.onFetchResponse(diverging, time.milliseconds());
        assertEquals(Kind.FAILED, outcome.kind(), outcome.toString());
        assertEquals(ReplicaStatus.FAILED, follower.status());
        assertFalse(follower.shouldFetch(), "a FAILED replica is left out of the fetches: no second truncation");
        assertEquals(time.milliseconds(), follower.statusSinceMs());
        FailureReason reason = follower.failureReason().orElseThrow();
        assertEquals(30, reason.fetchOffset());
        assertEquals(0, reason.leaderLogStartOffset());
        assertEquals(10, reason.leaderLogEndOffset());
        assertTrue(reason.message().contains("truncation to 10") && reason.message().contains("cannot make progress"),
                reason.message());
        assertEquals(30, follower.fetchOffset(), "the batch holding offset 10 is kept whole");

        FetchOutcome late = follower.onFetchResponse(diverging, time.milliseconds());
        assertEquals(Kind.FAILED, late.kind(), "a late answer changes nothing");
        assertEquals(30, follower.fetchOffset());

        follower.requestRebuild(time.milliseconds());
        catchUp(leader, follower);
        assertEquals(ReplicaStatus.FETCHING, follower.status());
        assertSameRecords(leader, follower.log(), 0);
    }

    @Test
    void aLeaderLogEndInsideALocalBatchFailsTheReplica() throws Exception {
        FollowerPartition follower = followerWithOneForeignBatch(10);
        FetchOutcome outcome = follower.onFetchResponse(FetchResponseData.error(Errors.OFFSET_OUT_OF_RANGE, 5, 0, 5),
                time.milliseconds());
        assertEquals(Kind.FAILED, outcome.kind(), outcome.toString());
        assertEquals(Errors.OFFSET_OUT_OF_RANGE, outcome.error());
        assertEquals(ReplicaStatus.FAILED, follower.status());
        assertTrue(follower.failureReason().orElseThrow().message().contains("truncation to 5"));
        assertEquals(10, follower.fetchOffset());
    }

    @Test
    void requestRebuildTurnsAFailedReplicaIntoARebuildingOne() throws Exception {
        Log leader = open("leader");
        FollowerPartition follower = followerLeftBehindByRetention(leader, OutOfRangePolicy.HALT);
        assertThrows(IllegalStateException.class, () -> follower.requestRebuild(time.milliseconds()), "only FAILED replicas are rebuilt");
        follower.onFetchResponse(respond(leader, follower), time.milliseconds());
        assertEquals(ReplicaStatus.FAILED, follower.status());
        long leaderStart = leader.logStartOffset();

        time.advance(1_000);
        follower.requestRebuild(time.milliseconds());
        assertEquals(ReplicaStatus.REBUILDING, follower.status());
        assertEquals(time.milliseconds(), follower.statusSinceMs(), "REBUILDING dates from the operator's request");
        assertTrue(follower.shouldFetch());
        assertTrue(follower.failureReason().isEmpty());
        assertEquals(leaderStart, follower.fetchOffset());
        assertEquals(leaderStart, follower.log().highWatermark());

        catchUp(leader, follower);
        assertEquals(ReplicaStatus.FETCHING, follower.status());
        assertSameRecords(leader, follower.log(), leaderStart);
    }

    @Test
    void rebuildRestartsWhenTheLeadersStartOffsetMovedOnMeanwhile() throws Exception {
        Log leader = open("leader");
        FollowerPartition follower = followerLeftBehindByRetention(leader, OutOfRangePolicy.HALT);
        follower.onFetchResponse(respond(leader, follower), time.milliseconds());
        follower.requestRebuild(time.milliseconds());
        long oldStart = follower.fetchOffset();
        time.advance(8 * DAY_MS);
        appendAsLeader(leader, 0, 20, 5);
        leader.deleteOldSegments();
        assertTrue(leader.logStartOffset() > oldStart);

        FetchOutcome outcome = follower.onFetchResponse(respond(leader, follower), time.milliseconds());
        assertEquals(Kind.REBUILDING, outcome.kind(), "a halted replica being rebuilt does not fail again");
        assertEquals(leader.logStartOffset(), follower.fetchOffset());
        catchUp(leader, follower);
        assertEquals(ReplicaStatus.FETCHING, follower.status());
        assertSameRecords(leader, follower.log(), leader.logStartOffset());
    }

    @Test
    void otherErrorsChangeNothingAndAskToBackOff() throws Exception {
        Log leader = open("leader");
        appendAsLeader(leader, 0, 3, 5);
        FollowerPartition follower = new FollowerPartition(open("follower"), LEADER_ID, 0, OutOfRangePolicy.REBUILD);
        catchUp(leader, follower);
        for (Errors error : List.of(Errors.NOT_LEADER_OR_FOLLOWER, Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH)) {
            FetchOutcome outcome = follower.onFetchResponse(FetchResponseData.error(error, 100, 50, 100),
                    time.milliseconds());
            assertEquals(Kind.BACKOFF, outcome.kind());
            assertEquals(error, outcome.error());
            assertEquals(15, follower.fetchOffset());
            assertEquals(0, follower.log().logStartOffset());
            assertEquals(15, follower.log().highWatermark());
            assertEquals(ReplicaStatus.FETCHING, follower.status());
        }
    }

    @Test
    void policyParsesTheTopicConfigValues() {
        assertEquals(OutOfRangePolicy.HALT, OutOfRangePolicy.parse("halt"));
        assertEquals(OutOfRangePolicy.REBUILD, OutOfRangePolicy.parse(" rebuild "));
        assertEquals(OutOfRangePolicy.HALT, OutOfRangePolicy.DEFAULT);
        assertEquals("rebuild", OutOfRangePolicy.REBUILD.configValue());
        assertThrows(IllegalArgumentException.class, () -> OutOfRangePolicy.parse("truncate"));
        assertThrows(IllegalArgumentException.class, () -> OutOfRangePolicy.parse(null));
    }
}
