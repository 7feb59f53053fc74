package io.tideline.node.server;

import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.broker.BrokerMetadataPublisher;
import io.tideline.node.broker.ImageSource;
import io.tideline.node.broker.MetadataFetcher;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.quorum.QuorumServer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the committed metadata and applies it to this broker through its {@link BrokerMetadataPublisher}:
 * a voter hands its own state machine's images to the publisher thread, a broker-only node fetches them from
 * the quorum.
 *
 * <p>Thread-safety: the node starts and stops it under its own start-up and stop; images are applied one at a
 * time, on the publisher thread (a voter) or the fetcher's (a broker-only node).
 */
final class MetadataFollower {
    private static final Logger log = LoggerFactory.getLogger(MetadataFollower.class);
    /** How long a stop waits for the metadata publisher's delta in hand, then again after interrupting it. */
    private static final long PUBLISHER_STOP_BOUND_MS = 10_000L;

    private final int nodeId;
    private final BrokerMetadataPublisher publisher;
    /** The offset of this incarnation's registration: nothing older is applied. */
    private final LongSupplier registrationOffset;
    /** True once the node stops: no more images are handed to the publisher thread. */
    private final BooleanSupplier nodeClosed;
    private final ExecutorService publisherThread;
    private MetadataFetcher fetcher;

    MetadataFollower(int nodeId, BrokerMetadataPublisher publisher, LongSupplier registrationOffset,
                     BooleanSupplier nodeClosed) {
        this.nodeId = nodeId;
        this.publisher = publisher;
        this.registrationOffset = registrationOffset;
        this.nodeClosed = nodeClosed;
        this.publisherThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tideline-" + nodeId + "-metadata-publisher");
            t.setDaemon(true);
            return t;
        });
    }

    /** The metadata this broker has applied. */
    MetadataImage image() {
        return publisher.lastPublished();
    }

    /** A voter applies each image its own state machine commits, then the one it has now. */
    void followVoter(QuorumServer quorum) {
        quorum.stateMachine().addListener((previous, current, records) -> publishLatest(quorum));
        publishLatest(quorum);
    }

    /** A broker-only node fetches the image from the quorum every {@code intervalMs}. */
    void fetchFrom(ImageSource source, Scheduler scheduler, Time time, long intervalMs) {
        fetcher = new MetadataFetcher(source, publisher, scheduler, time, intervalMs);
        fetcher.start();
    }

    /** Hands the newest image to the publisher thread (the state machine's thread must not block). */
    private void publishLatest(QuorumServer quorum) {
        if (nodeClosed.getAsBoolean() || publisherThread.isShutdown()) {
            return;
        }
        try {
            publisherThread.execute(() -> publishOnPublisherThread(quorum));
        } catch (RejectedExecutionException e) {
            // stopping: the quorum member applies its last entries after the publisher went away
        }
    }

    private void publishOnPublisherThread(QuorumServer quorum) {
        MetadataImage image = quorum.image();
        // A restarted voter replays its own metadata log first, and there it may still lead partitions
        // that moved while it was down: acting on that would make it a second leader taking writes.
        // As Kafka's brokers wait for their initial catch-up, publish nothing older than this
        // incarnation's registration (the controller unfences at the same point).
        if (image.offset() < registrationOffset.getAsLong()) {
            return;
        }
        try {
            publisher.publish(image);
        } catch (RuntimeException e) {
            log.error("Applying metadata at offset {} failed; the next change retries it", image.offset(), e);
        }
    }

    /** Stops fetching (a broker-only node); an answer still in flight is ignored. */
    void stopFetching() {
        if (fetcher != null) {
            fetcher.close();
        }
    }

    /**
     * Stops the metadata publisher before the replicas and logs it acts on close. A stop lets the delta in
     * hand finish (deleting a topic of many partitions takes a moment; cut off, its logs would be left half
     * deleted and its checkpoint writes interrupted); a crash cuts it at once, as a kill would. Either way the
     * thread has ended, within the bound, before any log closes under it.
     */
    void stopPublisher(boolean crash) {
        if (crash) {
            publisherThread.shutdownNow();
        } else {
            publisherThread.shutdown();
        }
        try {
            if (!publisherThread.awaitTermination(PUBLISHER_STOP_BOUND_MS, TimeUnit.MILLISECONDS)) {
                publisherThread.shutdownNow();
                if (!publisherThread.awaitTermination(PUBLISHER_STOP_BOUND_MS, TimeUnit.MILLISECONDS)) {
                    log.warn("The metadata publisher of node {} did not stop within {} ms; closing the logs anyway",
                            nodeId, 2 * PUBLISHER_STOP_BOUND_MS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            publisherThread.shutdownNow();
        }
    }
}
