package io.tideline.replication.server;

import io.tideline.replication.leader.CatchUpRate;
import io.tideline.replication.leader.FollowerState;
import io.tideline.replication.leader.LeaderState;
import io.tideline.store.log.Log;
import io.tideline.store.segment.FileBatch;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a leader knows of its followers at one moment, for replicas --describe: each follower's log end,
 * how far behind it is in offsets and in bytes of the leader's log, and how fast it has been moving
 * (docs/replication.md, "Replica states").
 *
 * @param followers in the order of the replica list
 */
public record LeaderView(int leaderEpoch, long logStartOffset, long highWatermark, long logEndOffset,
                         List<Integer> isr, List<Follower> followers) {

    /**
     * @param logEndOffset   -1 when it has not fetched in this leadership
     * @param lagBytes       bytes of the leader's log from its log end to the leader's; -1 when unknown
     * @param lastFetchMs    the leader's clock; 0 when it has not fetched in this leadership
     */
    public record Follower(int brokerId, long logEndOffset, long lagOffsets, long lagBytes, double bytesPerSecond,
                           double offsetsPerSecond, boolean inSync, long lastFetchMs) {
    }

    private record Position(int brokerId, long logEndOffset, long lastFetchMs, Optional<CatchUpRate.Span> span) {
    }

    /** The view of {@code partition} as of {@code nowMs}; empty when it is not led here. */
    static Optional<LeaderView> of(Partition partition, long nowMs) {
        // Positions are copied under the partition lock; the byte counts read segment files, outside it.
        record Snapshot(int epoch, List<Integer> isr, List<Position> positions) {
        }
        Optional<Snapshot> snapshot = partition.withLeaderState((LeaderState state) -> {
            List<Position> positions = new ArrayList<>();
            for (int replica : state.replicas()) {
                state.follower(replica).ifPresent((FollowerState f) -> positions.add(new Position(replica,
                        f.logEndOffset(), f.lastFetchTimeMs(), f.catchUpRate().span(nowMs))));
            }
            return new Snapshot(state.leaderEpoch(), List.copyOf(state.isr()), positions);
        });
        if (snapshot.isEmpty()) {
            return Optional.empty();
        }
        Log log = partition.log();
        long leo = log.logEndOffset();
        List<Follower> followers = new ArrayList<>();
        for (Position p : snapshot.get().positions()) {
            long lagOffsets = p.logEndOffset() < 0 ? -1 : Math.max(0, leo - p.logEndOffset());
            long lagBytes = p.logEndOffset() < 0 ? -1 : bytesFrom(log, p.logEndOffset());
            double bytesPerSecond = 0;
            double offsetsPerSecond = 0;
            if (p.span().isPresent()) {
                CatchUpRate.Span span = p.span().get();
                offsetsPerSecond = span.offsetsPerSecond();
                long from = bytesFrom(log, span.oldest().logEndOffset());
                long to = bytesFrom(log, span.newest().logEndOffset());
                bytesPerSecond = from < 0 || to < 0 ? 0 : span.perSecond(from - to);
            }
            followers.add(new Follower(p.brokerId(), p.logEndOffset(), lagOffsets, lagBytes, bytesPerSecond,
                    offsetsPerSecond, snapshot.get().isr().contains(p.brokerId()), p.lastFetchMs()));
        }
        return Optional.of(new LeaderView(snapshot.get().epoch(), log.logStartOffset(), log.highWatermark(), leo,
                snapshot.get().isr(), List.copyOf(followers)));
    }

    /**
     * Bytes of {@code log} from the batch holding {@code offset} to its end (the whole log for an offset below
     * its start, 0 at or past its end); -1 when a segment could not be read (deleted under us by retention).
     */
    static long bytesFrom(Log log, long offset) {
        long bytes = 0;
        try {
            List<LogSegment> segments = log.segments();
            for (int i = 0; i < segments.size(); i++) {
                LogSegment segment = segments.get(i);
                // Segments follow each other: the next one's base offset ends this one, without reading it.
                long next = i + 1 < segments.size() ? segments.get(i + 1).baseOffset() : log.logEndOffset();
                if (next <= offset) {
                    continue;
                }
                if (segment.baseOffset() >= offset) {
                    bytes += segment.size();
                    continue;
                }
                FileBatch batch = segment.translateOffset(offset);
                bytes += batch == null ? 0 : segment.size() - batch.position();
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return bytes;
    }
}
