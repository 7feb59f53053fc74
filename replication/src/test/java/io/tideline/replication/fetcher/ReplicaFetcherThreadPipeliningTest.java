package io.tideline.replication.fetcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.follower.FollowerPartition;
import io.tideline.replication.follower.OutOfRangePolicy;
import io.tideline.replication.follower.ReplicaStatus;
import io.tideline.store.config.LogConfig;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fetcher thread against a scripted leader: the test sees every fetch the thread sends and answers it
 * from a real leader log, one batch of 10 records per answer, so it decides when each answer arrives
 * relative to the follower's appends. Covers the fetch sent ahead while an answer is appended
 * (pipelining) and every way its answer must be discarded.
 */
class ReplicaFetcherThreadPipeliningTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final int EPOCH = 3;
    private static final int BATCHES = 4;
    private static final int RECORDS_PER_BATCH = 10;

    @TempDir
    Path tmp;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final SegmentDeleter deleter = new SegmentDeleter(scheduler);
    private final LogConfig logConfig = LogConfig.fromMap(Map.of("file.delete.delay.ms", 0));
    private final ReplicationConfig config = ReplicationConfig.fromMap(Map.of("replica.fetch.backoff.ms", 10));
    private final BlockingQueue<Call> calls = new LinkedBlockingQueue<>();
    private final List<Log> logs = new ArrayList<>();
    private Log leader;
    private Log follower;
    private ReplicaFetcherThread thread;

    /** One fetch the thread sent; the test completes {@code answer}. */
    private record Call(List<FollowerFetch> partitions, int maxWaitMs,
                        CompletableFuture<Map<TopicPartition, FetchResponseData>> answer) {
        FollowerFetch only() {
            assertEquals(1, partitions.size(), partitions.toString());
            return partitions.get(0);
        }
    }

    @BeforeEach
    void logs() throws IOException {
        leader = open("leader");
        follower = open("follower");
        for (int b = 0; b < BATCHES; b++) {
            RecordBatchBuilder builder = new RecordBatchBuilder(0);
            for (int i = 0; i < RECORDS_PER_BATCH; i++) {
                builder.append(time.milliseconds(), "k" + i, "value-" + b + "-" + i);
            }
            leader.appendAsLeader(builder.buildRecords(), EPOCH);
        }
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (thread != null) {
            thread.shutdown();
            calls.forEach(c -> c.answer().cancel(false));
            thread.join(10_000);
        }
        logs.forEach(Log::close);
    }

    private Log open(String name) throws IOException {
        Log log = Log.open(tmp.resolve(name).resolve("orders-0"), logConfig, time, scheduler, new Random(1), deleter, 0, 0, -1,
                true);
        logs.add(log);
        return log;
    }

    private void start(OutOfRangePolicy policy, boolean throttled) {
        LeaderEndpoint scripted = (replicaId, partitions, minBytes, maxBytes, maxWaitMs) -> {
            CompletableFuture<Map<TopicPartition, FetchResponseData>> answer = new CompletableFuture<>();
            calls.add(new Call(List.copyOf(partitions), maxWaitMs, answer));
            return answer;
        };
        thread = new ReplicaFetcherThread("fetcher-test", 2, 1, id -> Optional.of(scripted), config, time,
                ReplicationQuota.unlimited(time), FetcherListener.NONE);
        thread.addPartition(TP, new FollowerPartition(follower, 1, EPOCH, policy), throttled);
        thread.start();
    }

    private Call next() throws InterruptedException {
        Call call = calls.poll(10, TimeUnit.SECONDS);
        assertNotNull(call, "the fetcher sent no fetch within 10 s");
        return call;
    }

    /** Answers with the leader's batch at the fetch offset, reporting the leader's end as {@code leaderEnd}. */
    private void answerWithBatchAt(Call call, long offset, long leaderEnd) {
        try (FetchDataInfo info = leader.read(offset, 1, leader.logEndOffset(), true)) {
            MemoryRecords records = info.records().toMemoryRecords();
            call.answer().complete(Map.of(TP, FetchResponseData.records(records, 0, 0, leaderEnd)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The batch at {@code offset} with one byte of its records flipped, so its CRC no longer matches. */
    private void answerWithCorruptBatchAt(Call call, long offset) {
        try (FetchDataInfo info = leader.read(offset, 1, leader.logEndOffset(), true)) {
            ByteBuffer original = info.records().toMemoryRecords().buffer();
            ByteBuffer copy = ByteBuffer.allocate(original.remaining()).put(original.duplicate()).flip();
            copy.put(copy.limit() - 1, (byte) (copy.get(copy.limit() - 1) ^ 0x5a));
            call.answer().complete(Map.of(TP, FetchResponseData.records(MemoryRecords.readableRecords(copy), 0, 0,
                    leader.logEndOffset())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void answerWithBatchAt(Call call, long offset) {
        answerWithBatchAt(call, offset, leader.logEndOffset());
    }

    private void awaitFollowerEnd(long offset) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> follower.logEndOffset() == offset);
    }

    private static void assertFetch(Call call, long fetchOffset, long logEndOffset) {
        assertEquals(fetchOffset, call.only().fetchOffset(), "fetch offset of " + call.only());
        assertEquals(logEndOffset, call.only().logEndOffset(), "log end offset of " + call.only());
    }

    private static List<io.tideline.store.record.Record> records(Log log) throws IOException {
        try (FetchDataInfo info = log.read(log.logStartOffset(), Integer.MAX_VALUE, log.logEndOffset(), true)) {
            return info.records().toMemoryRecords().records();
        }
    }

    private Optional<FollowerStatusView> status() {
        return thread.status(TP);
    }

    @Test
    void whileCatchingUpTheNextFetchLeavesBeforeTheAppendAtTheEndOfTheBatchesBeingAppended() throws Exception {
        start(OutOfRangePolicy.HALT, false);
        Call call = next();
        assertFetch(call, 0, 0);
        for (long end = 0; end < 30; end += RECORDS_PER_BATCH) {
            answerWithBatchAt(call, end);
            call = next();
            // Sent before the answer is appended: it reads after the batch, and the position it reports is
            // what the follower had, so the leader does not count the batch until it is written. It does
            // not long-poll, so a leader with nothing to send at once cannot sit on that old position.
            assertFetch(call, end + RECORDS_PER_BATCH, end);
            assertEquals(EPOCH, call.only().lastFetchedEpoch());
            assertEquals(0, call.maxWaitMs());
        }
        // [30, 40) is all the leader has: the next fetch waits for the append, and reports it.
        answerWithBatchAt(call, 30);
        call = next();
        assertFetch(call, 40, 40);
        assertEquals(config.fetchWaitMaxMs(), call.maxWaitMs());
        assertEquals(40, follower.logEndOffset());
        assertEquals(records(leader), records(follower));
    }

    @Test
    void aFollowerCloseToTheLeadersEndFetchesOnlyAfterItsAppend() throws Exception {
        start(OutOfRangePolicy.HALT, false);
        // The leader holds 5 offsets past this answer of 10: not catching up, so no fetch ahead.
        answerWithBatchAt(next(), 0, 15);
        assertFetch(next(), 10, 10);
    }

    @Test
    void aThrottledPartitionIsNeverFetchedAhead() throws Exception {
        start(OutOfRangePolicy.HALT, true);
        answerWithBatchAt(next(), 0);
        assertFetch(next(), 10, 10);
    }

    @Test
    void theAnswerToAFetchSentAheadIsDroppedWhenTheLeaderEpochMovesOn() throws Exception {
        start(OutOfRangePolicy.HALT, false);
        answerWithBatchAt(next(), 0);
        Call ahead = next();
        assertFetch(ahead, 10, 0);
        awaitFollowerEnd(10);
        assertTrue(thread.updatePartition(TP, follower, EPOCH + 1, OutOfRangePolicy.HALT, false));
        answerWithBatchAt(ahead, 10);

        Call after = next();
        assertEquals(EPOCH + 1, after.only().currentLeaderEpoch());
        assertFetch(after, 10, 10);
        assertEquals(10, follower.logEndOffset(), "the answer at the old epoch was not appended");
    }

    @Test
    void theAnswerToAFetchSentAheadIsDroppedWhenTheAppendBeforeItFails() throws Exception {
        start(OutOfRangePolicy.HALT, false);
        // A batch whose CRC does not match: the append refuses it, and the log end stays at 0.
        answerWithCorruptBatchAt(next(), 0);
        Call ahead = next();
        assertFetch(ahead, 10, 0);
        answerWithBatchAt(ahead, 10);

        Call after = next();
        assertFetch(after, 0, 0);
        assertEquals(0, follower.logEndOffset(), "nothing appended after the refused batch");
    }

    @Test
    void anErrorAnsweredToAFetchSentAheadIsJudgedAgainstTheLogAsAppended() throws Exception {
        start(OutOfRangePolicy.HALT, false);
        answerWithBatchAt(next(), 0);
        Call ahead = next();
        assertFetch(ahead, 10, 0);
        // Retention moved the leader's start past the follower meanwhile.
        ahead.answer().complete(Map.of(TP, FetchResponseData.error(Errors.OFFSET_OUT_OF_RANGE, 40, 30, 40)));

        Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> status().map(s -> s.status() == ReplicaStatus.FAILED).orElse(false));
        assertEquals(10, status().orElseThrow().failure().orElseThrow().fetchOffset(),
                "failed at the end of the appended batch, not where the fetch before it started");
        assertEquals(10, follower.logEndOffset(), "a halted replica keeps its data");
        assertNull(calls.poll(200, TimeUnit.MILLISECONDS), "a FAILED replica does not fetch");
    }

    @Test
    void aRebuildAfterAnAnswerToAFetchSentAheadRestartsAtTheLeadersStart() throws Exception {
        start(OutOfRangePolicy.REBUILD, false);
        answerWithBatchAt(next(), 0);
        Call ahead = next();
        assertFetch(ahead, 10, 0);
        ahead.answer().complete(Map.of(TP, FetchResponseData.error(Errors.OFFSET_OUT_OF_RANGE, 40, 30, 40)));

        Call after = next();
        assertFetch(after, 30, 30);
        assertEquals(ReplicaStatus.REBUILDING, status().orElseThrow().status());
    }

    @Test
    void shutdownCancelsAFetchSentAhead() throws Exception {
        start(OutOfRangePolicy.HALT, false);
        answerWithBatchAt(next(), 0);
        Call ahead = next();
        awaitFollowerEnd(10);
        thread.shutdown();
        thread.join(10_000);
        assertFalse(thread.isAlive());
        assertTrue(ahead.answer().isCancelled());
    }
}
