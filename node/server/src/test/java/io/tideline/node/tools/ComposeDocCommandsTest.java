package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How ComposeClusterTest reads docs/containers.md; the page itself is run by that test. */
class ComposeDocCommandsTest {
    private static final String PAGE = """
            # Containers

            ```sh engine
            D=/var/tmp/x
            dockerd --data-root $D/data --host unix://$D/docker.sock --bridge=none > $D/dockerd.log 2>&1 &
            export DOCKER_HOST=unix://$D/docker.sock
            docker info --format '{{.ServerVersion}}'   # prints the version
            ```

            ```sh up
            # a comment line
            JMX_PORT=9999 docker-compose -f a.yml \\
                -f b.yml up -d

            ```

            ```sh use
            scripts/tideline admin --bootstrap-server 127.0.0.1:9392 topics --list
            ```

            ```sh down
            docker-compose -f a.yml down -v
            ```

            ```sh network
            docker-compose -f a.yml exec node-1 tideline admin --bootstrap-server node-1:9392 topics --list
            ```

            ```text
            mvn verify
            ```
            """;

    @Test
    void eachKindHoldsItsCommandsWithoutCommentsAndWithContinuationsJoined() {
        ComposeDocCommands doc = ComposeDocCommands.parse(PAGE);
        assertEquals(List.of("D=/var/tmp/x",
                "dockerd --data-root $D/data --host unix://$D/docker.sock --bridge=none > $D/dockerd.log 2>&1 &",
                "export DOCKER_HOST=unix://$D/docker.sock", "docker info --format '{{.ServerVersion}}'"), doc.block("engine"));
        assertEquals(List.of("JMX_PORT=9999 docker-compose -f a.yml -f b.yml up -d"), doc.block("up"));
        assertEquals(List.of("docker-compose -f a.yml down -v"), doc.block("down"));
    }

    @Test
    void aRunMovesTheDefaultPrefixPortsAndTheJmxPortOnly() {
        assertEquals("scripts/tideline admin --bootstrap-server 127.0.0.1:23392 topics --list",
                ComposeDocCommands.forRun("scripts/tideline admin --bootstrap-server 127.0.0.1:9392 topics --list", 23, 40001));
        assertEquals("JMX_PORT=40001 docker-compose up -d", ComposeDocCommands.forRun("JMX_PORT=9999 docker-compose up -d", 23, 40001));
        assertEquals("tideline admin --bootstrap-server node-1:9392", ComposeDocCommands.forRun(
                "tideline admin --bootstrap-server node-1:9392", 23, 40001));
    }

    @Test
    void exportsAndTheDockerdCommandAreReadForTheEngine() {
        ComposeDocCommands doc = ComposeDocCommands.parse(PAGE);
        assertEquals(Map.entry("DOCKER_HOST", "unix://$D/docker.sock"), ComposeDocCommands.export("export DOCKER_HOST=unix://$D/docker.sock"));
        assertNull(ComposeDocCommands.export("docker-compose ps"));
        assertEquals(List.of("dockerd", "--data-root", "/s/data", "--host", "unix:///s/docker.sock", "--bridge=none"),
                doc.dockerdCommand(Path.of("/s")));
    }

    @Test
    void aMissingOrUnknownKindFailsInsteadOfGoingUnrun() {
        assertThrows(AssertionError.class, () -> ComposeDocCommands.parse(PAGE.replace("```sh down", "```text")));
        assertThrows(AssertionError.class, () -> ComposeDocCommands.parse(PAGE.replace("```sh use", "```sh usage")));
    }

    @Test
    void theRealPageHasEveryKindAndOnlyCommandsTheTestKnowsHowToRun() throws Exception {
        ComposeDocCommands doc = ComposeDocCommands.read(repository().resolve("docs/containers.md"));
        assertTrue(doc.block("up").stream().anyMatch(c -> c.contains("JMX_PORT=9999 docker-compose")), doc.block("up").toString());
        assertTrue(doc.block("down").get(0).endsWith(" stop"), doc.block("down").toString());
        assertTrue(doc.dockerdCommand(Path.of("/s")).contains("--bridge=none"));
        for (String kind : List.of("up", "use", "down")) {
            for (String command : doc.block(kind)) {
                // Host networking on loopback only: no project-network address in what the test runs.
                assertTrue(!command.matches(".*\\bnode-\\d:\\d+.*"), kind + ": " + command);
            }
        }
    }

    private static Path repository() {
        for (Path p = Path.of(System.getProperty("user.dir")).toAbsolutePath(); p != null; p = p.getParent()) {
            if (p.resolve("docs/containers.md").toFile().isFile()) {
                return p;
            }
        }
        throw new IllegalStateException("no docs/containers.md above " + System.getProperty("user.dir"));
    }
}
