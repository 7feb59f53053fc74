package io.tideline.node.server;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.FailedReplica;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A log dir failed (an I/O error or a full disk surfaced as KAFKA_STORAGE_ERROR from one of its logs): its
 * partitions go offline on this broker (KAFKA_STORAGE_ERROR to clients, no fetching, no leading), and the
 * controller is told, so it takes these replicas out of their ISRs and moves their leaderships. The other
 * dirs keep serving. Runs on its own thread: the error is seen on request and fetcher threads.
 */
final class LogDirFailureHandler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LogDirFailureHandler.class);

    private final int brokerId;
    private final LogManager logManager;
    private final ReplicaManager replicaManager;
    private final ControllerClient controller;
    private final LongSupplier brokerEpoch;
    private final Supplier<MetadataImage> image;
    private final ExecutorService thread;

    LogDirFailureHandler(int brokerId, LogManager logManager, ReplicaManager replicaManager, ControllerClient controller,
                         LongSupplier brokerEpoch, Supplier<MetadataImage> image) {
        this.brokerId = brokerId;
        this.logManager = logManager;
        this.replicaManager = replicaManager;
        this.controller = controller;
        this.brokerEpoch = brokerEpoch;
        this.image = image;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tideline-" + brokerId + "-log-dir-failure");
            t.setDaemon(true);
            return t;
        });
    }

    void onStorageError(TopicPartition tp, RuntimeException error) {
        Optional<Path> dir = logManager.logDir(tp);
        if (dir.isEmpty()) {
            return;
        }
        thread.execute(() -> fail(dir.get(), tp + ": " + error.getMessage()));
    }

    private void fail(Path dir, String reason) {
        List<TopicPartition> lost = logManager.markLogDirOffline(dir, reason);
        if (lost.isEmpty()) {
            return;
        }
        replicaManager.markOffline(lost);
        if (logManager.offlineLogDirs().size() == logManager.logDirs().size()) {
            log.error("Every log dir of broker {} is offline; it serves no partition until restarted with a "
                    + "working dir", brokerId);
        }
        List<FailedReplica> report = new ArrayList<>();
        MetadataImage current = image.get();
        for (TopicPartition tp : lost) {
            Optional<TopicImage> topic = current.topic(tp.topic());
            topic.ifPresent(t -> report.add(FailedReplica.newBuilder().setTopicId(t.id()).setPartition(tp.partition())
                    .setReason("log dir " + dir + " failed: " + reason).setStorageError(true).build()));
        }
        if (report.isEmpty()) {
            return;
        }
        controller.reportFailedReplicas(brokerId, brokerEpoch.getAsLong(), report).whenComplete((r, e) -> {
            if (e != null || r.getErrorCode() != Errors.NONE.code()) {
                log.error("Reporting the failed log dir {} to the controller failed: {}", dir,
                        e != null ? e.toString() : Errors.forCode(r.getErrorCode()) + " " + r.getErrorMessage());
            } else {
                log.info("Controller told: {} replicas on failed log dir {}", report.size(), dir);
            }
        });
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
