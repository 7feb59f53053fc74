package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.store.manager.LogManager;
import io.tideline.store.producer.ProducerStateEntry;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A producer id is forgotten producer.id.expiration.ms after its last batch was written as the broker's
 * clock saw it, whatever timestamp the client put on the batch (docs/behaviours.md B151), on the leader, on
 * a follower and after a reload. The topics here accept any timestamp (message.timestamp.*.max.ms at
 * their largest), so only the expiry rule is under test.
 */
class ProducerExpiryByBrokerClockTest {
    private static final long DAY = 86_400_000L;
    private static final long EXPIRATION_MS = 60_000L;
    private static final Map<String, Object> ANY_TIMESTAMP = Map.of("message.timestamp.after.max.ms", Long.MAX_VALUE);

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

    private static MemoryRecords idempotent(long pid, int sequence, long timestamp) {
        return new RecordBatchBuilder(0).producer(pid, (short) 0, sequence).append(timestamp, "k", "v").buildRecords();
    }

    private static List<Long> producerIds(Log log) {
        return log.activeProducers().stream().map(ProducerStateEntry::producerId).toList();
    }

    private Log managedLog() throws IOException {
        LogManager manager = support.startManager(Map.of("producer.id.expiration.ms", (int) EXPIRATION_MS,
                "producer.id.expiration.check.interval.ms", 10_000));
        return manager.getOrCreateLog(new TopicPartition("orders", 0), ANY_TIMESTAMP);
    }

    @Test
    void aBatchDatedDaysAheadExpiresByTheBrokerClock() throws IOException {
        Log log = managedLog();
        log.appendAsLeader(idempotent(7, 0, support.now() + 10 * DAY), 0);
        support.time.advance(EXPIRATION_MS - 10_000);
        assertEquals(List.of(7L), producerIds(log), "not yet idle for producer.id.expiration.ms");

        support.time.advance(10_000);

        assertEquals(List.of(), producerIds(log), "idle for producer.id.expiration.ms of broker time");
    }

    @Test
    void aBatchDatedDaysAgoIsRememberedForTheWholeExpiration() throws IOException {
        Log log = managedLog();
        log.appendAsLeader(idempotent(7, 0, support.now() - 10 * DAY), 0);

        support.time.advance(EXPIRATION_MS - 10_000);
        assertEquals(List.of(7L), producerIds(log), "an old client timestamp does not shorten the expiry");
        assertTrue(log.appendAsLeader(idempotent(7, 0, support.now() - 10 * DAY), 0).duplicate(),
                "a retry is still recognised");
        support.time.advance(10_000);
        assertEquals(List.of(), producerIds(log));
    }

    @Test
    void theClientTimestampIsStillWhatDescribeProducersReports() throws IOException {
        Log log = managedLog();
        long dated = support.now() + 10 * DAY;
        log.appendAsLeader(idempotent(7, 0, dated), 0);
        assertEquals(dated, log.activeProducers().get(0).lastTimestamp());
    }

    @Test
    void aFollowerStampsItsOwnClockAtTheAppend() throws IOException {
        Log log = support.open(ANY_TIMESTAMP);
        log.appendAsFollower(new RecordBatchBuilder(0).partitionLeaderEpoch(0).producer(7, (short) 0, 0)
                .append(support.now() + 10 * DAY, "k", "v").buildRecords());

        support.time.advance(EXPIRATION_MS - 1);
        assertEquals(0, log.removeExpiredProducers(support.now(), EXPIRATION_MS));
        support.time.advance(1);
        assertEquals(1, log.removeExpiredProducers(support.now(), EXPIRATION_MS));
    }

    @Test
    void afterAReloadAFutureDatedEntryExpiresWithinTheExpirationOfTheReload() throws IOException {
        Log log = support.open(ANY_TIMESTAMP);
        log.appendAsLeader(idempotent(7, 0, support.now() + 10 * DAY), 0);
        log.appendAsLeader(idempotent(8, 0, support.now() - 10 * DAY), 0);
        support.time.advance(1_000);

        Log reopened = support.reopen(log, ANY_TIMESTAMP);

        assertEquals(List.of(7L, 8L), producerIds(reopened), "both come back from the snapshot");
        assertEquals(1, reopened.removeExpiredProducers(support.now(), EXPIRATION_MS),
                "the one dated days ago: a reload knows no better than the client's timestamp when it is in the past");
        support.time.advance(EXPIRATION_MS);
        assertEquals(1, reopened.removeExpiredProducers(support.now(), EXPIRATION_MS),
                "the future-dated one counts from the reload, not from its timestamp");
        assertEquals(List.of(), producerIds(reopened));
    }
}
