package io.tideline.replication.cluster;

import static io.tideline.replication.cluster.MockClockCluster.TP;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.common.errors.Errors;
import io.tideline.replication.server.PartitionSettings;
import io.tideline.testsupport.link.RequestLink;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cut fetch link behaves as a partition (docs/testing.md, "Shared test support"): the fetch parked at the
 * leader when the link is cut is lost, so records appended after the cut never reach the follower, although
 * the leader answers that fetch once they arrive.
 */
class CutLinkTest {
    private static final int LEADER = 1;

    @TempDir
    Path dir;

    private MockClockCluster c;

    @AfterEach
    void tearDown() throws Exception {
        if (c != null) {
            c.close();
        }
    }

    @Test
    void aFetchParkedAtTheLeaderWhenTheLinkIsCutIsLostWithTheRecordsItWouldHaveCarried() throws Exception {
        c = new MockClockCluster(dir, Map.of());
        c.cluster.createPartition(TP, List.of(1, 2, 3), PartitionSettings.defaults());
        for (int i = 0; i < 3; i++) {
            assertEquals(Errors.NONE, c.produceNow(1, "v" + i).error());
        }
        c.awaitAllAt(3);
        RequestLink link = c.broker(3).linkTo(LEADER);
        // Nothing left to fetch: broker 3's next fetch waits at the leader for news (its wait runs on the mock
        // clock, which stands still), so it stays in flight until the cut.
        c.await(() -> link.inFlight() == 1);

        c.broker(3).cutLinkTo(LEADER);
        assertEquals(1, link.lostInFlight());
        assertEquals(0, link.inFlight());

        assertEquals(Errors.NONE, c.produceNow(1, "after-cut-1").error());
        assertEquals(Errors.NONE, c.produceNow(1, "after-cut-2").error());
        // The news wakes the parked fetches: broker 2's carries the records...
        c.await(() -> c.followerEndAtLeader(LEADER, 2) == 5);
        // ...and once broker 3 has tried again after the appends (refused: the link is cut), the fetch it lost
        // would have answered first, a fetcher having one fetch in flight. It delivered nothing.
        long refusedAfterAppends = link.refused();
        c.await(() -> link.refused() > refusedAfterAppends);
        assertEquals(3, c.broker(3).log(TP).logEndOffset());
        assertEquals(3, c.followerEndAtLeader(LEADER, 3));

        c.broker(3).healLinkTo(LEADER);
        c.awaitAllAt(5);
    }
}
