package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tideline server}'s argument and config handling, run in this JVM with a runner that records the config. */
class ServerCommandTest {
    private static final String GOOD = """
            node.id=1
            process.roles=broker,controller
            controller.quorum.voters=1@127.0.0.1:19191
            listeners=PLAINTEXT://127.0.0.1:19092
            log.dirs=/tmp/tideline-never-started/logs
            metadata.log.dir=/tmp/tideline-never-started/metadata
            """;

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final AtomicReference<ServerConfig> ran = new AtomicReference<>();

    private int run(String... args) {
        return ServerCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), (config, e) -> {
                    ran.set(config);
                    return 7;
                });
    }

    private List<String> errLines() {
        return err.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private Path file(String content) throws IOException {
        return Files.writeString(dir.resolve("node.properties"), content);
    }

    @Test
    void everyBadKeyIsReportedOnItsOwnLineAndNothingStarts() throws IOException {
        Path config = file("""
                node.id=-1
                process.roles=broker,janitor
                controller.quorum.voters=1@127.0.0.1:19191
                listeners=PLAINTEXT://127.0.0.1:19092
                metadata.log.dir=/tmp/m
                broker.heartbeat.interval.ms=soon
                """);

        int code = run("--config", config.toString());

        assertEquals(ServerCommand.EXIT_USAGE, code);
        assertNull(ran.get(), "a bad config never reaches the node");
        List<String> lines = errLines();
        assertEquals(4, lines.size(), String.join("\n", lines));
        for (String key : List.of("node.id", "process.roles", "broker.heartbeat.interval.ms", "log.dirs")) {
            assertEquals(1, lines.stream().filter(l -> l.startsWith("server: " + key + ": ")).count(),
                    key + " in " + lines);
        }
        assertFalse(err.toString(StandardCharsets.UTF_8).contains("Exception"), "no stack trace: " + lines);
    }

    @Test
    void overridesApplyOnTopOfTheFile() throws IOException {
        Path config = file(GOOD.replace("node.id=1", "node.id=x"));

        int code = run("--config", config.toString(), "--override", "node.id=1",
                "--override", "listeners=PLAINTEXT://127.0.0.1:19093", "--override", "log.retention.ms=60000");

        assertEquals(7, code, "the runner's exit code is the command's");
        assertEquals(1, ran.get().node().nodeId());
        assertEquals(19093, ran.get().listener().port());
        assertEquals(60_000L, ran.get().store().logConfigDefaults().retentionMs());
        assertEquals(List.of(), errLines());
    }

    @Test
    void unknownKeysAreWarnedAboutAndIgnored() throws IOException {
        Path config = file(GOOD + "log.retention.hour=5\n");

        int code = run("--config", config.toString());

        assertEquals(7, code);
        assertEquals(List.of("server: warning: unknown configuration key 'log.retention.hour' is ignored"), errLines());
    }

    @Test
    void aMissingConfigFileIsOneLine() {
        int code = run("--config", dir.resolve("absent.properties").toString());

        assertEquals(ServerCommand.EXIT_USAGE, code);
        assertEquals(List.of("server: no such config file: " + dir.resolve("absent.properties")), errLines());
        assertNull(ran.get());
    }

    @Test
    void badUsageIsOneLine() throws IOException {
        Path config = file(GOOD);
        for (String[] args : List.of(new String[0], new String[] {"--config", config.toString(), "--override", "node.id"},
                new String[] {"--config", config.toString(), "--bogus"})) {
            err.reset();
            int code = run(args);
            assertEquals(ServerCommand.EXIT_USAGE, code, String.join(" ", args));
            List<String> lines = errLines();
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).startsWith("server: ") && lines.get(0).endsWith("(see --help)"), lines.toString());
        }
        assertNull(ran.get());
    }
}
