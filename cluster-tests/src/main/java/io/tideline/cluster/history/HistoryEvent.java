package io.tideline.cluster.history;

import io.tideline.common.TopicPartition;
import java.util.List;
import java.util.Objects;

/**
 * One thing the cluster tests observed. Every event carries the logical sequence number {@link History}
 * gave it when it was recorded; the order of sequence numbers is the order of observation, which is all the
 * checks need (they never compare wall-clock times, so a slow test machine cannot make a correct run fail).
 */
public sealed interface HistoryEvent {

    long seq();

    /** One line for a violation's slice. */
    String describe();

    /** How a produce attempt ended. UNKNOWN is a timeout or a lost connection: the record may or may not be in. */
    enum Outcome { OK, FAILED, UNKNOWN }

    /** One record of a log: its offset and the value the test wrote. */
    record LogEntry(long offset, String value) {
        public LogEntry {
            Objects.requireNonNull(value, "value");
        }
    }

    record ProduceInvoked(long seq, TopicPartition partition, String value) implements HistoryEvent {
        @Override
        public String describe() {
            return "#" + seq + " produce invoked  " + partition + " value=" + value;
        }
    }

    /** {@code offset} is -1 unless OK; {@code error} is null unless FAILED. */
    record ProduceCompleted(long seq, long invokedSeq, TopicPartition partition, String value, Outcome outcome,
                            long offset, String error) implements HistoryEvent {
        @Override
        public String describe() {
            String result = switch (outcome) {
                case OK -> "ok offset=" + offset;
                case FAILED -> "failed " + error;
                case UNKNOWN -> "unknown (timeout)";
            };
            return "#" + seq + " produce completed " + partition + " value=" + value + " " + result
                + " (invoked #" + invokedSeq + ")";
        }
    }

    record Consumed(long seq, String consumerId, TopicPartition partition, long offset, String value)
        implements HistoryEvent {
        @Override
        public String describe() {
            return "#" + seq + " consumed by " + consumerId + " " + partition + " offset=" + offset + " value=" + value;
        }
    }

    /** A consumer got OFFSET_OUT_OF_RANGE and was told the partition's log start offset. */
    record OffsetReset(long seq, String consumerId, TopicPartition partition, long logStartOffset)
        implements HistoryEvent {
        @Override
        public String describe() {
            return "#" + seq + " " + consumerId + " told OFFSET_OUT_OF_RANGE " + partition
                + " log start offset=" + logStartOffset;
        }
    }

    /** One replica's high watermark and log start offset, as the harness sampled them. */
    record ReplicaSample(long seq, int broker, TopicPartition partition, long highWatermark, long logStartOffset)
        implements HistoryEvent {
        @Override
        public String describe() {
            return "#" + seq + " broker " + broker + " " + partition + " hw=" + highWatermark
                + " log start offset=" + logStartOffset;
        }
    }

    /**
     * A broker was restarted: after an orderly stop ({@code afterCrash} false, its checkpoints written at the stop)
     * or after a crash (kill -9: it comes back with its last periodic checkpoints). Samples on either side of it
     * are still compared; which watermark may come back lower depends on the kind (WatermarkMonotonicityCheck).
     */
    record BrokerRestart(long seq, int broker, boolean afterCrash) implements HistoryEvent {
        @Override
        public String describe() {
            return "#" + seq + " broker " + broker + (afterCrash ? " restarted after a crash" : " restarted");
        }
    }

    /**
     * A broker's replica was deleted and created anew (reassigned away and back): the new replica starts empty, so
     * its watermarks are compared only with its own samples from here on.
     */
    record ReplicaRecreated(long seq, int broker, TopicPartition partition) implements HistoryEvent {
        @Override
        public String describe() {
            return "#" + seq + " broker " + broker + " " + partition + " replica deleted and created again";
        }
    }

    /**
     * The final full read of a partition after healing, from the leader: every record from the log start offset
     * up to (excluding) the high watermark.
     */
    record FinalRead(long seq, TopicPartition partition, long logStartOffset, long highWatermark,
                     List<LogEntry> entries) implements HistoryEvent {
        public FinalRead {
            entries = List.copyOf(entries);
        }

        @Override
        public String describe() {
            return "#" + seq + " final read " + partition + " log start offset=" + logStartOffset + " hw="
                + highWatermark + " " + entries.size() + " records";
        }
    }

    /** One replica's own log after healing, from its log start offset up to (excluding) its high watermark. */
    record ReplicaLog(long seq, int broker, TopicPartition partition, long logStartOffset, long highWatermark,
                      List<LogEntry> entries) implements HistoryEvent {
        public ReplicaLog {
            entries = List.copyOf(entries);
        }

        @Override
        public String describe() {
            return "#" + seq + " log of broker " + broker + " " + partition + " log start offset=" + logStartOffset
                + " hw=" + highWatermark + " " + entries.size() + " records";
        }
    }
}
