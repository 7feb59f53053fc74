package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.common.io.FileUtils;
import io.tideline.store.config.LogConfig;
import io.tideline.store.producer.Sequences;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random interleavings of three idempotent producers sending, retrying (any of their last five batches, or
 * an older one), bumping their epoch, with rolls, clean restarts and crashes in between, against a model of
 * what each producer sent. After every step each answer is the model's (a retry: the original offsets,
 * nothing written); at the end the log holds each (producer id, epoch, sequence) exactly once, in the order
 * sent, and a restart changes no answer.
 */
class IdempotentProducerPropertyTest {
    private static final Map<String, Object> CONFIG = Map.of("segment.bytes", 600, "retention.ms", -1);
    private static final int PRODUCERS = 3;

    enum Kind { SEND, RETRY, RETRY_FORGOTTEN, BUMP_EPOCH, ROLL, RESTART, CRASH }

    record Step(Kind kind, int producer, int pick) {
        @Override
        public String toString() {
            return kind + "(p" + producer + ", " + pick + ")";
        }
    }

    /** What the model knows a producer wrote: one entry per batch, in order. */
    record Sent(short epoch, int firstSeq, int lastSeq, long firstOffset, long lastOffset) {
    }

    private static final class Producer {
        final long id;
        short epoch;
        int nextSeq;
        final List<Sent> sent = new ArrayList<>();
        final List<Sent> thisEpoch = new ArrayList<>();

        Producer(long id) {
            this.id = id;
        }
    }

    @Property(tries = 60)
    void eachBatchIsWrittenExactlyOnceAndRetriesAnswerTheOriginalOffsets(@ForAll("scenarios") List<Step> steps)
            throws IOException {
        Path root = Files.createTempDirectory("idem-prop");
        LogTestSupport support = new LogTestSupport(root);
        try {
            run(support, steps);
        } finally {
            support.close();
            FileUtils.deleteRecursively(root);
        }
    }

    private void run(LogTestSupport support, List<Step> steps) throws IOException {
        Log log = support.open(CONFIG);
        List<Producer> producers = new ArrayList<>();
        for (int i = 0; i < PRODUCERS; i++) {
            Producer p = new Producer(1000L + i);
            // Start near the wrap so that some scenarios cross Integer.MAX_VALUE.
            p.nextSeq = i == 2 ? Integer.MAX_VALUE - 4 : 0;
            producers.add(p);
        }
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            String at = "step " + i + " " + step + " of " + steps;
            Producer p = producers.get(step.producer());
            switch (step.kind()) {
                case SEND -> {
                    int records = 1 + step.pick() % 3;
                    long end = log.logEndOffset();
                    LogAppendInfo info = log.appendAsLeader(batch(support, p, p.nextSeq, records), 0);
                    assertFalse(info.duplicate(), at);
                    assertEquals(end, info.firstOffset(), at);
                    Sent s = new Sent(p.epoch, p.nextSeq, Sequences.increment(p.nextSeq, records - 1), info.firstOffset(),
                            info.lastOffset());
                    p.sent.add(s);
                    p.thisEpoch.add(s);
                    p.nextSeq = Sequences.increment(s.lastSeq(), 1);
                }
                case RETRY -> {
                    if (p.thisEpoch.isEmpty()) {
                        continue;
                    }
                    List<Sent> window = p.thisEpoch.subList(Math.max(0, p.thisEpoch.size() - 5), p.thisEpoch.size());
                    Sent s = window.get(step.pick() % window.size());
                    long end = log.logEndOffset();
                    LogAppendInfo info = log.appendAsLeader(batch(support, p, s.firstSeq(), count(s)), 0);
                    assertTrue(info.duplicate(), at);
                    assertEquals(s.firstOffset(), info.firstOffset(), at);
                    assertEquals(s.lastOffset(), info.lastOffset(), at);
                    assertEquals(end, log.logEndOffset(), at);
                }
                case RETRY_FORGOTTEN -> {
                    if (p.thisEpoch.size() <= 5) {
                        continue;
                    }
                    Sent s = p.thisEpoch.get(step.pick() % (p.thisEpoch.size() - 5));
                    Log current = log;
                    TidelineException e = assertThrows(TidelineException.class,
                            () -> current.appendAsLeader(batch(support, p, s.firstSeq(), count(s)), 0), at);
                    assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, e.error(), at);
                }
                case BUMP_EPOCH -> {
                    p.epoch++;
                    p.nextSeq = 0;
                    p.thisEpoch.clear();
                }
                case ROLL -> log.roll(log.logEndOffset());
                case RESTART -> log = support.reopen(log, CONFIG);
                case CRASH -> {
                    long recoveryPoint = log.recoveryPoint();
                    log.abandon();
                    log = support.track(Log.open(log.dir(), LogConfig.fromMap(CONFIG), support.time, support.scheduler,
                            new Random(step.pick()), support.deleter, 0L, recoveryPoint, -1L, false));
                }
            }
            support.scheduler.tick();
        }
        assertLogHoldsEachBatchOnce(log, producers, steps);
    }

    private static int count(Sent s) {
        return (int) (s.lastOffset() - s.firstOffset() + 1);
    }

    private static MemoryRecords batch(LogTestSupport support, Producer p, int seq, int records) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0).producer(p.id, p.epoch, seq);
        for (int r = 0; r < records; r++) {
            builder.append(support.now(), "p" + p.id, "seq-" + seq + "-" + r);
        }
        return builder.buildRecords();
    }

    private static void assertLogHoldsEachBatchOnce(Log log, List<Producer> producers, List<Step> steps) throws IOException {
        Map<Long, List<Sent>> stored = new HashMap<>();
        long next = log.logStartOffset();
        while (next < log.logEndOffset()) {
            try (FetchDataInfo fetch = log.read(next, Integer.MAX_VALUE, log.logEndOffset(), true)) {
                List<RecordBatch> batches = fetch.records().toMemoryRecords().batches();
                for (RecordBatch b : batches) {
                    stored.computeIfAbsent(b.producerId(), id -> new ArrayList<>()).add(new Sent(b.producerEpoch(),
                            b.baseSequence(), Sequences.increment(b.baseSequence(), b.lastOffsetDelta()), b.baseOffset(),
                            b.lastOffset()));
                    next = b.lastOffset() + 1;
                }
            }
        }
        for (Producer p : producers) {
            assertEquals(p.sent, stored.getOrDefault(p.id, List.of()), "producer " + p.id + " after " + steps);
        }
    }

    @Provide
    Arbitrary<List<Step>> scenarios() {
        Arbitrary<Kind> kind = Arbitraries.frequency(
                net.jqwik.api.Tuple.of(10, Kind.SEND),
                net.jqwik.api.Tuple.of(6, Kind.RETRY),
                net.jqwik.api.Tuple.of(2, Kind.RETRY_FORGOTTEN),
                net.jqwik.api.Tuple.of(1, Kind.BUMP_EPOCH),
                net.jqwik.api.Tuple.of(1, Kind.ROLL),
                net.jqwik.api.Tuple.of(1, Kind.RESTART),
                net.jqwik.api.Tuple.of(1, Kind.CRASH));
        Arbitrary<Step> step = Combinators.combine(kind, Arbitraries.integers().between(0, PRODUCERS - 1),
                Arbitraries.integers().between(0, 1000)).as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(60);
    }
}
