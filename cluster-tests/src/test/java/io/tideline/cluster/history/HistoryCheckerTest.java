package io.tideline.cluster.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.cluster.history.HistoryEvent.BrokerRestart;
import io.tideline.cluster.history.HistoryEvent.Consumed;
import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.cluster.history.HistoryEvent.OffsetReset;
import io.tideline.cluster.history.HistoryEvent.ProduceCompleted;
import io.tideline.cluster.history.HistoryEvent.ReplicaSample;
import io.tideline.cluster.history.Violation.Kind;
import io.tideline.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HistoryCheckerTest {

    private static final TopicPartition TP = new TopicPartition("orders", 0);

    private final History history = new History();

    /** Three acknowledged records a, b, c at offsets 0..2, read by one consumer, replicated to brokers 1 and 2. */
    private void correctRun() {
        history.produceInvoked(TP, "a").ok(0);
        history.produceInvoked(TP, "b").ok(1);
        history.produceInvoked(TP, "lost-in-flight").failed("NOT_ENOUGH_REPLICAS");
        History.ProduceAttempt maybe = history.produceInvoked(TP, "maybe");
        history.produceInvoked(TP, "c").ok(3);
        maybe.unknown();
        history.replicaSample(1, TP, 2, 0);
        history.consumed("c1", TP, 0, "a");
        history.consumed("c1", TP, 1, "b");
        history.consumed("c1", TP, 2, "maybe");
        history.consumed("c1", TP, 3, "c");
        history.replicaSample(1, TP, 4, 0);
    }

    private static List<LogEntry> entries(String... values) {
        List<LogEntry> entries = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            entries.add(new LogEntry(i, values[i]));
        }
        return entries;
    }

    private void finalLogs(List<LogEntry> leader, List<LogEntry> follower) {
        history.finalRead(TP, 0, leader.size(), leader);
        history.replicaLog(1, TP, 0, leader.size(), leader);
        history.replicaLog(2, TP, 0, follower.size(), follower);
    }

    private CheckResult check() {
        return HistoryChecker.lenient().check(history);
    }

    @Test
    void historyOfACorrectRunPassesWithItsCounts() {
        correctRun();
        finalLogs(entries("a", "b", "maybe", "c"), entries("a", "b", "maybe", "c"));

        CheckResult result = check();

        result.assertValid();
        assertEquals(3, result.acknowledged());
        assertEquals(0, result.lost());
        assertEquals(1, result.failed());
        assertEquals(1, result.unknownOutcomes());
        assertEquals(4, result.consumed());
        assertEquals(0, result.duplicates());
    }

    @Test
    void acknowledgedRecordMissingFromTheFinalReadIsLost() {
        correctRun();
        List<LogEntry> withoutB = List.of(new LogEntry(0, "a"), new LogEntry(2, "maybe"), new LogEntry(3, "c"));
        history.finalRead(TP, 0, 4, withoutB);

        CheckResult result = check();

        assertEquals(1, result.lost());
        List<Violation> lost = result.violations(Kind.LOST_WRITE);
        assertEquals(1, lost.size());
        assertTrue(lost.get(0).description().contains("acknowledged value b at orders-0 offset 1"),
            lost.get(0).description());
        // The slice holds the attempt and the read of that value, and nothing about other values.
        List<HistoryEvent> slice = lost.get(0).slice();
        assertTrue(slice.stream().anyMatch(e -> e instanceof ProduceCompleted c && c.value().equals("b")));
        assertTrue(slice.stream().anyMatch(e -> e instanceof Consumed c && c.value().equals("b")));
        assertTrue(slice.stream().noneMatch(e -> e instanceof Consumed c && !c.value().equals("b")));
    }

    @Test
    void acknowledgedRecordBelowAToldLogStartOffsetIsDeletedByRetentionNotLost() {
        correctRun();
        history.toldLogStartOffset("c2", TP, 2);
        history.consumed("c2", TP, 2, "maybe");
        List<LogEntry> tail = List.of(new LogEntry(2, "maybe"), new LogEntry(3, "c"));
        history.finalRead(TP, 2, 4, tail);

        CheckResult result = check();

        result.assertValid();
        assertEquals(2, result.deletedByRetention());
        assertEquals(0, result.lost());
    }

    @Test
    void valueAtTwoOffsetsIsCountedAsDuplicateAndFailsOnlyWhenStrict() {
        history.produceInvoked(TP, "a").ok(0);
        history.produceInvoked(TP, "retried").ok(2);
        history.consumed("c1", TP, 0, "a");
        history.consumed("c1", TP, 1, "retried");
        history.consumed("c1", TP, 2, "retried");
        finalLogs(entries("a", "retried", "retried"), entries("a", "retried", "retried"));

        CheckResult lenient = check();
        lenient.assertValid();
        assertEquals(1, lenient.duplicates());
        assertEquals(1, lenient.duplicatesOfAcknowledged());
        assertEquals(List.of("value retried of orders-0 is at offsets [1, 2] (its attempt ended OK)"),
            lenient.duplicateDescriptions());

        CheckResult strict = HistoryChecker.strict().check(history);
        List<Violation> duplicates = strict.violations(Kind.DUPLICATE_VALUE);
        assertEquals(1, duplicates.size());
        assertTrue(duplicates.get(0).slice().stream()
            .noneMatch(e -> e instanceof Consumed c && c.value().equals("a")));
    }

    @Test
    void offsetReadWithADifferentValueThanTheFinalLogHoldsTwoValues() {
        correctRun();
        history.consumed("c2", TP, 1, "ghost");
        finalLogs(entries("a", "b", "maybe", "c"), entries("a", "b", "maybe", "c"));

        List<Violation> violations = check().violations(Kind.OFFSET_WITH_TWO_VALUES);

        assertEquals(1, violations.size());
        assertEquals("orders-0 offset 1 holds 2 values [b, ghost]", violations.get(0).description());
        List<HistoryEvent> slice = violations.get(0).slice();
        assertTrue(slice.stream().anyMatch(e -> e instanceof Consumed c && c.value().equals("ghost")));
        assertTrue(slice.stream().anyMatch(e -> e instanceof ProduceCompleted c && c.offset() == 1));
        assertTrue(slice.stream().noneMatch(e -> e instanceof Consumed c && c.offset() != 1));
    }

    @Test
    void recordReadAboveTheFinalHighWatermarkIsCaught() {
        correctRun();
        history.consumed("c1", TP, 4, "uncommitted");
        finalLogs(entries("a", "b", "maybe", "c"), entries("a", "b", "maybe", "c"));

        List<Violation> violations = check().violations(Kind.READ_NOT_IN_FINAL_LOG);

        assertEquals(1, violations.size());
        assertEquals("c1 read uncommitted at orders-0 offset 4 but the final read has no record there "
            + "(log start offset 0, hw 4)", violations.get(0).description());
    }

    @Test
    void consumerGoingBackwardsIsCaught() {
        correctRun();
        history.consumed("c1", TP, 2, "maybe");
        finalLogs(entries("a", "b", "maybe", "c"), entries("a", "b", "maybe", "c"));

        List<Violation> violations = check().violations(Kind.CONSUMER_WENT_BACKWARDS);

        assertEquals(1, violations.size());
        assertEquals("c1 on orders-0 read offset 2 after offset 3", violations.get(0).description());
        assertEquals(List.of(3L, 2L), violations.get(0).slice().stream()
            .map(e -> ((Consumed) e).offset()).toList());
    }

    @Test
    void unexplainedSkipIsCaught() {
        history.produceInvoked(TP, "a").ok(0);
        history.produceInvoked(TP, "b").ok(1);
        history.produceInvoked(TP, "c").ok(2);
        history.consumed("c1", TP, 0, "a");
        history.toldLogStartOffset("c1", TP, 1);
        history.consumed("c1", TP, 2, "c");
        finalLogs(entries("a", "b", "c"), entries("a", "b", "c"));

        List<Violation> violations = check().violations(Kind.CONSUMER_SKIPPED_OFFSETS);

        assertEquals(1, violations.size());
        assertEquals("c1 on orders-0 skipped offsets 1..1 (told log start offset 1)",
            violations.get(0).description());
        List<HistoryEvent> slice = violations.get(0).slice();
        assertEquals(3, slice.size());
        assertTrue(slice.get(1) instanceof OffsetReset);
    }

    @Test
    void skipBelowAToldLogStartOffsetIsExplained() {
        history.produceInvoked(TP, "a").ok(0);
        history.produceInvoked(TP, "b").ok(1);
        history.produceInvoked(TP, "c").ok(2);
        history.consumed("c1", TP, 0, "a");
        history.toldLogStartOffset("c1", TP, 2);
        history.consumed("c1", TP, 2, "c");
        history.finalRead(TP, 2, 3, List.of(new LogEntry(2, "c")));

        CheckResult result = check();

        result.assertValid();
        assertEquals(2, result.deletedByRetention());
    }

    @Test
    void consumerToldALogStartOffsetBeforeItsFirstRecordMustStartThere() {
        history.produceInvoked(TP, "a").ok(0);
        history.produceInvoked(TP, "b").ok(1);
        history.produceInvoked(TP, "c").ok(2);
        history.toldLogStartOffset("c1", TP, 1);
        history.consumed("c1", TP, 2, "c");
        history.finalRead(TP, 1, 3, List.of(new LogEntry(1, "b"), new LogEntry(2, "c")));

        List<Violation> violations = check().violations(Kind.CONSUMER_SKIPPED_OFFSETS);

        assertEquals(1, violations.size());
        assertEquals("c1 on orders-0 skipped offsets 1..1 (told log start offset 1)",
            violations.get(0).description());
    }

    @Test
    void replicaDivergingFromTheLeaderIsCaughtAtTheFirstDifferentOffset() {
        correctRun();
        finalLogs(entries("a", "b", "maybe", "c"), entries("a", "b", "other", "c"));

        List<Violation> violations = check().violations(Kind.REPLICA_DIVERGES);

        assertEquals(1, violations.size());
        assertEquals("broker 2's log of orders-0 diverges from the leader's at offset 2: leader has maybe, "
            + "replica has other", violations.get(0).description());
    }

    @Test
    void replicaWithALaterLogStartOffsetIsComparedFromItsOwnStart() {
        correctRun();
        List<LogEntry> leader = entries("a", "b", "maybe", "c");
        history.finalRead(TP, 0, 4, leader);
        history.replicaLog(2, TP, 2, 4, List.of(new LogEntry(2, "maybe"), new LogEntry(3, "c")));

        List<Violation> divergence = check().violations(Kind.REPLICA_DIVERGES);

        assertEquals(List.of(), divergence);
    }

    @Test
    void highWatermarkGoingBackwardsAcrossARestartIsCaught() {
        correctRun();
        history.brokerRestarted(1);
        history.replicaSample(1, TP, 3, 0);
        finalLogs(entries("a", "b", "maybe", "c"), entries("a", "b", "maybe", "c"));

        List<Violation> violations = check().violations(Kind.HIGH_WATERMARK_WENT_BACKWARDS);

        assertEquals(1, violations.size());
        Violation violation = violations.get(0);
        assertEquals("broker 1's high watermark of orders-0 went from 4 to 3 across a restart",
            violation.description());
        assertEquals(3, violation.slice().size());
        assertTrue(violation.slice().get(0) instanceof ReplicaSample s && s.highWatermark() == 4);
        assertTrue(violation.slice().get(1) instanceof BrokerRestart);
        assertTrue(violation.slice().get(2) instanceof ReplicaSample s && s.highWatermark() == 3);
    }

    @Test
    void highWatermarkComingBackLowerAfterACrashIsAllowedButTheLogStartOffsetIsNot() {
        correctRun();
        history.replicaSample(1, TP, 4, 2);
        history.brokerRestartedAfterCrash(1);
        history.replicaSample(1, TP, 2, 1);
        history.replicaSample(1, TP, 1, 2);

        CheckResult result = check();

        List<Violation> lsoBack = result.violations(Kind.LOG_START_OFFSET_WENT_BACKWARDS);
        assertEquals(1, lsoBack.size(), result.report());
        assertEquals("broker 1's log start offset of orders-0 went from 2 to 1 across a restart",
            lsoBack.get(0).description());
        // 4 -> 2 across the crash is allowed; 2 -> 1 afterwards, while running, is not.
        List<Violation> hwBack = result.violations(Kind.HIGH_WATERMARK_WENT_BACKWARDS);
        assertEquals(1, hwBack.size(), result.report());
        assertEquals("broker 1's high watermark of orders-0 went from 2 to 1", hwBack.get(0).description());
    }

    @Test
    void logStartOffsetGoingBackwardsIsCaught() {
        history.replicaSample(2, TP, 5, 3);
        history.replicaSample(2, TP, 6, 1);

        List<Violation> violations = check().violations(Kind.LOG_START_OFFSET_WENT_BACKWARDS);

        assertEquals(1, violations.size());
        assertEquals("broker 2's log start offset of orders-0 went from 3 to 1", violations.get(0).description());
    }

    @Test
    void aRecreatedReplicaStartsItsWatermarksOver() {
        history.replicaSample(4, TP, 6, 3);
        history.replicaRecreated(4, TP);
        history.replicaSample(4, TP, 0, 0);
        history.replicaSample(4, TP, 6, 3);

        assertEquals(List.of(), check().violations(Kind.HIGH_WATERMARK_WENT_BACKWARDS));
        assertEquals(List.of(), check().violations(Kind.LOG_START_OFFSET_WENT_BACKWARDS));
    }

    @Test
    void aRecreatedReplicaGoingBackwardsOnItsOwnIsStillCaught() {
        history.replicaSample(4, TP, 6, 3);
        history.replicaRecreated(4, TP);
        history.replicaSample(4, TP, 5, 2);
        history.replicaSample(4, TP, 4, 2);
        history.replicaSample(3, TP, 1, 0);

        List<Violation> violations = check().violations(Kind.HIGH_WATERMARK_WENT_BACKWARDS);

        assertEquals(1, violations.size());
        assertEquals("broker 4's high watermark of orders-0 went from 5 to 4", violations.get(0).description());
    }

    @Test
    void assertValidThrowsAReportWithEachViolationAndItsSlice() {
        correctRun();
        history.finalRead(TP, 0, 4, entries("a", "X", "maybe", "c"));

        AssertionError error = assertThrows(AssertionError.class, () -> check().assertValid());

        String[] lines = error.getMessage().split("\\n");
        assertTrue(lines[0].startsWith("history INVALID, 2 violation(s): acknowledged=3 lost=1"), lines[0]);
        assertTrue(lines[1].startsWith("  LOST_WRITE: acknowledged value b at orders-0 offset 1 is not in the "
            + "final read: that offset holds X"), lines[1]);
        assertTrue(lines[2].matches("    #\\d+ produce invoked  orders-0 value=b"), lines[2]);
    }

    @Test
    void concurrentRecordersGetDistinctSequenceNumbersInListOrder() throws Exception {
        int threads = 4;
        int perThread = 500;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            int thread = t;
            pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    history.produceInvoked(TP, thread + "-" + i).ok(i);
                }
                return null;
            });
        }
        start.countDown();
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));

        List<HistoryEvent> events = history.events();
        assertEquals(2 * threads * perThread, events.size());
        for (int i = 0; i < events.size(); i++) {
            assertEquals(i, events.get(i).seq());
        }
    }

    @Test
    void completingAnAttemptTwiceIsRefused() {
        History.ProduceAttempt attempt = history.produceInvoked(TP, "a");
        attempt.ok(0);

        assertThrows(IllegalStateException.class, () -> attempt.failed("REQUEST_TIMED_OUT"));
    }
}
