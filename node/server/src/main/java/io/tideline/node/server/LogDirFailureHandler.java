package io.tideline.node.server;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.FailedReplica;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.manager.LogManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A log dir failed (an I/O error or a full disk surfaced as KAFKA_STORAGE_ERROR from one of its logs, or a
 * checkpoint of it could not be written): its partitions go offline on this broker (KAFKA_STORAGE_ERROR to
 * clients, no fetching, no leading), and the controller is told, so it takes these replicas out of their ISRs
 * and moves their leaderships. The other dirs keep serving. Runs on its own thread: the error is seen on
 * request, fetcher and scheduler threads.
 *
 * <p>The report is sent until the controller acknowledges it (docs/behaviours.md B144): a report that fails
 * (no quorum leader, a timeout, a broker epoch that changed meanwhile) is sent again after a backoff that
 * starts at {@link #INITIAL_BACKOFF_MS} and doubles up to {@link #MAX_BACKOFF_MS}, each time with the broker's
 * epoch of the moment, until it is acknowledged or the broker stops. A leader whose dir failed keeps its
 * leaderships in the image until then, so a lost report would leave its partitions without a working leader.
 */
final class LogDirFailureHandler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LogDirFailureHandler.class);

    /** The first retry's delay: Kafka's retry.backoff.ms default. */
    static final long INITIAL_BACKOFF_MS = 100;
    /** The longest delay between two attempts: a controller back after an election hears within this. */
    static final long MAX_BACKOFF_MS = 5_000;

    /** Where the report goes (the controller client's ReportFailedReplicas). */
    @FunctionalInterface
    interface FailedReplicaSubmitter {
        CompletableFuture<ControllerResponse> reportFailedReplicas(int brokerId, long brokerEpoch,
                                                                  List<FailedReplica> replicas);
    }

    private final int brokerId;
    private final LogManager logManager;
    private final ReplicaManager replicaManager;
    private final FailedReplicaSubmitter controller;
    private final LongSupplier brokerEpoch;
    private final Supplier<MetadataImage> image;
    private final Scheduler scheduler;
    private final ExecutorService thread;
    private volatile boolean closed;

    LogDirFailureHandler(int brokerId, LogManager logManager, ReplicaManager replicaManager,
                         FailedReplicaSubmitter controller, LongSupplier brokerEpoch, Supplier<MetadataImage> image,
                         Scheduler scheduler) {
        this.brokerId = brokerId;
        this.logManager = logManager;
        this.replicaManager = replicaManager;
        this.controller = controller;
        this.brokerEpoch = brokerEpoch;
        this.image = image;
        this.scheduler = scheduler;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tideline-" + brokerId + "-log-dir-failure");
            t.setDaemon(true);
            return t;
        });
    }

    /** A log's reader or writer saw KAFKA_STORAGE_ERROR: its whole dir goes offline. */
    void onStorageError(TopicPartition tp, RuntimeException error) {
        Optional<Path> dir = logManager.logDir(tp);
        if (dir.isEmpty()) {
            return; // its dir is offline already (or the log is gone): that dir's report is under way
        }
        run(() -> logManager.markLogDirOffline(dir.get(), tp + ": " + error.getMessage()));
    }

    /**
     * The {@link LogManager.LogDirFailureListener}: the dir is offline in the store, whoever found the fault.
     * Its partitions stop here and are reported.
     */
    void onLogDirOffline(Path dir, String reason, List<TopicPartition> lost) {
        run(() -> {
            replicaManager.markOffline(lost);
            if (logManager.offlineLogDirs().size() == logManager.logDirs().size()) {
                log.error("Every log dir of broker {} is offline; it serves no partition until restarted with a "
                        + "working dir", brokerId);
            }
            report(lost, "log dir " + dir + " failed: " + reason);
        });
    }

    /**
     * A partition's log could not be created here (applying metadata): the store took the dir offline, or had
     * none left. The partition is offline on this broker and reported like those of a failed dir.
     */
    void onLogCreationFailed(TopicPartition tp, RuntimeException error) {
        run(() -> {
            replicaManager.markOffline(List.of(tp));
            report(List.of(tp), "creating the log failed: " + error.getMessage());
        });
    }

    private void run(Runnable task) {
        if (closed) {
            return;
        }
        try {
            thread.execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("Not handling a log dir failure: the broker is stopping");
        }
    }

    private void report(List<TopicPartition> lost, String reason) {
        List<FailedReplica> report = new ArrayList<>();
        MetadataImage current = image.get();
        for (TopicPartition tp : lost) {
            Optional<TopicImage> topic = current.topic(tp.topic());
            topic.ifPresent(t -> report.add(FailedReplica.newBuilder().setTopicId(t.id()).setPartition(tp.partition())
                    .setReason(reason).setStorageError(true).build()));
        }
        if (!report.isEmpty()) {
            send(report, 1, INITIAL_BACKOFF_MS);
        }
    }

    private void send(List<FailedReplica> report, int attempt, long backoffMs) {
        if (closed) {
            return;
        }
        CompletableFuture<ControllerResponse> answer;
        try {
            answer = controller.reportFailedReplicas(brokerId, brokerEpoch.getAsLong(), report);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((r, e) -> {
            if (e == null && r.getErrorCode() == Errors.NONE.code()) {
                log.info("Controller told: {} replicas on a failed log dir (attempt {})", report.size(), attempt);
                return;
            }
            String why = e != null ? e.toString() : Errors.forCode(r.getErrorCode()) + " " + r.getErrorMessage();
            if (closed) {
                log.warn("Reporting {} failed replicas to the controller failed and the broker is stopping: {}",
                        report.size(), why);
                return;
            }
            log.warn("Reporting {} failed replicas to the controller failed (attempt {}); retrying in {} ms: {}",
                    report.size(), attempt, backoffMs, why);
            try {
                scheduler.scheduleOnce("log-dir-failure-report", () -> send(report, attempt + 1,
                        Math.min(MAX_BACKOFF_MS, backoffMs * 2)), backoffMs);
            } catch (RejectedExecutionException stopping) {
                log.debug("Not retrying the failed-replica report: the broker is stopping");
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
    }
}
