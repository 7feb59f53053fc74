package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.api.ApiTestSupport;
import io.tideline.proto.admin.CreateTopicsRequest;
import io.tideline.proto.admin.DeleteTopicsRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node stop waits for its metadata publisher: no thread of the stopped node goes on deleting logs or writing
 * checkpoints into its log dir after {@code close} returned, even when the stop comes while a topic of many
 * partitions is being deleted.
 */
class NodeStopPublisherTest {
    private static final int PARTITIONS = 200;

    @Test
    void aStopDuringATopicDeletionLeavesNoThreadWritingAndNoHalfWrittenFile(@TempDir Path dir) throws Exception {
        NodeTestCluster cluster = new NodeTestCluster(dir, 1, Map.of()).startAll();
        Path logDir = cluster.config(1).store().logDirs().get(0);
        try {
            cluster.admin(1).createTopics(CreateTopicsRequest.newBuilder()
                    .addTopics(ApiTestSupport.newTopic("wide", PARTITIONS, 1, Map.of())).build());
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> partitionDirs(logDir) == PARTITIONS);
            cluster.admin(1).deleteTopics(DeleteTopicsRequest.newBuilder().addNames("wide").setTimeoutMs(30_000)
                    .build());
        } finally {
            cluster.close();
        }
        List<String> alive = Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.equals("tideline-1-metadata-publisher")).toList();
        assertEquals(List.of(), alive, "the publisher outlived the node's close");
        try (Stream<Path> files = Files.walk(logDir)) {
            List<Path> tmp = files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
            assertTrue(tmp.isEmpty(), "half-written files left behind: " + tmp);
        }
    }

    private static long partitionDirs(Path logDir) throws IOException {
        try (Stream<Path> dirs = Files.list(logDir)) {
            return dirs.filter(d -> d.getFileName().toString().matches("wide-\\d+")).count();
        }
    }
}
