package io.tideline.cluster.history;

import io.tideline.cluster.history.HistoryEvent.BrokerRestart;
import io.tideline.cluster.history.HistoryEvent.Consumed;
import io.tideline.cluster.history.HistoryEvent.FinalRead;
import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.cluster.history.HistoryEvent.OffsetReset;
import io.tideline.cluster.history.HistoryEvent.Outcome;
import io.tideline.cluster.history.HistoryEvent.ProduceCompleted;
import io.tideline.cluster.history.HistoryEvent.ProduceInvoked;
import io.tideline.cluster.history.HistoryEvent.ReplicaLog;
import io.tideline.cluster.history.HistoryEvent.ReplicaRecreated;
import io.tideline.cluster.history.HistoryEvent.ReplicaSample;
import io.tideline.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * The recorder the harness and scenarios feed while they run. Thread-safe: producers, consumers and the sampler
 * record from their own threads; one lock gives each event its sequence number and appends it, so the list order
 * is the sequence order. Values must be unique per produce attempt (the checks identify records by value).
 */
public final class History {

    private final List<HistoryEvent> events = new ArrayList<>();
    private long nextSeq;

    /** An in-flight produce attempt; complete it once with {@link #ok}, {@link #failed} or {@link #unknown}. */
    public final class ProduceAttempt {
        private final ProduceInvoked invoked;
        private boolean completed;

        private ProduceAttempt(ProduceInvoked invoked) {
            this.invoked = invoked;
        }

        public void ok(long offset) {
            complete(Outcome.OK, offset, null);
        }

        public void failed(String error) {
            complete(Outcome.FAILED, -1, Objects.requireNonNull(error, "error"));
        }

        /** A timeout or lost connection: the record may or may not have been appended. */
        public void unknown() {
            complete(Outcome.UNKNOWN, -1, null);
        }

        private void complete(Outcome outcome, long offset, String error) {
            synchronized (History.this) {
                if (completed) {
                    throw new IllegalStateException("produce attempt of " + invoked.value() + " completed twice");
                }
                completed = true;
                append(seq -> new ProduceCompleted(seq, invoked.seq(), invoked.partition(), invoked.value(),
                    outcome, offset, error));
            }
        }
    }

    public ProduceAttempt produceInvoked(TopicPartition partition, String value) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(value, "value");
        return new ProduceAttempt((ProduceInvoked) append(seq -> new ProduceInvoked(seq, partition, value)));
    }

    public void consumed(String consumerId, TopicPartition partition, long offset, String value) {
        append(seq -> new Consumed(seq, consumerId, partition, offset, value));
    }

    public void toldLogStartOffset(String consumerId, TopicPartition partition, long logStartOffset) {
        append(seq -> new OffsetReset(seq, consumerId, partition, logStartOffset));
    }

    public void replicaSample(int broker, TopicPartition partition, long highWatermark, long logStartOffset) {
        append(seq -> new ReplicaSample(seq, broker, partition, highWatermark, logStartOffset));
    }

    /** Broker {@code broker} was started again after an orderly stop (controlled shutdown, checkpoints written). */
    public void brokerRestarted(int broker) {
        append(seq -> new BrokerRestart(seq, broker, false));
    }

    /** Broker {@code broker} was started again after a crash (kill -9, or the harness's kill). */
    public void brokerRestartedAfterCrash(int broker) {
        append(seq -> new BrokerRestart(seq, broker, true));
    }

    /** Broker {@code broker}'s replica of {@code partition} was deleted and created again since its last sample. */
    public void replicaRecreated(int broker, TopicPartition partition) {
        append(seq -> new ReplicaRecreated(seq, broker, partition));
    }

    public void finalRead(TopicPartition partition, long logStartOffset, long highWatermark, List<LogEntry> entries) {
        append(seq -> new FinalRead(seq, partition, logStartOffset, highWatermark, entries));
    }

    public void replicaLog(int broker, TopicPartition partition, long logStartOffset, long highWatermark,
                           List<LogEntry> entries) {
        append(seq -> new ReplicaLog(seq, broker, partition, logStartOffset, highWatermark, entries));
    }

    /** A copy of the events so far, in sequence order. */
    public synchronized List<HistoryEvent> events() {
        return List.copyOf(events);
    }

    private synchronized HistoryEvent append(LongFunction<HistoryEvent> factory) {
        HistoryEvent event = factory.apply(nextSeq++);
        events.add(event);
        return event;
    }
}
