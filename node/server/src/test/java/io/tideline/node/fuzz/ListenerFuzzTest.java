package io.tideline.node.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.server.NodeTestCluster;
import io.tideline.node.server.TidelineNode;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listener fuzzer's budget run (docs/testing.md, "The listener fuzzer"): one node holding two topics with
 * records, a log start offset moved by DeleteRecords, and {@code fuzz.requests} seeded requests to its Kafka and
 * gRPC listeners. After each request both listeners answer a health request within the bound and no log changed
 * beyond what the request was answered NONE for (B160-B162).
 *
 * <p>System properties: {@code fuzz.seed} (default: drawn from the clock and printed), {@code fuzz.from} (the
 * first step, for a rerun of one), {@code fuzz.requests} (default 2,000), {@code fuzz.answerWaitMs} (default
 * 250), {@code fuzz.healthBoundMs} (default 5,000), {@code fuzz.keepGoing=true} (report every failure, not only
 * the first, while the node stays healthy).
 */
class ListenerFuzzTest {
    @TempDir
    static Path dir;
    static NodeTestCluster cluster;

    @BeforeAll
    static void startNodeWithData() throws Exception {
        cluster = FuzzNode.start(dir);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void noRequestStallsTheNodeOrChangesALogItWasNotAnsweredNoneFor() throws Exception {
        ListenerFuzzer.Settings settings = FuzzNode.settings(2_000);
        ListenerFuzzer.Tally tally;
        try (ListenerFuzzer fuzzer = new ListenerFuzzer(cluster, FuzzNode.FIXTURES)) {
            tally = fuzzer.run(settings);
        }
        assertTrue(tally.failures.isEmpty(), () -> tally.failures.size() + " failure(s), seed " + settings.seed()
                + ":\n" + String.join("\n", tally.failures));
        if (settings.firstStep() == 0 && settings.requests() >= 2_000) {
            // Every API and method is reached: a generator that stopped producing some would pass unnoticed.
            TidelineNode node = cluster.node(1);
            Set<String> missed = new TreeSet<>();
            node.kafkaApis().orElseThrow().all().keySet().stream().map(k -> "kafka " + k.name)
                    .filter(k -> !tally.perApi.containsKey(k)).forEach(missed::add);
            GrpcTarget.methods().stream().map(m -> "grpc " + m.name())
                    .filter(m -> !tally.perApi.containsKey(m)).forEach(missed::add);
            assertTrue(missed.isEmpty(), "never fuzzed: " + missed + "; sent " + tally.perApi);
        }
    }
}
