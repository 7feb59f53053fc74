package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.store.segment.LogFileNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node as a real process (docs/node.md, "Start-up order" and "Stopping"):
 * SIGTERM shuts it down cleanly with exit code 0 and the
 * next start skips recovery; {@code kill -9} leaves the logs unclean and the next start recovers them,
 * with every acknowledged record still there.
 *
 * <p>What tells a clean start from a recovery, seen from outside the process: the clean-shutdown marker
 * in the log dir after the stop, the store's "Loaded N logs ... (after a clean/an unclean shutdown)" line,
 * and the node's start-up line counting the segments recovery validated ({@link ServerCommand}).
 */
@DisabledOnOs(value = OS.WINDOWS, disabledReason = "Process.destroy() sends SIGTERM on Unix only")
class NodeProcessLifecycleTest {
    private static final Duration START = Duration.ofSeconds(25);
    private static final Duration STOP = Duration.ofSeconds(20);
    private static final String RECOVERED = "Node 1 start-up recovered (\\d+) segments in (\\d+) of (\\d+) logs";

    @TempDir
    Path dir;

    private final List<NodeProcess> processes = new ArrayList<>();

    @AfterEach
    void stopEveryProcess() {
        for (NodeProcess p : processes) {
            p.close();
        }
    }

    private NodeProcess start(Path config, String outputName) throws Exception {
        NodeProcess p = NodeProcess.start(config, dir.resolve(outputName));
        processes.add(p);
        p.awaitStarted(START);
        return p;
    }

    @Test
    void sigtermShutsDownCleanlyWithExitZeroAndTheNextStartSkipsRecovery() throws Exception {
        NodeProcess.SingleNode node = NodeProcess.SingleNode.write(dir);
        NodeProcess first = start(node.config(), "run-1.out");
        List<String> produced = new ArrayList<>();
        try (RawNodeClient client = new RawNodeClient(node.clientPort())) {
            client.createTopic("events", 1);
            for (int batch = 0; batch < 10; batch++) {
                List<String> values = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    values.add("event-" + (produced.size() + values.size()));
                }
                ProducePartitionResponse r = client.produce("events", values);
                assertEquals(Errors.NONE.code(), r.getErrorCode(), r.toString());
                assertEquals(produced.size(), r.getBaseOffset());
                produced.addAll(values);
            }
        }

        assertEquals(0, first.terminate(STOP), first.output());
        first.find("Node 1 shut down cleanly in \\d+ ms");
        assertTrue(Files.exists(node.logDir().resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER)),
                "a clean stop leaves the clean-shutdown marker");

        NodeProcess second = start(node.config(), "run-2.out");
        second.find("Loaded 1 logs from .* \\(after a clean shutdown\\)");
        Matcher recovered = second.find(RECOVERED);
        assertEquals("0", recovered.group(1), "no segment validated after a clean shutdown: " + recovered.group());
        assertEquals("1", recovered.group(3), recovered.group());
        try (RawNodeClient client = new RawNodeClient(node.clientPort())) {
            assertEquals(produced, new ArrayList<>(client.readAll("events", produced.size()).values()));
        }
        assertEquals(0, second.terminate(STOP), second.output());
    }

    @Test
    void killDashNineMidProduceIsRecoveredOnTheNextStartWithEveryAcknowledgedRecord() throws Exception {
        NodeProcess.SingleNode node = NodeProcess.SingleNode.write(dir);
        NodeProcess first = start(node.config(), "run-1.out");
        ConcurrentSkipListMap<Long, String> acknowledged = new ConcurrentSkipListMap<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        ExecutorService producer = Executors.newSingleThreadExecutor();
        try (RawNodeClient client = new RawNodeClient(node.clientPort())) {
            client.createTopic("events", 1);
            // Produces until the node dies under it: the first failure (UNAVAILABLE) ends the loop.
            Future<?> loop = producer.submit(() -> {
                for (int i = 0; producing.get(); i++) {
                    String value = "record-" + i;
                    ProducePartitionResponse r = client.produce("events", List.of(value));
                    if (r.getErrorCode() != Errors.NONE.code()) {
                        return;
                    }
                    acknowledged.put(r.getBaseOffset(), value);
                }
            });
            Awaitility.await("50 acknowledged records").atMost(Duration.ofSeconds(15))
                    .until(() -> acknowledged.size() >= 50 || loop.isDone());
            assertFalse(loop.isDone(), "the producer stopped before the kill");

            assertNotEquals(0, first.kill(STOP));
            producing.set(false);
            try {
                loop.get(15, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException expected) {
                // the request in flight when the node died
            }
        } finally {
            producing.set(false);
            producer.shutdownNow();
        }
        assertFalse(Files.exists(node.logDir().resolve(LogFileNames.CLEAN_SHUTDOWN_MARKER)),
                "a killed node leaves no clean-shutdown marker");

        NodeProcess second = start(node.config(), "run-2.out");
        second.find("Loaded 1 logs from .* \\(after an unclean shutdown\\)");
        Matcher recovered = second.find(RECOVERED);
        assertTrue(Integer.parseInt(recovered.group(1)) >= 1, "recovery validated the active segment: "
                + recovered.group());
        assertEquals("1", recovered.group(2), recovered.group());
        long lastAcknowledged = acknowledged.lastKey();
        try (RawNodeClient client = new RawNodeClient(node.clientPort())) {
            TreeMap<Long, String> read = client.readAll("events", lastAcknowledged + 1);
            for (Map.Entry<Long, String> e : acknowledged.entrySet()) {
                assertEquals(e.getValue(), read.get(e.getKey()), "acknowledged record at offset " + e.getKey());
            }
        }
        assertEquals(0, second.terminate(STOP), second.output());
    }
}
