package io.tideline.replication.leader;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

class LeaderStatePropertyTest {

    /**
     * Random appends, follower fetches (each follower's fetch offset moves forward within the leader's
     * log), clock jumps, ISR proposals and controller answers: after every step the high watermark has
     * not decreased and is at or below the log end offset of every member of the (maximal) ISR.
     */
    @Property(tries = 300)
    void highWatermarkNeverDecreasesNorPassesAnIsrMember(@ForAll long seed, @ForAll @IntRange(min = 1, max = 4) int minIsr) {
        Random random = new Random(seed);
        InMemoryLocalLog log = new InMemoryLocalLog(0L, 0L);
        LeaderState state = new LeaderState(1, 1, 0L, 0, List.of(1, 2, 3, 4), List.of(1, 2, 3, 4), minIsr, 1_000L, log, 0L);
        Map<Integer, Long> followerLeo = new HashMap<>();
        for (int follower = 2; follower <= 4; follower++) {
            state.onFollowerFetch(follower, 0L, 0L, 0L);
            followerLeo.put(follower, 0L);
        }
        long now = 0L;
        long previousHw = state.highWatermark();
        for (int step = 0; step < 200; step++) {
            switch (random.nextInt(7)) {
                case 0 -> {
                    log.append(1 + random.nextInt(5));
                    state.maybeAdvanceHighWatermark();
                }
                case 1, 2 -> {
                    int follower = 2 + random.nextInt(3);
                    long from = followerLeo.get(follower);
                    long offset = from + (long) (random.nextDouble() * (log.logEndOffset() - from + 1));
                    followerLeo.put(follower, offset);
                    state.onFollowerFetch(follower, offset, 0L, now);
                }
                case 3 -> now += random.nextInt(800);
                case 4 -> state.maybeShrinkIsr(now);
                case 5 -> state.maybeExpandIsr(2 + random.nextInt(3));
                default -> state.pendingIsrChange().ifPresent(proposal -> {
                    if (random.nextBoolean()) {
                        state.onIsrChangeCommitted(proposal.newIsr(), state.partitionEpoch() + 1);
                    } else {
                        state.onIsrChangeFailed();
                    }
                });
            }
            long hw = state.highWatermark();
            assertTrue(hw >= previousHw, "high watermark went back from " + previousHw + " to " + hw + ": " + state);
            for (int member : state.maximalIsr()) {
                long leo = member == 1 ? log.logEndOffset() : followerLeo.get(member);
                assertTrue(hw <= leo, "high watermark " + hw + " above the log end of ISR member " + member + ": " + state);
            }
            previousHw = hw;
        }
    }
}
