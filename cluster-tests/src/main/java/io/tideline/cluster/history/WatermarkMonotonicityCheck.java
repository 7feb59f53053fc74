package io.tideline.cluster.history;

import io.tideline.cluster.history.HistoryEvent.BrokerRestart;
import io.tideline.cluster.history.HistoryEvent.ReplicaLog;
import io.tideline.cluster.history.HistoryEvent.ReplicaRecreated;
import io.tideline.cluster.history.HistoryEvent.ReplicaSample;
import io.tideline.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The high watermark and the log start offset never move backwards on any replica, restarts included, with one
 * exception: across a crash the high watermark may come back lower. It is checkpointed periodically, and a
 * broker that crashed takes it from its last checkpoint (or its log start offset), never from its log end,
 * since records past the checkpoint may be a divergent tail (docs/behaviours.md B77, as in Kafka); it rises
 * again from the leader's answers. After an orderly stop (checkpoints written at the stop) it must not be
 * lower. The log start offset must never be lower, crash or not: a record below it was deleted, and one seen
 * again would be a deleted record come back. The final replica log dumps count as the last sample.
 * A replica deleted and created again ({@link ReplicaRecreated}) is a new replica: its samples start a new track.
 */
final class WatermarkMonotonicityCheck implements Check {

    private record Replica(int broker, TopicPartition partition) { }

    private record Sample(HistoryEvent event, long highWatermark, long logStartOffset) { }

    /** The last sample of a replica and the restarts of its broker since. */
    private static final class Track {
        Sample last;
        final List<BrokerRestart> restartsSince = new ArrayList<>();
    }

    @Override
    public void run(HistoryIndex history, CheckResult.Builder result) {
        Map<Replica, Track> tracks = new HashMap<>();
        for (HistoryEvent event : history.events()) {
            if (event instanceof BrokerRestart restart) {
                tracks.forEach((replica, track) -> {
                    if (replica.broker() == restart.broker()) {
                        track.restartsSince.add(restart);
                    }
                });
            } else if (event instanceof ReplicaRecreated recreated) {
                tracks.remove(new Replica(recreated.broker(), recreated.partition()));
            } else if (event instanceof ReplicaSample sample) {
                observe(tracks, new Replica(sample.broker(), sample.partition()),
                    new Sample(sample, sample.highWatermark(), sample.logStartOffset()), result);
            } else if (event instanceof ReplicaLog log) {
                observe(tracks, new Replica(log.broker(), log.partition()),
                    new Sample(log, log.highWatermark(), log.logStartOffset()), result);
            }
        }
    }

    private static void observe(Map<Replica, Track> tracks, Replica replica, Sample sample,
                                CheckResult.Builder result) {
        Track track = tracks.computeIfAbsent(replica, r -> new Track());
        Sample last = track.last;
        if (last != null) {
            String across = track.restartsSince.isEmpty() ? "" : " across a restart";
            String who = "broker " + replica.broker() + "'s ";
            boolean crashedSince = track.restartsSince.stream().anyMatch(BrokerRestart::afterCrash);
            if (sample.highWatermark() < last.highWatermark() && !crashedSince) {
                result.violation(Violation.Kind.HIGH_WATERMARK_WENT_BACKWARDS,
                    who + "high watermark of " + replica.partition() + " went from " + last.highWatermark() + " to "
                        + sample.highWatermark() + across, slice(track, sample));
            }
            if (sample.logStartOffset() < last.logStartOffset()) {
                result.violation(Violation.Kind.LOG_START_OFFSET_WENT_BACKWARDS,
                    who + "log start offset of " + replica.partition() + " went from " + last.logStartOffset()
                        + " to " + sample.logStartOffset() + across, slice(track, sample));
            }
        }
        track.last = sample;
        track.restartsSince.clear();
    }

    private static List<HistoryEvent> slice(Track track, Sample sample) {
        List<HistoryEvent> slice = new ArrayList<>();
        slice.add(track.last.event());
        slice.addAll(track.restartsSince);
        slice.add(sample.event());
        return slice;
    }
}
