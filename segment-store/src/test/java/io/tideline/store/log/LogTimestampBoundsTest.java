package io.tideline.store.log;

import static io.tideline.store.log.LogTestSupport.batchWithTimestamps;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.record.MemoryRecords;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * message.timestamp.before.max.ms and message.timestamp.after.max.ms (docs/behaviours.md B150): a CreateTime
 * leader append whose records are dated too far from the broker's (mock) clock is refused whole with
 * INVALID_TIMESTAMP and writes nothing; LogAppendTime topics and followers do not check.
 */
class LogTimestampBoundsTest {
    private static final long HOUR = 3_600_000L;

    @TempDir
    Path tmp;

    private LogTestSupport env;

    @BeforeEach
    void setUp() throws IOException {
        env = new LogTestSupport(tmp);
    }

    @AfterEach
    void tearDown() throws IOException {
        env.close();
    }

    private static TidelineException refused(Log log, MemoryRecords records) {
        return assertThrows(TidelineException.class, () -> log.appendAsLeader(records, 0));
    }

    @Test
    void byDefaultARecordDatedMoreThanAnHourAheadIsRefusedAndNothingIsWritten() throws IOException {
        Log log = env.open(Map.of());
        long now = env.now();

        TidelineException e = refused(log, batchWithTimestamps(now + 2 * HOUR));

        assertEquals(Errors.INVALID_TIMESTAMP, e.error());
        assertTrue(e.getMessage().contains(String.valueOf(now + 2 * HOUR)), e.getMessage());
        assertEquals(0, log.logEndOffset());
        assertEquals(0, log.activeProducers().size());
    }

    @Test
    void byDefaultAnHourAheadIsTheLastAcceptedMillisecondAndAnyPastTimestampPasses() throws IOException {
        Log log = env.open(Map.of());
        long now = env.now();

        log.appendAsLeader(batchWithTimestamps(now + HOUR), 0);
        assertEquals(Errors.INVALID_TIMESTAMP, refused(log, batchWithTimestamps(now + HOUR + 1)).error());
        log.appendAsLeader(batchWithTimestamps(0L, 1L), 0);
        assertEquals(3, log.logEndOffset());
    }

    @Test
    void oneRecordOutOfRangeRefusesItsWholeRequest() throws IOException {
        Log log = env.open(Map.of("message.timestamp.before.max.ms", 1_000L));
        long now = env.now();

        assertEquals(Errors.INVALID_TIMESTAMP, refused(log, batchWithTimestamps(now, now - 1_001, now)).error(),
                "too old, in the middle of a batch");
        assertEquals(Errors.INVALID_TIMESTAMP, refused(log, batchWithTimestamps(now, now + HOUR + 5)).error(),
                "too new, last of a batch");
        assertEquals(0, log.logEndOffset());
        log.appendAsLeader(batchWithTimestamps(now - 1_000, now, now + HOUR), 0);
        assertEquals(3, log.logEndOffset());
    }

    @Test
    void theBoundsFollowTheBrokerClock() throws IOException {
        Log log = env.open(Map.of("message.timestamp.before.max.ms", 60_000L,
                "message.timestamp.after.max.ms", 60_000L));
        long dated = env.now() + 120_000;
        assertEquals(Errors.INVALID_TIMESTAMP, refused(log, batchWithTimestamps(dated)).error());

        env.time.advance(60_000);
        log.appendAsLeader(batchWithTimestamps(dated), 0);
        env.time.advance(120_001);
        assertEquals(Errors.INVALID_TIMESTAMP, refused(log, batchWithTimestamps(dated)).error(),
                "the same timestamp is now too old");
        assertEquals(1, log.logEndOffset());
    }

    @Test
    void recordsWithoutATimestampAreNotChecked() throws IOException {
        Log log = env.open(Map.of("message.timestamp.before.max.ms", 0L, "message.timestamp.after.max.ms", 0L));
        log.appendAsLeader(batchWithTimestamps(-1L, env.now(), -1L), 0);
        assertEquals(3, log.logEndOffset());
    }

    @Test
    void logAppendTimeTopicsIgnoreTheClientTimestamp() throws IOException {
        Log log = env.open(Map.of("message.timestamp.type", "LogAppendTime",
                "message.timestamp.after.max.ms", 0L, "message.timestamp.before.max.ms", 0L));
        long now = env.now();

        LogAppendInfo info = log.appendAsLeader(batchWithTimestamps(now + 100 * HOUR, 5L), 0);

        assertEquals(now, info.maxTimestamp());
        assertEquals(2, log.logEndOffset());
    }

    @Test
    void aFollowerKeepsWhatItsLeaderAccepted() throws IOException {
        Log log = env.open(Map.of("message.timestamp.after.max.ms", 0L));
        log.appendAsFollower(LogTestSupport.followerBatch(0, 0, env.now() + 100 * HOUR, 2));
        assertEquals(2, log.logEndOffset());
    }
}
