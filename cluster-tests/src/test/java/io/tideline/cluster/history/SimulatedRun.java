package io.tideline.cluster.history;

import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A correct cluster simulated in memory, recording into a {@link History} what a harness would: appends with
 * acknowledged, failed and unknown outcomes (failed and unknown attempts may or may not have landed, retries may
 * land twice), retention moving the log start offset, followers whose watermarks lag but never regress, broker
 * restarts, and consumers that reset to the log start offset when told OFFSET_OUT_OF_RANGE. It always ends with
 * three acknowledged records read by one consumer, so every fault of {@link HistoryFaults} has something to break.
 */
final class SimulatedRun {

    static final int LEADER = 1;
    static final List<Integer> BROKERS = List.of(1, 2, 3);
    static final List<String> CONSUMERS = List.of("c1", "c2");

    private final Random random;
    private final History history = new History();
    private final List<TopicPartition> partitions = new ArrayList<>();
    private final Map<TopicPartition, List<String>> logs = new HashMap<>();
    private final Map<TopicPartition, Long> logStart = new HashMap<>();
    private final Map<String, long[]> replicaMarks = new HashMap<>();
    private final Map<String, Long> consumerPositions = new HashMap<>();
    private final List<Runnable> pendingCompletions = new ArrayList<>();
    private int nextValue;
    long acknowledged;
    long consumed;

    SimulatedRun(long seed) {
        this.random = new Random(seed);
        int partitionCount = 1 + random.nextInt(2);
        for (int p = 0; p < partitionCount; p++) {
            TopicPartition tp = new TopicPartition("sim", p);
            partitions.add(tp);
            logs.put(tp, new ArrayList<>());
            logStart.put(tp, 0L);
        }
    }

    List<HistoryEvent> run() {
        int steps = 10 + random.nextInt(60);
        for (int i = 0; i < steps; i++) {
            step(partitions.get(random.nextInt(partitions.size())));
        }
        TopicPartition last = partitions.get(0);
        for (int i = 0; i < 3; i++) {
            produceOk(last, false);
        }
        pendingCompletions.forEach(Runnable::run);
        read("c1", last, Integer.MAX_VALUE);
        for (TopicPartition tp : partitions) {
            finalLogs(tp);
        }
        return history.events();
    }

    private void step(TopicPartition tp) {
        int action = random.nextInt(100);
        if (action < 30) {
            produceOk(tp, random.nextInt(10) == 0);
        } else if (action < 45) {
            produceInDoubt(tp);
        } else if (action < 50 && !pendingCompletions.isEmpty()) {
            pendingCompletions.remove(random.nextInt(pendingCompletions.size())).run();
        } else if (action < 57) {
            long hw = logs.get(tp).size();
            long lso = logStart.get(tp);
            logStart.put(tp, lso + (long) (random.nextDouble() * (hw - lso + 1)));
        } else if (action < 75) {
            sample(BROKERS.get(random.nextInt(BROKERS.size())), tp);
        } else if (action < 80) {
            history.brokerRestarted(BROKERS.get(random.nextInt(BROKERS.size())));
        } else {
            read(CONSUMERS.get(random.nextInt(CONSUMERS.size())), tp, 1 + random.nextInt(5));
        }
    }

    private String newValue(TopicPartition tp) {
        return tp + "-v" + nextValue++;
    }

    /** An acknowledged append; with {@code retried} the first try landed too (not idempotent), so it is twice. */
    private void produceOk(TopicPartition tp, boolean retried) {
        String value = newValue(tp);
        History.ProduceAttempt attempt = history.produceInvoked(tp, value);
        List<String> log = logs.get(tp);
        if (retried) {
            log.add(value);
        }
        log.add(value);
        long offset = log.size() - 1;
        acknowledged++;
        complete(() -> attempt.ok(offset));
    }

    /** A failed or timed-out attempt, which landed or not. */
    private void produceInDoubt(TopicPartition tp) {
        String value = newValue(tp);
        History.ProduceAttempt attempt = history.produceInvoked(tp, value);
        if (random.nextBoolean()) {
            logs.get(tp).add(value);
        }
        complete(random.nextBoolean() ? () -> attempt.failed("REQUEST_TIMED_OUT") : attempt::unknown);
    }

    /** Completions arrive now or later, interleaved with other events. */
    private void complete(Runnable completion) {
        if (random.nextBoolean()) {
            completion.run();
        } else {
            pendingCompletions.add(completion);
        }
    }

    /** A replica's marks move toward the leader's, never back. */
    private void sample(int broker, TopicPartition tp) {
        long[] marks = replicaMarks.computeIfAbsent(broker + "/" + tp, k -> new long[2]);
        long hw = logs.get(tp).size();
        long lso = logStart.get(tp);
        marks[0] = broker == LEADER ? hw : marks[0] + (long) (random.nextDouble() * (hw - marks[0] + 1));
        marks[1] = Math.min(marks[0], marks[1] + (long) (random.nextDouble() * (lso - marks[1] + 1)));
        history.replicaSample(broker, tp, marks[0], marks[1]);
    }

    private void read(String consumer, TopicPartition tp, int max) {
        String key = consumer + "/" + tp;
        long position = consumerPositions.getOrDefault(key, 0L);
        long lso = logStart.get(tp);
        if (position < lso) {
            history.toldLogStartOffset(consumer, tp, lso);
            position = lso;
        }
        List<String> log = logs.get(tp);
        for (int i = 0; i < max && position < log.size(); i++, position++) {
            history.consumed(consumer, tp, position, log.get((int) position));
            consumed++;
        }
        consumerPositions.put(key, position);
    }

    /** After healing: the leader's read and every replica at the leader's hw, each from its own start offset. */
    private void finalLogs(TopicPartition tp) {
        List<String> log = logs.get(tp);
        long hw = log.size();
        long lso = logStart.get(tp);
        history.finalRead(tp, lso, hw, entries(log, lso));
        for (int broker : BROKERS) {
            long[] marks = replicaMarks.computeIfAbsent(broker + "/" + tp, k -> new long[2]);
            long replicaStart = broker == LEADER ? lso : marks[1] + (long) (random.nextDouble() * (lso - marks[1] + 1));
            history.replicaLog(broker, tp, replicaStart, hw, entries(log, replicaStart));
        }
    }

    private static List<LogEntry> entries(List<String> log, long from) {
        List<LogEntry> entries = new ArrayList<>();
        for (long offset = from; offset < log.size(); offset++) {
            entries.add(new LogEntry(offset, log.get((int) offset)));
        }
        return entries;
    }
}
