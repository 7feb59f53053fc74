package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * producer.id.max.entries.per.partition (docs/behaviours.md B153): a leader that remembers that many producer
 * ids refuses a batch from a new one with THROTTLING_QUOTA_EXCEEDED and writes nothing, while the ids it knows
 * and batches without a producer id go on; expiry frees room. A client inventing producer ids cannot grow the
 * state past the bound.
 */
class ProducerIdBoundTest {
    @TempDir
    Path root;

    private LogTestSupport support;

    @BeforeEach
    void setUp() {
        support = new LogTestSupport(root);
    }

    @AfterEach
    void tearDown() {
        support.close();
    }

    private MemoryRecords idempotent(long pid, int sequence) {
        return new RecordBatchBuilder(0).producer(pid, (short) 0, sequence).append(support.now(), "k", "v")
                .buildRecords();
    }

    private Log logWithBound(int bound) throws IOException {
        LogManager manager = support.startManager(Map.of("producer.id.max.entries.per.partition", bound,
                "producer.id.expiration.ms", 60_000, "producer.id.expiration.check.interval.ms", 10_000));
        return manager.getOrCreateLog(new TopicPartition("orders", 0), Map.of());
    }

    @Test
    void aNewProducerIdPastTheBoundIsPushedBackAndNothingIsWritten() throws IOException {
        Log log = logWithBound(3);
        for (long pid = 1; pid <= 3; pid++) {
            log.appendAsLeader(idempotent(pid, 0), 0);
        }

        TidelineException e = assertThrows(TidelineException.class, () -> log.appendAsLeader(idempotent(4, 0), 0));

        assertEquals(Errors.THROTTLING_QUOTA_EXCEEDED, e.error());
        assertTrue(e.error().retriable(), "the producer retries");
        assertEquals(3, log.logEndOffset());
        assertEquals(3, log.activeProducers().size());
    }

    @Test
    void knownProducerIdsAndPlainBatchesGoOnAtTheBound() throws IOException {
        Log log = logWithBound(2);
        log.appendAsLeader(idempotent(1, 0), 0);
        log.appendAsLeader(idempotent(2, 0), 0);

        assertEquals(2, log.appendAsLeader(idempotent(1, 1), 0).firstOffset(), "the next batch of a known id");
        assertTrue(log.appendAsLeader(idempotent(2, 0), 0).duplicate(), "a retry is still recognised");
        assertEquals(3, log.appendAsLeader(LogTestSupport.batch(support.now(), 1), 0).firstOffset(),
                "a batch without a producer id");
    }

    @Test
    void inventedProducerIdsNeverGrowTheStatePastTheBoundAndExpiryFreesRoom() throws IOException {
        Log log = logWithBound(100);
        int refused = 0;
        for (long pid = 1_000; pid < 1_500; pid++) {
            try {
                log.appendAsLeader(idempotent(pid, (int) (pid % 7)), 0);
            } catch (TidelineException e) {
                assertEquals(Errors.THROTTLING_QUOTA_EXCEEDED, e.error());
                refused++;
            }
        }
        assertEquals(400, refused);
        assertEquals(100, log.activeProducers().size());

        support.time.advance(60_000);

        assertEquals(0, log.activeProducers().size(), "expired at the check");
        log.appendAsLeader(idempotent(9_999, 0), 0);
        assertEquals(1, log.activeProducers().size());
    }

    @Test
    void aFollowerTakesWhatItsLeaderWrote() throws IOException {
        Log log = logWithBound(1);
        for (long pid = 1; pid <= 3; pid++) {
            log.appendAsFollower(new RecordBatchBuilder(pid - 1).partitionLeaderEpoch(0).producer(pid, (short) 0, 0)
                    .append(support.now(), "k", "v").buildRecords());
        }
        assertEquals(3, log.activeProducers().size(), "the bound is the leader's check; replicas mirror the leader");
    }
}
