package io.tideline.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** Runs a command in this JVM the way {@code main} would, with a given stdin and captured stdout/stderr. */
final class CliRun {

    @FunctionalInterface
    interface Entry {
        int run(String[] args, CliIo io);
    }

    /** What one run left behind. */
    record Result(int exitCode, String out, String err) {

        List<String> outLines() {
            return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
        }

        List<String> errLines() {
            return err.isEmpty() ? List.of() : Arrays.asList(err.split("\n"));
        }

        /** The one-line error rule: a single stderr line, no stack trace. */
        String singleErrorLine() {
            assertEquals(1, errLines().size(), "expected one line on stderr: " + this);
            assertFalse(err.contains("\tat ") || err.contains("Exception"), "stack trace or exception name: " + err);
            return errLines().get(0);
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private CliRun() {
    }

    static Result admin(String... args) {
        return run(AdminCommand::run, "", args);
    }

    static Result produce(String stdin, String... args) {
        return run(ProduceCommand::run, stdin, args);
    }

    static Result consume(String... args) {
        return run(ConsumeCommand::run, "", args);
    }

    static Result run(Entry entry, String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            int code = entry.run(args, new CliIo(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), o, e));
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
    }
}
