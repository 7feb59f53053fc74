package io.tideline.node.broker;

import static io.tideline.node.broker.Images.created;
import static io.tideline.node.broker.Images.fourBrokers;
import static io.tideline.node.broker.Images.partition;
import static io.tideline.node.broker.Images.removeTopic;
import static io.tideline.node.broker.Images.replay;
import static io.tideline.node.broker.Images.topic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.replica.PartitionSettingsResolver;
import io.tideline.node.replica.ReplicaMetadataHandler;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.server.FailedReplicaReporter;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import io.tideline.testsupport.disk.SmallFileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log that cannot be created or deleted while metadata is applied is this broker's disk fault: the partition
 * (or the dir) goes offline here and the image is still published, so the broker's metadata keeps moving
 * (docs/behaviours.md B145). Before, the handler threw, the publisher kept its old image, and every later image
 * repeated the same failing step.
 */
class MetadataDiskFaultTest {
    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final TopicPartition AUDIT = new TopicPartition("audit", 0);

    @TempDir
    Path dir;

    private final MockTime time = new MockTime();
    private final MockScheduler scheduler = new MockScheduler(time);
    private final List<TopicPartition> creationFailures = new CopyOnWriteArrayList<>();
    private LogManager logManager;
    private ReplicaManager replicaManager;
    private BrokerMetadataPublisher publisher;

    @BeforeEach
    void setUp() throws Exception {
        logManager = new LogManager(StoreConfig.fromMap(Map.of("log.dirs", dir.resolve("logs").toString())), "c", 1,
                time, scheduler, new MetricRegistry(), new Random(1));
        logManager.startup();
        ReplicationConfig config = ReplicationConfig.fromMap(Map.of("min.insync.replicas", 1));
        replicaManager = new ReplicaManager(1, config, logManager, time, scheduler,
                (tp, id, epoch, proposal) -> new CompletableFuture<>(), FailedReplicaReporter.NONE,
                broker -> Optional.empty(), new MetricRegistry());
        ReplicaMetadataHandler replicas = new ReplicaMetadataHandler(1, replicaManager, logManager,
                new PartitionSettingsResolver(config), (tp, e) -> {
                    creationFailures.add(tp);
                    replicaManager.markOffline(List.of(tp));
                });
        publisher = new BrokerMetadataPublisher(1, replicas);
    }

    @AfterEach
    void tearDown() {
        replicaManager.close();
        logManager.closeWithoutShutdown();
    }

    @Test
    void aLogThatCannotBeCreatedTakesItsPartitionOfflineAndLaterImagesStillApply() throws Exception {
        // A file where the partition's directory must go: creating the log fails with an I/O error.
        Files.createFile(dir.resolve("logs").resolve(ORDERS.directoryName()));
        MetadataImage first = replay(fourBrokers(), 11, topic("orders", "t1"),
                created(partition("t1", 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)));

        boolean published;
        try {
            published = publisher.publish(first);
        } catch (RuntimeException e) {
            published = false;
        }

        assertTrue(published, "the image is published although one log could not be created");
        assertEquals(11, publisher.lastPublished().offset());
        assertEquals(List.of(ORDERS), creationFailures);
        assertTrue(replicaManager.isOffline(ORDERS));
        assertEquals(Set.of(dir.resolve("logs")), logManager.offlineLogDirs(), "the dir that failed is offline");

        MetadataImage second = replay(first, 12, topic("audit", "t2"),
                created(partition("t2", 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)));
        assertTrue(publisher.publish(second), "the next image applies too");
        assertEquals(12, publisher.lastPublished().offset());
        assertEquals(List.of(ORDERS, AUDIT), creationFailures, "no dir is left for audit-0: offline here as well");
    }

    @Test
    void aLogThatCannotBeDeletedTakesItsDirOfflineAndTheImageStillApplies() throws Exception {
        MetadataImage led = replay(fourBrokers(), 11, topic("orders", "t1"),
                created(partition("t1", 0, List.of(1, 2), List.of(1, 2), 1, 0, 0)));
        publisher.publish(led);
        Path logDir = replicaManager.log(ORDERS).orElseThrow().dir();
        // A mount point inside the partition's directory cannot be removed (EBUSY), as a failing disk refuses.
        try (SmallFileSystem stuck = SmallFileSystem.mount(logDir.resolve("stuck"), 1)) {
            boolean published;
            try {
                published = publisher.publish(replay(led, 12, removeTopic("t1")));
            } catch (RuntimeException e) {
                published = false;
            }

            assertTrue(published, "the image is published although the log could not be deleted");
            assertEquals(12, publisher.lastPublished().offset());
            assertEquals(Set.of(dir.resolve("logs")), logManager.offlineLogDirs());
            assertTrue(replicaManager.partition(ORDERS).isEmpty());
        }
    }
}
