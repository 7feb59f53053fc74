package io.tideline.cluster.history;

import io.tideline.cluster.history.HistoryEvent.Consumed;
import io.tideline.cluster.history.HistoryEvent.FinalRead;
import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.cluster.history.HistoryEvent.OffsetReset;
import io.tideline.cluster.history.HistoryEvent.Outcome;
import io.tideline.cluster.history.HistoryEvent.ProduceCompleted;
import io.tideline.cluster.history.HistoryEvent.ReplicaLog;
import io.tideline.cluster.history.HistoryEvent.ReplicaSample;
import io.tideline.cluster.history.Violation.Kind;
import io.tideline.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;

/** One fault injected into a correct history, and the violation it must cause. */
enum HistoryFaults {

    /** An acknowledged record above the log start offset vanishes from the final read. */
    LOSE_ACKNOWLEDGED_RECORD(Kind.LOST_WRITE) {
        @Override
        void inject(List<HistoryEvent> events, Random random) {
            List<ProduceCompleted> acks = new ArrayList<>();
            for (HistoryEvent e : events) {
                if (e instanceof ProduceCompleted c && c.outcome() == Outcome.OK
                    && c.offset() >= finalRead(events, c.partition()).logStartOffset()) {
                    acks.add(c);
                }
            }
            ProduceCompleted ack = acks.get(random.nextInt(acks.size()));
            long offset = ack.offset();
            FinalRead read = finalRead(events, ack.partition());
            int readIndex = events.indexOf(read);
            List<LogEntry> entries = new ArrayList<>(read.entries());
            entries.removeIf(entry -> entry.offset() == offset);
            events.set(readIndex, new FinalRead(read.seq(), read.partition(), read.logStartOffset(),
                read.highWatermark(), entries));
        }
    },
    /** A consumer that saw a value the final log never held at that offset. */
    READ_A_VALUE_NEVER_AT_THAT_OFFSET(Kind.OFFSET_WITH_TWO_VALUES) {
        @Override
        void inject(List<HistoryEvent> events, Random random) {
            FinalRead read = (FinalRead) events.get(pick(events, random,
                e -> e instanceof FinalRead r && !r.entries().isEmpty()));
            LogEntry entry = read.entries().get(random.nextInt(read.entries().size()));
            events.add(new Consumed(events.size(), "intruder", read.partition(), entry.offset(), "bogus"));
        }
    },
    /** A consumer read a record above the final high watermark, which was then truncated away. */
    READ_ABOVE_THE_HIGH_WATERMARK(Kind.READ_NOT_IN_FINAL_LOG) {
        @Override
        void inject(List<HistoryEvent> events, Random random) {
            FinalRead read = (FinalRead) events.get(pick(events, random, e -> e instanceof FinalRead));
            events.add(new Consumed(events.size(), "intruder", read.partition(),
                read.highWatermark() + random.nextInt(3), "truncated-away"));
        }
    },
    /** A consumer reads again an offset it already passed. */
    CONSUMER_REREADS(Kind.CONSUMER_WENT_BACKWARDS) {
        @Override
        void inject(List<HistoryEvent> events, Random random) {
            Consumed earlier = (Consumed) events.get(pick(events, random, e -> e instanceof Consumed));
            events.add(new Consumed(events.size(), earlier.consumerId(), earlier.partition(), earlier.offset(),
                earlier.value()));
        }
    },
    /** A record a consumer read between two neighbours disappears from its reads. */
    CONSUMER_SKIPS(Kind.CONSUMER_SKIPPED_OFFSETS) {
        @Override
        void inject(List<HistoryEvent> events, Random random) {
            List<Integer> candidates = new ArrayList<>();
            for (int i = 0; i < events.size(); i++) {
                if (events.get(i) instanceof Consumed c && hasNeighbours(events, i, c)) {
                    candidates.add(i);
                }
            }
            events.remove((int) candidates.get(random.nextInt(candidates.size())));
        }

        /** The consumer's previous and next reads of the partition are at offset - 1 and + 1, with no reset between. */
        private boolean hasNeighbours(List<HistoryEvent> events, int index, Consumed middle) {
            return neighbour(events, index, middle, -1) && neighbour(events, index, middle, 1);
        }

        private boolean neighbour(List<HistoryEvent> events, int index, Consumed middle, int step) {
            for (int i = index + step; i >= 0 && i < events.size(); i += step) {
                HistoryEvent e = events.get(i);
                if (e instanceof OffsetReset r && r.consumerId().equals(middle.consumerId())
                    && r.partition().equals(middle.partition())) {
                    return false;
                }
                if (e instanceof Consumed c && c.consumerId().equals(middle.consumerId())
                    && c.partition().equals(middle.partition())) {
                    return c.offset() == middle.offset() + step;
                }
            }
            return false;
        }
    },
    /** A follower's log holds another value at an offset the leader still has. */
    FOLLOWER_DIVERGES(Kind.REPLICA_DIVERGES) {
        @Override
        void inject(List<HistoryEvent> events, Random random) {
            int index = pick(events, random, e -> e instanceof ReplicaLog log && log.broker() != SimulatedRun.LEADER
                && log.entries().stream().anyMatch(entry -> entry.offset() >= finalStart(events, log)));
            ReplicaLog log = (ReplicaLog) events.get(index);
            List<LogEntry> entries = new ArrayList<>(log.entries());
            List<Integer> comparable = new ArrayList<>();
            for (int i = 0; i < entries.size(); i++) {
                if (entries.get(i).offset() >= finalStart(events, log)) {
                    comparable.add(i);
                }
            }
            int changed = comparable.get(random.nextInt(comparable.size()));
            entries.set(changed, new LogEntry(entries.get(changed).offset(), "diverged"));
            events.set(index, new ReplicaLog(log.seq(), log.broker(), log.partition(), log.logStartOffset(),
                log.highWatermark(), entries));
        }
    },
    /** A replica comes back from a restart with a lower high watermark. */
    HIGH_WATERMARK_REGRESSES(Kind.HIGH_WATERMARK_WENT_BACKWARDS) {
        @Override
        void inject(List<HistoryEvent> events, Random random) {
            ReplicaLog log = (ReplicaLog) events.get(pick(events, random,
                e -> e instanceof ReplicaLog l && l.highWatermark() > 0));
            events.add(new HistoryEvent.BrokerRestart(events.size(), log.broker(), false));
            events.add(new ReplicaSample(events.size(), log.broker(), log.partition(), log.highWatermark() - 1,
                Math.min(log.logStartOffset(), log.highWatermark() - 1)));
        }
    },
    /** A replica's log start offset moves up, then back down. */
    LOG_START_OFFSET_REGRESSES(Kind.LOG_START_OFFSET_WENT_BACKWARDS) {
        @Override
        void inject(List<HistoryEvent> events, Random random) {
            ReplicaLog log = (ReplicaLog) events.get(pick(events, random, e -> e instanceof ReplicaLog));
            events.add(new ReplicaSample(events.size(), log.broker(), log.partition(), log.highWatermark(),
                log.logStartOffset() + 1));
            events.add(new ReplicaSample(events.size(), log.broker(), log.partition(), log.highWatermark(),
                log.logStartOffset()));
        }
    };

    final Kind expected;

    HistoryFaults(Kind expected) {
        this.expected = expected;
    }

    abstract void inject(List<HistoryEvent> events, Random random);

    static int pick(List<HistoryEvent> events, Random random, Predicate<HistoryEvent> fits) {
        List<Integer> candidates = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            if (fits.test(events.get(i))) {
                candidates.add(i);
            }
        }
        if (candidates.isEmpty()) {
            throw new IllegalStateException("the simulated run has nothing this fault can break");
        }
        return candidates.get(random.nextInt(candidates.size()));
    }

    private static FinalRead finalRead(List<HistoryEvent> events, TopicPartition partition) {
        for (HistoryEvent e : events) {
            if (e instanceof FinalRead r && r.partition().equals(partition)) {
                return r;
            }
        }
        throw new IllegalStateException("no final read of " + partition);
    }

    private static long finalStart(List<HistoryEvent> events, ReplicaLog log) {
        for (HistoryEvent e : events) {
            if (e instanceof FinalRead r && r.partition().equals(log.partition())) {
                return Math.max(r.logStartOffset(), log.logStartOffset());
            }
        }
        throw new IllegalStateException("no final read of " + log.partition());
    }
}
