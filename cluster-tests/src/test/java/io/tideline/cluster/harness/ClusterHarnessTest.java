package io.tideline.cluster.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.client.ProducerRecord;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineProducer;
import io.tideline.cluster.proxy.Direction;
import io.tideline.common.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness's wiring: replication goes through the proxies, a killed node restarts behind the same ones. */
class ClusterHarnessTest {
    @TempDir
    Path dir;

    @Test
    void replicationGoesThroughTheProxiesAndARestartKeepsPortsAndLinks() throws Exception {
        try (ClusterHarness cluster = ClusterHarness.start(dir, 3, Map.of());
             TidelineAdmin admin = new TidelineAdmin(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            admin.createTopic("wired", Map.of(0, List.of(1, 2, 3)), Map.of());
            TopicPartition tp = new TopicPartition("wired", 0);
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> cluster.node(1).image()
                    .partition("wired", 0).map(p -> p.getIsrCount() == 3).orElse(false));
            try (TidelineProducer producer = new TidelineProducer(Map.of("bootstrap.servers",
                    cluster.bootstrapServers(), "acks", "all"))) {
                producer.send(new ProducerRecord("wired", 0, null, "a".getBytes(StandardCharsets.UTF_8)))
                        .get(10, TimeUnit.SECONDS);
            }
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node(3).replicaManager().log(tp)
                    .orElseThrow().logEndOffset() == 1);
            // The followers' fetches of the record crossed their links to leader 1; nobody fetches from 2.
            assertTrue(cluster.replicationProxy(2, 1).bytesForwarded(Direction.FROM_TARGET) > 0);
            assertTrue(cluster.replicationProxy(3, 1).bytesForwarded(Direction.FROM_TARGET) > 0);
            assertEquals(0, cluster.replicationProxy(1, 2).connectionsAccepted());
            assertEquals(0, cluster.replicationProxy(3, 2).connectionsAccepted());

            long acceptedBefore = cluster.replicationProxy(3, 1).connectionsAccepted();
            int port = cluster.clientPort(3);
            cluster.kill(3);
            String dump = cluster.dumpState();
            assertTrue(dump.contains("node 3: DOWN (killed or stopped)"), dump);
            assertTrue(dump.contains("image wired-0: leader 1 epoch "), dump);
            assertTrue(dump.contains("replica wired-0 LEADER isr "), dump);
            assertTrue(dump.contains("replica wired-0 follower isr") && dump.contains("fetcher: "), dump);

            cluster.restart(3);
            assertEquals(port, cluster.node(3).boundPort());
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> cluster.node(1).image()
                    .partition("wired", 0).map(p -> p.getIsrList().contains(3)).orElse(false));
            // The restarted node fetches through the same proxy, on a new connection.
            assertTrue(cluster.replicationProxy(3, 1).connectionsAccepted() > acceptedBefore);
            assertEquals(1, cluster.node(3).replicaManager().log(tp).orElseThrow().logEndOffset());
        }
    }
}
