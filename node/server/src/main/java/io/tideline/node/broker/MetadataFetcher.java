package io.tideline.node.broker;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.metadata.ImageSerde;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerQueryResponse;
import io.tideline.proto.metadata.MetadataSnapshot;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a broker-only node's metadata image current by asking the quorum for the image every
 * {@code metadata.fetch.interval.ms} and publishing a newer one to the {@link BrokerMetadataPublisher}.
 *
 * <p>Why a fetch and not a Ratis listener: a listener is a member of the Raft group configuration, so
 * every broker joining or leaving would be a membership change of the quorum; a fetch needs nothing from
 * the quorum but a read. The image is small (one per cluster) and the publisher computes the broker's
 * delta by comparing images, so a broker never needs the individual records.
 *
 * <p>At most one fetch is in flight: a period that finds one still running is skipped, unless it has
 * been running longer than the stall timeout, in which case it is abandoned (its late answer is still
 * harmless: the publisher skips images that are not newer). A failed fetch is logged (at WARN for the
 * first failure of a streak, then at DEBUG) and retried next period. The known offset is the publisher's
 * last published offset, so an image the handler refused is fetched again.
 *
 * <p>Thread-safety: {@link #start} and {@link #close} may be called from any thread; polls run on the
 * scheduler, answers are handled on whatever thread completes the future.
 */
public final class MetadataFetcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetadataFetcher.class);

    public static final long DEFAULT_STALL_TIMEOUT_MS = 60_000L;

    private final ImageSource source;
    private final BrokerMetadataPublisher publisher;
    private final Scheduler scheduler;
    private final Time time;
    private final long intervalMs;
    private final long stallTimeoutMs;

    private final Object lock = new Object();
    // Guarded by lock.
    private Scheduler.Cancellable task;
    private boolean closed;
    private long inFlightSinceMs = -1;
    private long fetchSequence;
    private int consecutiveFailures;

    /**
     * @param intervalMs     {@code metadata.fetch.interval.ms}
     * @param stallTimeoutMs how long a fetch may stay unanswered before the next period sends another
     */
    public MetadataFetcher(ImageSource source, BrokerMetadataPublisher publisher, Scheduler scheduler, Time time,
                           long intervalMs, long stallTimeoutMs) {
        this.source = Objects.requireNonNull(source, "source");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.time = Objects.requireNonNull(time, "time");
        if (intervalMs < 1) {
            throw new IllegalArgumentException("intervalMs must be >= 1: " + intervalMs);
        }
        if (stallTimeoutMs < 1) {
            throw new IllegalArgumentException("stallTimeoutMs must be >= 1: " + stallTimeoutMs);
        }
        this.intervalMs = intervalMs;
        this.stallTimeoutMs = stallTimeoutMs;
    }

    /**
     * With a stall timeout of one minute (or ten intervals, if longer): a safety net for a source that
     * never answers, longer than the controller client's own request timeout (30 s), which answers a
     * request to an unreachable quorum with an error in time.
     */
    public MetadataFetcher(ImageSource source, BrokerMetadataPublisher publisher, Scheduler scheduler, Time time,
                           long intervalMs) {
        this(source, publisher, scheduler, time, intervalMs, Math.max(DEFAULT_STALL_TIMEOUT_MS, 10 * intervalMs));
    }

    /** Fetches at once, then every interval. */
    public void start() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("closed");
            }
            if (task != null) {
                throw new IllegalStateException("already started");
            }
            task = scheduler.schedule("metadata-fetch", this::poll, 0, intervalMs);
        }
    }

    /** Stops polling; an answer still in flight is ignored. Idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (task != null) {
                task.cancel();
            }
        }
    }

    /** The offset of the last image handed to the publisher (0 before the first). */
    public long knownOffset() {
        return publisher.lastPublished().offset();
    }

    /** Failed fetches since the last successful one. */
    public int consecutiveFailures() {
        synchronized (lock) {
            return consecutiveFailures;
        }
    }

    /** One period: sends a fetch unless one is in flight and not yet stalled. */
    void poll() {
        long seq;
        long knownOffset = knownOffset();
        synchronized (lock) {
            if (closed) {
                return;
            }
            long now = time.milliseconds();
            if (inFlightSinceMs >= 0) {
                if (now - inFlightSinceMs < stallTimeoutMs) {
                    return;
                }
                log.warn("Metadata fetch unanswered for {} ms; sending another", now - inFlightSinceMs);
            }
            inFlightSinceMs = now;
            seq = ++fetchSequence;
        }
        CompletableFuture<ControllerQueryResponse> future;
        try {
            future = source.fetchImage(knownOffset);
        } catch (RuntimeException e) {
            future = CompletableFuture.failedFuture(e);
        }
        future.whenComplete((response, error) -> onAnswer(seq, knownOffset, response, error));
    }

    private void onAnswer(long seq, long knownOffset, ControllerQueryResponse response, Throwable error) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            // A fetch abandoned as stalled no longer owns the in-flight slot.
            if (seq == fetchSequence) {
                inFlightSinceMs = -1;
            }
        }
        try {
            if (error != null) {
                throw new FetchFailure("fetch failed: " + unwrap(error), unwrap(error));
            }
            if (response.getErrorCode() != Errors.NONE.code()) {
                throw new FetchFailure("fetch failed: " + Errors.forCode(response.getErrorCode()) + " "
                        + response.getErrorMessage(), null);
            }
            if (response.hasImage()) {
                MetadataSnapshot snapshot = response.getImage();
                if (snapshot.getOffset() > knownOffset) {
                    MetadataImage image = ImageSerde.fromSnapshot(snapshot);
                    publisher.publish(image);
                }
            }
            succeeded();
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    private void succeeded() {
        synchronized (lock) {
            if (consecutiveFailures > 0) {
                log.info("Metadata fetch succeeded again after {} failures; image offset {}", consecutiveFailures,
                        knownOffset());
            }
            consecutiveFailures = 0;
        }
    }

    private void failed(RuntimeException e) {
        int failures;
        synchronized (lock) {
            failures = ++consecutiveFailures;
        }
        // The first failure of a streak at WARN; the rest at DEBUG, so a quorum that is down for a minute
        // does not write two lines a second.
        if (failures == 1) {
            log.warn("Metadata fetch at offset {} failed; retrying every {} ms: {}", knownOffset(), intervalMs,
                    e.getMessage(), e instanceof FetchFailure ? null : e);
        } else {
            log.debug("Metadata fetch failed ({} in a row): {}", failures, e.getMessage());
        }
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** An expected failure (the quorum answered with an error, or the request failed); no stack trace. */
    private static final class FetchFailure extends RuntimeException {
        FetchFailure(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }
}
