package io.tideline.node.fuzz;

import io.tideline.node.server.NodeTestCluster;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The long local run of the listener fuzzer, outside surefire (docs/testing.md, "The listener fuzzer"): the same
 * node and steps as {@link ListenerFuzzTest}, with {@code fuzz.requests} defaulting to 100,000 and
 * {@code fuzz.keepGoing} to true. Exits 0 when no step failed, 1 otherwise; the node's data is under a temporary
 * directory deleted at the end.
 */
public final class ListenerFuzzMain {
    private ListenerFuzzMain() {
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("fuzz.keepGoing") == null) {
            System.setProperty("fuzz.keepGoing", "true");
        }
        Path dir = Files.createTempDirectory("tideline-fuzz-");
        ListenerFuzzer.Tally tally;
        try (NodeTestCluster cluster = FuzzNode.start(dir);
             ListenerFuzzer fuzzer = new ListenerFuzzer(cluster, FuzzNode.FIXTURES)) {
            // Stopped with SIGTERM before the end, the run still says how far it got and what it found.
            Thread report = new Thread(() -> System.out.println("listener fuzzer stopped: " + fuzzer.current()));
            Runtime.getRuntime().addShutdownHook(report);
            tally = fuzzer.run(FuzzNode.settings(100_000));
            Runtime.getRuntime().removeShutdownHook(report);
        } finally {
            deleteRecursively(dir);
        }
        tally.failures.forEach(System.out::println);
        System.out.println("listener fuzzer: " + tally);
        System.out.println("per API: " + tally.perApi);
        System.exit(tally.failures.isEmpty() ? 0 : 1);
    }

    private static void deleteRecursively(Path dir) throws java.io.IOException {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
