package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@code scripts/tideline} with a word that is no command: one line naming it and the commands, exit 2, no build. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "scripts/tideline is a bash script")
class TidelineLauncherTest {
    private static final Path REPO = Path.of("..", "..").toAbsolutePath().normalize();

    @Test
    void anUnknownCommandIsOneLineNamingItAndTheCommands() throws Exception {
        Process p = new ProcessBuilder("bash", REPO.resolve("scripts/tideline").toString(), "frobnicate")
                .directory(REPO.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String err;
        try {
            p.getOutputStream().close();
            err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "scripts/tideline frobnicate did not end");
        } finally {
            p.destroyForcibly();
        }
        assertEquals(2, p.exitValue(), err);
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.startsWith("tideline: unknown command 'frobnicate'; the commands are: dump-log, "), err);
        assertTrue(err.strip().endsWith(", admin, produce, consume, perf, health, build, classpath, help"), err);
    }
}
