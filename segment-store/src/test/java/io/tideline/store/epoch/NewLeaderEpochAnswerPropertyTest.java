package io.tideline.store.epoch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.store.checkpoint.LeaderEpochCheckpointFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Why a new leader's epoch need not enter its cache at its election (docs/replication.md "A new leader's
 * epoch"): for any log, a leader elected at an epoch above every epoch in it answers "where does epoch r end"
 * exactly as it would with Kafka's entry (its epoch, its log end offset at the election) in the cache, for
 * every epoch r a replica can have written, i.e. below the new one. Above it only the epoch named differs,
 * never the offset (for a non-empty log), and no replica holds records of such an epoch while this leader has
 * written none.
 *
 * <p>Kafka needs the entry because its cache answers "undefined" for an epoch above its latest one; ours
 * answers the latest epoch ending at the log end (LeaderEpochCache.endOffsetFor), which is what the entry
 * would say.
 */
class NewLeaderEpochAnswerPropertyTest {

    /** A log's epochs as (epoch step, records) runs, how far above the last one the new leader's epoch is. */
    record Case(List<int[]> runs, int electionGap, int queryAbove) {
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<int[]> run = Combinators.combine(Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(1, 20)).as((step, records) -> new int[] {step, records});
        return Combinators.combine(run.list().ofMinSize(0).ofMaxSize(6), Arbitraries.integers().between(1, 4),
                Arbitraries.integers().between(0, 3)).as(Case::new);
    }

    @Property(tries = 100)
    void aNewLeadersAnswerIsTheSameWithOrWithoutItsEpochInTheCache(@ForAll("cases") Case c) throws IOException {
        Path dir = Files.createTempDirectory("epoch-answer");
        try {
            LeaderEpochCache written = cache(dir.resolve("written"));
            LeaderEpochCache withElection = cache(dir.resolve("with-election"));
            int epoch = -1;
            long end = 0;
            for (int[] r : c.runs()) {
                epoch += r[0];
                written.assign(epoch, end);
                withElection.assign(epoch, end);
                end += r[1];
            }
            int newLeaderEpoch = epoch + c.electionGap();
            withElection.assign(newLeaderEpoch, end);

            for (int requested = 0; requested < newLeaderEpoch; requested++) {
                assertEquals(withElection.endOffsetFor(requested, end), written.endOffsetFor(requested, end),
                        "epoch " + requested + " of " + written.entries() + ", leader at " + newLeaderEpoch);
            }
            if (c.runs().isEmpty()) {
                // An empty cache answers "undefined" for every epoch, and the leader's divergence check reads
                // that as "diverge at the log start offset", which is the log end of an empty log.
                return;
            }
            int above = newLeaderEpoch + c.queryAbove();
            assertEquals(withElection.endOffsetFor(above, end).endOffset(), written.endOffsetFor(above, end).endOffset(),
                    "epoch " + above + " of " + written.entries() + ", leader at " + newLeaderEpoch);
        } finally {
            deleteRecursively(dir);
        }
    }

    private static LeaderEpochCache cache(Path dir) throws IOException {
        Files.createDirectories(dir);
        return LeaderEpochCache.load(new LeaderEpochCheckpointFile(dir.resolve("leader-epoch-checkpoint")));
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            paths.sorted((a, b) -> b.compareTo(a)).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
