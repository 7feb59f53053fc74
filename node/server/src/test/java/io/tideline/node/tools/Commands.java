package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs external commands (docker, docker-compose, the scripts) for the container tests: each one bounded in time,
 * its stdout and stderr together in a file of the test's directory, its stdin closed or from a file.
 */
final class Commands {
    private final Path outputDir;
    private final Path workDir;

    Commands(Path outputDir, Path workDir) {
        this.outputDir = outputDir;
        this.workDir = workDir;
    }

    /** A finished command: exit code and everything it printed (stdout and stderr interleaved). */
    record Result(List<String> command, int exitCode, String output) {
        Result assertSucceeded() {
            assertEquals(0, exitCode, String.join(" ", command) + " failed:\n" + output);
            return this;
        }
    }

    Result run(Map<String, String> env, Duration atMost, List<String> command) throws IOException, InterruptedException {
        return run(env, atMost, null, command);
    }

    /**
     * Runs {@code command} with {@code env} added to this JVM's environment; past {@code atMost} it and its
     * children are killed and the call fails with what it printed so far.
     */
    Result run(Map<String, String> env, Duration atMost, Path stdin, List<String> command)
            throws IOException, InterruptedException {
        Path output = Files.createTempFile(outputDir, "command", ".out");
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        pb.environment().putAll(env);
        if (stdin != null) {
            pb.redirectInput(stdin.toFile());
        }
        Process p = pb.start();
        if (stdin == null) {
            p.getOutputStream().close();
        }
        try {
            if (!p.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(String.join(" ", command) + " still running after " + atMost + ":\n"
                        + Files.readString(output, StandardCharsets.UTF_8));
            }
            return new Result(command, p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            // Only this command's own processes: its children first, while they can still be found through it.
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
