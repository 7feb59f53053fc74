package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * Argument errors found before anything is sent, so no broker is needed (127.0.0.1:1 is never dialled): one line
 * on stderr, exit code 2.
 */
class CliUsageTest {
    private static final String NOWHERE = "127.0.0.1:1";

    private record Run(int exitCode, String out, String err) {
        String line() {
            assertEquals(1, err.lines().count(), "one line on stderr: " + err);
            return err.strip();
        }
    }

    private static Run run(BiFunction<String[], CliIo, Integer> command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            int code = command.apply(args, new CliIo(new ByteArrayInputStream(new byte[0]), o, e));
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
    }

    private static Run admin(String... args) {
        return run(AdminCommand::run, args);
    }

    @Test
    void anUnknownSubcommandIsNamedWithTheListOfCommands() {
        String expected = "admin: unknown command 'topicz'; the commands are: topics, delete-records, leader-election, "
                + "configs, log-dirs, explain-retention, cluster, reassign-partitions, replicas, consumer-groups (see --help)";
        Run bare = admin("topicz");
        assertEquals(2, bare.exitCode(), bare.toString());
        assertEquals(expected, bare.line());
        assertEquals("", bare.out());
        // After admin's own options the word is at another index; the answer is the same.
        Run afterOptions = admin("--bootstrap-server", NOWHERE, "topicz", "--list");
        assertEquals(2, afterOptions.exitCode(), afterOptions.toString());
        assertEquals(expected, afterOptions.line());

        Run perf = run(PerfCommand::run, "frobnicate");
        assertEquals(2, perf.exitCode(), perf.toString());
        assertEquals("perf: unknown command 'frobnicate'; the commands are: produce, consume, e2e (see --help)",
                perf.line());
    }

    @Test
    void anUnknownOptionKeepsPicocliMessage() {
        Run r = admin("--bootstrap-server", NOWHERE, "topics", "--list", "--frobnicate");
        assertEquals(2, r.exitCode(), r.toString());
        assertTrue(r.line().startsWith("admin: Unknown option: '--frobnicate'"), r.err());
    }

    @Test
    void createNeedsOnlyATopicAndIfNotExistsGoesOnlyWithCreate() {
        Run noTopic = admin("--bootstrap-server", NOWHERE, "topics", "--create");
        assertEquals(2, noTopic.exitCode(), noTopic.toString());
        assertEquals("admin: --create needs --topic", noTopic.line());

        Run zero = admin("--bootstrap-server", NOWHERE, "topics", "--create", "--topic", "t", "--partitions", "0");
        assertEquals(2, zero.exitCode(), zero.toString());
        assertEquals("admin: --partitions and --replication-factor must be at least 1, got 0 and --replication-factor "
                + "unset", zero.line());

        Run notCreate = admin("--bootstrap-server", NOWHERE, "topics", "--describe", "--if-not-exists");
        assertEquals(2, notCreate.exitCode(), notCreate.toString());
        assertEquals("admin: --if-not-exists only goes with --create", notCreate.line());
    }
}
