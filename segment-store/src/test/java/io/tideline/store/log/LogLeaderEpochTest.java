package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.checkpoint.EpochEntry;
import io.tideline.store.config.LogConfig;
import io.tideline.store.epoch.EpochEndOffset;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log keeps its leader-epoch-checkpoint in step with its records (docs/behaviours.md B21, B52). */
class LogLeaderEpochTest {
    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final SegmentDeleter deleter = new SegmentDeleter(scheduler);
    private final LogConfig config = LogConfig.fromMap(Map.of("segment.bytes", 500, "file.delete.delay.ms", 0));

    private Log open(long logStart, boolean clean) throws Exception {
        return Log.open(tmp.resolve("t-0"), config, time, scheduler, new Random(1), deleter, logStart, 0, -1, clean);
    }

    private void appendAsLeader(Log log, int epoch, int batches) {
        for (int i = 0; i < batches; i++) {
            log.appendAsLeader(new RecordBatchBuilder(0).append(time.milliseconds(), "k", "value-" + i).buildRecords(), epoch);
        }
    }

    @Test
    void leaderAppendsRecordEachNewEpochAtItsFirstOffset() throws Exception {
        Log log = open(0, true);
        appendAsLeader(log, 0, 3);
        appendAsLeader(log, 2, 2);
        assertEquals(List.of(new EpochEntry(0, 0), new EpochEntry(2, 3)), log.leaderEpochEntries());
        assertEquals(new EpochEndOffset(0, 3), log.endOffsetForEpoch(1));
        assertEquals("0\n2\n0 0\n2 3\n", Files.readString(tmp.resolve("t-0/leader-epoch-checkpoint")));
        log.close();
    }

    @Test
    void followerLearnsTheLeadersEpochsFromTheBatches() throws Exception {
        Log leader = Log.open(tmp.resolve("l-0"), config, time, scheduler, new Random(1), deleter, 0, 0, -1, true);
        appendAsLeader(leader, 4, 2);
        appendAsLeader(leader, 6, 1);
        Log follower = open(0, true);
        try (FetchDataInfo fetch = leader.read(0, 10_000, leader.logEndOffset(), true)) {
            follower.appendAsFollower(fetch.records().toMemoryRecords());
        }
        assertEquals(List.of(new EpochEntry(4, 0), new EpochEntry(6, 2)), follower.leaderEpochEntries());
        leader.close();
        follower.close();
    }

    @Test
    void deletingTheHeadTrimsTheEpochsBelowTheNewStartOffset() throws Exception {
        Log log = open(0, true);
        appendAsLeader(log, 1, 5);
        appendAsLeader(log, 2, 10);
        appendAsLeader(log, 3, 5);
        DeleteRecordsResult result = log.deleteRecords(12);
        assertEquals(12, result.lowWatermark());
        assertEquals(List.of(new EpochEntry(2, 12), new EpochEntry(3, 15)), log.leaderEpochEntries());
        log.close();
    }

    @Test
    void truncatingTheTailDropsEpochsThatOnlyWroteThere() throws Exception {
        Log log = open(0, true);
        appendAsLeader(log, 1, 5);
        appendAsLeader(log, 2, 5);
        log.updateHighWatermark(5);
        log.truncateTo(5);
        assertEquals(List.of(new EpochEntry(1, 0)), log.leaderEpochEntries());
        log.truncateFullyAndStartAt(5);
        assertEquals(List.of(), log.leaderEpochEntries());
        log.close();
    }

    @Test
    void aCorruptCheckpointIsRebuiltFromTheBatchesOnOpen() throws Exception {
        Log log = open(0, true);
        appendAsLeader(log, 1, 4);
        appendAsLeader(log, 3, 4);
        List<EpochEntry> expected = log.leaderEpochEntries();
        log.close();
        Files.writeString(tmp.resolve("t-0/leader-epoch-checkpoint"), "0\n7\ngarbage\n");
        Log reopened = open(0, true);
        assertEquals(expected, reopened.leaderEpochEntries());
        reopened.close();
    }

    @Test
    void aCrashThatLosesTheTailLosesItsEpochsToo() throws Exception {
        Log log = open(0, true);
        appendAsLeader(log, 1, 3);
        appendAsLeader(log, 2, 1);
        Path segment = log.activeSegment().log().file();
        log.abandon();
        // Tear the last batch (epoch 2's only one) in half.
        try (var channel = java.nio.channels.FileChannel.open(segment, java.nio.file.StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() - 20);
        }
        Log reopened = open(0, false);
        assertEquals(3, reopened.logEndOffset());
        assertEquals(List.of(new EpochEntry(1, 0)), reopened.leaderEpochEntries());
        reopened.close();
    }
}
