package io.tideline.store.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigDef;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigDocsTest {

    /** Surefire runs with the module directory as working directory. */
    private static final Path CHECKED_IN = Path.of("..", "docs", "configuration.md");

    @Test
    void checkedInDocsMatchTheDefinitions() throws IOException {
        assertTrue(Files.exists(CHECKED_IN), "missing " + CHECKED_IN.toAbsolutePath());
        String onDisk = Files.readString(CHECKED_IN, StandardCharsets.UTF_8);
        assertEquals(ConfigDocs.generate(), onDisk,
                "docs/configuration.md is stale; regenerate it from the repository root with: "
                + "mvn -o -q -pl segment-store compile && "
                + "java -cp segment-store/target/classes io.tideline.store.config.ConfigDocs docs/configuration.md");
    }

    @Test
    void generatedDocsStartWithTheHeaderAndListEveryKey() {
        String md = ConfigDocs.generate();
        assertTrue(md.startsWith(ConfigDocs.HEADER + "\n"), md);
        for (ConfigDef def : new ConfigDef[] {LogConfig.configDef(), StoreConfig.configDef()}) {
            for (String key : def.names()) {
                assertTrue(md.contains("| `" + key + "` |"), key);
            }
        }
    }

    @Test
    void runPrintsToOutOrWritesTheNamedFile(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);

        assertEquals(0, ConfigDocs.run(new String[0], outStream, errStream));
        assertEquals(ConfigDocs.generate(), out.toString(StandardCharsets.UTF_8));

        Path file = dir.resolve("configuration.md");
        assertEquals(0, ConfigDocs.run(new String[] {file.toString()}, outStream, errStream));
        assertEquals(ConfigDocs.generate(), Files.readString(file, StandardCharsets.UTF_8));

        assertEquals(2, ConfigDocs.run(new String[] {"a", "b"}, outStream, errStream));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage"));
    }
}
