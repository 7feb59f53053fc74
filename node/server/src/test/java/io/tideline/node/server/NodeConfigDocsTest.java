package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.config.ConfigDef;
import io.tideline.node.config.NodeConfig;
import io.tideline.node.config.TopicConfigs;
import io.tideline.store.config.LogConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeConfigDocsTest {

    /** Surefire runs with the module directory as working directory. */
    private static final Path CHECKED_IN = Path.of("..", "..", "docs", "node-configuration.md");

    @Test
    void checkedInDocsMatchTheDefinitions() throws IOException {
        assertTrue(Files.exists(CHECKED_IN), "missing " + CHECKED_IN.toAbsolutePath());
        String onDisk = Files.readString(CHECKED_IN, StandardCharsets.UTF_8);
        assertEquals(NodeConfigDocs.generate(), onDisk,
                "docs/node-configuration.md is stale; regenerate it from the repository root with: "
                + "mvn -o -q -pl node/server -am package -DskipTests && java -cp \"node/server/target/classes:$(ls "
                + "node/server/target/lib/*.jar "
                + "| tr '\\n' ':')\" io.tideline.node.server.NodeConfigDocs docs/node-configuration.md");
    }

    @Test
    void generatedDocsListNodeKeysAndOnlyTheTopicKeysLogConfigLacks() {
        String md = NodeConfigDocs.generate();
        assertTrue(md.startsWith(NodeConfigDocs.HEADER + "\n"), md);
        for (ConfigDef def : new ConfigDef[] {NodeConfig.configDef(), TopicConfigs.nodeKeysConfigDef()}) {
            for (String key : def.names()) {
                assertTrue(md.contains("| `" + key + "` |"), key);
            }
        }
        // LogConfig's keys are documented once, in docs/configuration.md.
        for (String key : LogConfig.configDef().names()) {
            assertFalse(md.contains("| `" + key + "` |"), key);
        }
    }

    @Test
    void runPrintsToOutOrWritesTheNamedFile(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);

        assertEquals(0, NodeConfigDocs.run(new String[0], outStream, errStream));
        assertEquals(NodeConfigDocs.generate(), out.toString(StandardCharsets.UTF_8));

        Path file = dir.resolve("node-configuration.md");
        assertEquals(0, NodeConfigDocs.run(new String[] {file.toString()}, outStream, errStream));
        assertEquals(NodeConfigDocs.generate(), Files.readString(file, StandardCharsets.UTF_8));

        assertEquals(1, NodeConfigDocs.run(new String[] {dir.resolve("missing/x.md").toString()}, outStream,
                errStream));
        assertEquals(2, NodeConfigDocs.run(new String[] {"a", "b"}, outStream, errStream));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage"));
    }
}
