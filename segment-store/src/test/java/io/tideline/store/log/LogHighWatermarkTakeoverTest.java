package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.store.config.LogConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the high watermark stands when a replication layer takes a log over (docs/behaviours.md B77): the
 * checkpointed one, or, when none was loaded (a crash before this partition's first checkpoint), the log start
 * offset, not the log end: the tail may never have been committed. Otherwise a follower restarted after a crash
 * claims its divergent tail committed until it truncates it (NewLeaderEpochScenarioTest).
 */
class LogHighWatermarkTakeoverTest {
    private static final Map<String, ?> CONFIG = Map.of("segment.bytes", 4096);

    @TempDir
    Path root;

    private LogTestSupport env;

    private LogTestSupport env() {
        if (env == null) {
            env = new LogTestSupport(root);
        }
        return env;
    }

    @AfterEach
    void close() {
        if (env != null) {
            env.close();
        }
    }

    @Test
    void withoutACheckpointReplicationStartsAtTheLogStartOffsetNotTheLogEnd() throws Exception {
        Log log = env().open(CONFIG);
        log.appendAsLeader(LogTestSupport.batch(env().now(), 9), 1);
        Log crashed = reopen(log, 4L, -1L);
        assertEquals(9, crashed.highWatermark(), "a log no replication owns: its high watermark is its end");

        crashed.stopFollowingLogEndWithHighWatermark();
        assertEquals(4, crashed.highWatermark(), "nothing above the start offset is known committed");
        crashed.appendAsLeader(LogTestSupport.batch(env().now(), 1), 1);
        assertEquals(4, crashed.highWatermark(), "replication moves it from here");
        assertEquals(7, crashed.updateHighWatermark(7));
    }

    @Test
    void aCheckpointedHighWatermarkIsKeptAndATakeOverAfterAnUpdateChangesNothing() throws Exception {
        Log log = env().open(CONFIG);
        log.appendAsLeader(LogTestSupport.batch(env().now(), 9), 1);
        Log restarted = reopen(log, 0L, 5L);
        restarted.stopFollowingLogEndWithHighWatermark();
        assertEquals(5, restarted.highWatermark());

        Log again = reopen(restarted, 0L, -1L);
        again.updateHighWatermark(6);
        again.stopFollowingLogEndWithHighWatermark(); // a leader that becomes a follower: no reset
        assertEquals(6, again.highWatermark());
    }

    /** Closes {@code log} and opens its directory again with the given checkpoints (-1: no high watermark). */
    private Log reopen(Log log, long logStartOffset, long highWatermark) throws Exception {
        log.close();
        return env().track(Log.open(log.dir(), LogConfig.fromMap(CONFIG), env().time, env().scheduler, new Random(7),
                env().deleter, logStartOffset, log.recoveryPoint(), highWatermark, true));
    }
}
