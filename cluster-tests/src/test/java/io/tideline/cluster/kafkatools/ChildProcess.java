package io.tideline.cluster.kafkatools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one command as a child process with a bound: its stdout and stderr go to files of their own (a console
 * consumer prints the records on stdout and its count on stderr), an optional file is its stdin, and a command
 * still running at the bound is killed with its descendants and fails the test with everything it printed.
 */
final class ChildProcess {
    private final Path workDir;
    private final Path outputDir;
    private final Map<String, String> environment;
    private int runs;

    ChildProcess(Path workDir, Path outputDir, Map<String, String> environment) {
        this.workDir = workDir;
        this.outputDir = outputDir;
        this.environment = Map.copyOf(environment);
    }

    /** What a finished command printed, and its exit code. */
    record Result(List<String> command, int exitCode, String stdout, String stderr) {
        Result assertSucceeded() {
            if (exitCode != 0) {
                throw new AssertionError("exit " + exitCode + " from " + this);
            }
            return this;
        }

        /** The command and all it printed: the message of every assertion on it. */
        @Override
        public String toString() {
            List<String> shown = new ArrayList<>(command);
            int cp = shown.indexOf("-cp");
            if (cp >= 0 && cp + 1 < shown.size()) {
                shown.set(cp + 1, "<class path>");
            }
            return String.join(" ", shown) + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    Result run(Duration atMost, List<String> command) throws IOException, InterruptedException {
        return run(atMost, command, null);
    }

    Result run(Duration atMost, List<String> command, Path stdin) throws IOException, InterruptedException {
        int n = ++runs;
        Path out = outputDir.resolve("run-" + n + ".out");
        Path err = outputDir.resolve("run-" + n + ".err");
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        if (stdin != null) {
            pb.redirectInput(stdin.toFile());
        }
        pb.environment().putAll(environment);
        Process p = pb.start();
        if (stdin == null) {
            // No terminal to wait on: a tool that reads stdin sees its end at once.
            p.getOutputStream().close();
        }
        try {
            if (!p.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("still running after " + atMost + ", killed: "
                        + new Result(command, -1, read(out), read(err)));
            }
            return new Result(command, p.exitValue(), read(out), read(err));
        } finally {
            p.destroyForcibly();
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
