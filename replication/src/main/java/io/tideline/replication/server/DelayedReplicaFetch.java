package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.purgatory.DelayedOperation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A replica fetch parked at the leader (long poll): it had fewer than replica.fetch.min.bytes to send and
 * nothing new for the follower. Completes when enough bytes arrived, when a partition has news (a higher
 * log start offset than the follower reported, an error such as a leadership change), or at
 * replica.fetch.wait.max.ms; then the fetch is read again and answered.
 *
 * <p>A higher high watermark alone is news that can wait a little ({@link LeaderFetchHandler#HIGH_WATERMARK_NEWS_DELAY_MS}):
 * under a steady stream of appends the next append wakes the fetch within that time and its answer carries
 * the new high watermark with the records, so each follower makes one fetch per append instead of two. When
 * no append comes, the fetch is answered once it has been parked that long (on the real clock: it is a wait,
 * not a rule, like the fetcher's backoff), so followers still learn the high watermark promptly.
 */
final class DelayedReplicaFetch extends DelayedOperation {
    /** What a parked fetch has for the follower now. */
    enum Readiness { NOTHING, HIGH_WATERMARK_ONLY, READY }

    /** What a parked fetch has to answer with now. */
    @FunctionalInterface
    interface ReadinessCheck {
        Readiness check(List<FollowerFetch> fetches);
    }

    private final List<FollowerFetch> fetches;
    private final ReadinessCheck readiness;
    private final Supplier<Map<TopicPartition, FetchResponseData>> reread;
    private final CompletableFuture<Map<TopicPartition, FetchResponseData>> future;
    private final long highWatermarkNewsDueNanos;
    private final LongFunction<Runnable> nudgeAfterNanos;
    private final AtomicBoolean nudged = new AtomicBoolean();
    /** Cancels the check armed for high watermark news, once the fetch is answered some other way. */
    private volatile Runnable cancelNudge;

    /**
     * @param highWatermarkNewsDelayMs how long high watermark news alone waits for an append to carry it
     * @param nudgeAfterNanos          arranges for this fetch to be checked again after the given nanoseconds;
     *                                 returns what cancels that
     */
    DelayedReplicaFetch(long timeoutMs, List<FollowerFetch> fetches, ReadinessCheck readiness,
                        Supplier<Map<TopicPartition, FetchResponseData>> reread,
                        CompletableFuture<Map<TopicPartition, FetchResponseData>> future,
                        long highWatermarkNewsDelayMs, LongFunction<Runnable> nudgeAfterNanos) {
        super(timeoutMs);
        this.fetches = List.copyOf(fetches);
        this.readiness = readiness;
        this.reread = reread;
        this.future = future;
        this.highWatermarkNewsDueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(highWatermarkNewsDelayMs);
        this.nudgeAfterNanos = nudgeAfterNanos;
    }

    @Override
    protected boolean tryComplete() {
        Readiness now = readiness.check(fetches);
        if (now == Readiness.READY) {
            return forceComplete();
        }
        if (now == Readiness.HIGH_WATERMARK_ONLY) {
            long left = highWatermarkNewsDueNanos - System.nanoTime();
            if (left <= 0) {
                return forceComplete();
            }
            // One check is enough: if an append came first, it completed this fetch and the check finds it done.
            if (nudged.compareAndSet(false, true)) {
                cancelNudge = nudgeAfterNanos.apply(left);
            }
        }
        return false;
    }

    @Override
    protected void onComplete(boolean expired) {
        // A check armed while another thread completes the fetch (expiry, a leadership change) may be missed
        // here; it then checks the partitions once, finds nothing parked for it, and is gone.
        Runnable cancel = cancelNudge;
        if (cancel != null) {
            cancel.run();
        }
        try {
            future.complete(reread.get());
        } catch (RuntimeException e) {
            future.completeExceptionally(e);
        }
    }
}
