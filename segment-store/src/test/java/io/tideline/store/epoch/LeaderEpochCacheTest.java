package io.tideline.store.epoch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.store.checkpoint.EpochEntry;
import io.tideline.store.checkpoint.LeaderEpochCheckpointFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaderEpochCacheTest {
    @TempDir
    Path tmp;

    private LeaderEpochCache cache() throws Exception {
        return LeaderEpochCache.load(new LeaderEpochCheckpointFile(tmp.resolve("leader-epoch-checkpoint")));
    }

    @Test
    void assignKeepsEpochsIncreasingAndPersistsEveryChangeInKafkasFormat() throws Exception {
        LeaderEpochCache cache = cache();
        cache.assign(0, 0);
        cache.assign(0, 10); // same epoch again: nothing new
        cache.assign(2, 15);
        cache.assign(5, 40);
        assertEquals(List.of(new EpochEntry(0, 0), new EpochEntry(2, 15), new EpochEntry(5, 40)), cache.entries());
        assertEquals("0\n3\n0 0\n2 15\n5 40\n", Files.readString(tmp.resolve("leader-epoch-checkpoint")));
        assertEquals(cache.entries(), cache().entries(), "reloaded from the file");
    }

    @Test
    void aNewEpochAtAnEarlierOffsetReplacesTheTailItContradicts() throws Exception {
        LeaderEpochCache cache = cache();
        cache.assign(1, 0);
        cache.assign(2, 50);
        cache.assign(3, 30); // the log was truncated to 30 and epoch 3 writes from there
        assertEquals(List.of(new EpochEntry(1, 0), new EpochEntry(3, 30)), cache.entries());
    }

    @Test
    void endOffsetForAnEpochIsTheStartOfTheNextOrTheLogEnd() throws Exception {
        LeaderEpochCache cache = cache();
        cache.assign(1, 0);
        cache.assign(3, 20);
        cache.assign(4, 35);
        assertEquals(new EpochEndOffset(1, 20), cache.endOffsetFor(1, 50));
        assertEquals(new EpochEndOffset(1, 20), cache.endOffsetFor(2, 50), "epoch 2 never wrote here: epoch 1's end");
        assertEquals(new EpochEndOffset(3, 35), cache.endOffsetFor(3, 50));
        assertEquals(new EpochEndOffset(4, 50), cache.endOffsetFor(4, 50));
        assertEquals(new EpochEndOffset(4, 50), cache.endOffsetFor(9, 50));
        assertEquals(EpochEndOffset.UNDEFINED, cache.endOffsetFor(0, 50));
    }

    /**
     * KIP-279's case, the one Kafka writes a new leader's epoch into its cache at the election for: a follower
     * holds records of epoch 1 that the new leader (elected at epoch 3, records of epoch 0 only) never had.
     * Our answer for epoch 1 is epoch 0 ending at the leader's log end, the same as with Kafka's entry (3, 8);
     * Kafka's cache, without that entry, would have answered "undefined" (no epoch above 1 in it).
     */
    @Test
    void anEpochAboveTheLatestEndsAtTheLogEndAsAnElectionEntryWouldSay() throws Exception {
        LeaderEpochCache cache = cache();
        cache.assign(0, 0);
        assertEquals(new EpochEndOffset(0, 8), cache.endOffsetFor(1, 8));
        cache.assign(3, 8);
        assertEquals(new EpochEndOffset(0, 8), cache.endOffsetFor(1, 8), "with the entry Kafka adds at the election");
    }

    @Test
    void truncationFromTheStartKeepsTheEpochInForceAtTheNewStart() throws Exception {
        LeaderEpochCache cache = cache();
        cache.assign(1, 0);
        cache.assign(2, 10);
        cache.assign(3, 20);
        cache.truncateFromStart(15);
        assertEquals(List.of(new EpochEntry(2, 15), new EpochEntry(3, 20)), cache.entries());
        cache.truncateFromStart(5); // never backwards
        assertEquals(List.of(new EpochEntry(2, 15), new EpochEntry(3, 20)), cache.entries());
    }

    @Test
    void truncationFromTheEndDropsEpochsThatStartThereOrLater() throws Exception {
        LeaderEpochCache cache = cache();
        cache.assign(1, 0);
        cache.assign(2, 10);
        cache.assign(3, 20);
        cache.truncateFromEnd(20);
        assertEquals(Optional.of(2), cache.latestEpoch());
        cache.clear();
        assertEquals(List.of(), cache.entries());
        assertEquals("0\n0\n", Files.readString(tmp.resolve("leader-epoch-checkpoint")));
    }
}
