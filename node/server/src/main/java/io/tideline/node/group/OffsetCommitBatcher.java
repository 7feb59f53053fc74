package io.tideline.node.group;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.proto.metadata.CommitOffsets;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.GroupOffsetCommit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Group commit of offset commits into the metadata quorum: at most one {@code CommitOffsets} entry is in
 * flight; every commit arriving meanwhile waits in the queue, and the whole queue goes as the next entry. So
 * heavy commit traffic costs one Raft entry per quorum round trip, not one per commit. A commit is answered
 * when its entry is committed and applied to this broker's image.
 *
 * <p>Bounds: the queue holds at most {@code offsets.commit.queue.max.bytes} (serialized commits); past it a
 * commit is answered COORDINATOR_LOAD_IN_PROGRESS, which kafka-clients retries without looking for another
 * coordinator. A commit not answered within {@code offsets.commit.timeout.ms} is answered COORDINATOR_NOT_AVAILABLE
 * (Kafka's answer to a timed-out append), and if it is still queued it is not sent at all.
 *
 * <p>Thread-safe: the queue is guarded by this object's lock; quorum callbacks run on the client's threads.
 */
public final class OffsetCommitBatcher {
    private final GroupQuorum quorum;
    private final ImageTracker images;
    private final Time time;
    private final Scheduler scheduler;
    private final int maxQueuedBytes;
    private final long timeoutMs;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private long queuedBytes;
    private boolean inFlight;
    private final AtomicLong entries = new AtomicLong();

    private record Pending(GroupOffsetCommit commit, CompletableFuture<Errors> result, int bytes, long deadlineMs) {
    }

    public OffsetCommitBatcher(GroupQuorum quorum, ImageTracker images, Time time, Scheduler scheduler,
                               int maxQueuedBytes, long timeoutMs) {
        this.quorum = quorum;
        this.images = images;
        this.time = time;
        this.scheduler = scheduler;
        this.maxQueuedBytes = maxQueuedBytes;
        this.timeoutMs = timeoutMs;
    }

    /** Completes with the commit's outcome: NONE, a check's error from the controller, or a retriable error. */
    public CompletableFuture<Errors> commit(GroupOffsetCommit commit) {
        Pending pending = new Pending(commit, new CompletableFuture<>(), commit.getSerializedSize(),
                time.milliseconds() + timeoutMs);
        boolean send;
        synchronized (this) {
            // One commit alone may exceed the bound (the request size limit bounds it): it must not wait forever.
            if (!queue.isEmpty() && queuedBytes + pending.bytes > maxQueuedBytes) {
                return CompletableFuture.completedFuture(Errors.COORDINATOR_LOAD_IN_PROGRESS);
            }
            queue.add(pending);
            queuedBytes += pending.bytes;
            send = !inFlight;
            inFlight = true;
        }
        Scheduler.Cancellable timer = scheduler.scheduleOnce("offset-commit-timeout",
                () -> pending.result.complete(Errors.COORDINATOR_NOT_AVAILABLE), timeoutMs);
        pending.result.whenComplete((e, t) -> timer.cancel());
        if (send) {
            sendNext();
        }
        return pending.result;
    }

    /** How many CommitOffsets entries were sent so far. */
    public long entriesSent() {
        return entries.get();
    }

    public synchronized int queued() {
        return queue.size();
    }

    private void sendNext() {
        List<Pending> batch = new ArrayList<>();
        synchronized (this) {
            while (!queue.isEmpty()) {
                Pending p = queue.poll();
                // Past its deadline a commit is answered COORDINATOR_NOT_AVAILABLE (its timer may not have run
                // yet): sending it would commit what the consumer was told failed.
                if (time.milliseconds() >= p.deadlineMs) {
                    p.result.complete(Errors.COORDINATOR_NOT_AVAILABLE);
                } else if (!p.result.isDone()) {
                    batch.add(p);
                }
            }
            queuedBytes = 0;
            if (batch.isEmpty()) {
                inFlight = false;
                return;
            }
        }
        CommitOffsets.Builder cmd = CommitOffsets.newBuilder();
        batch.forEach(p -> cmd.addCommits(p.commit));
        entries.incrementAndGet();
        CompletableFuture<ControllerResponse> sent;
        try {
            sent = quorum.submit(ControllerCommand.newBuilder().setTimestampMs(time.milliseconds())
                    .setCommitOffsets(cmd).build());
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<ControllerResponse> applied = new CompletableFuture<>();
        sent.thenCompose(response -> response.getErrorCode() == 0
                        ? images.awaitOffset(response.getOffset()).thenApply(image -> response)
                        : CompletableFuture.completedFuture(response))
                .whenComplete((response, error) -> {
                    if (error != null) {
                        applied.completeExceptionally(error);
                    } else {
                        applied.complete(response);
                    }
                });
        // The entry in flight holds up every commit behind it: past the timeout it is given up (its commits are
        // answered already by their own timers), so that a quorum or an image that stopped moving cannot stall
        // the queue for longer than one timeout.
        Scheduler.Cancellable guard = scheduler.scheduleOnce("offset-commit-entry-timeout",
                () -> applied.completeExceptionally(new java.util.concurrent.TimeoutException("commit entry")), timeoutMs);
        applied.whenComplete((response, error) -> {
            guard.cancel();
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).result.complete(outcome(response, error, i));
            }
            sendNext();
        });
    }

    private static Errors outcome(ControllerResponse response, Throwable error, int index) {
        if (error != null || response.getErrorCode() != 0 || response.getResultsCount() <= index) {
            // The quorum did not take the entry (no leader, a timeout, a closed client): the coordinator is
            // not available for now, and the consumer looks it up again and retries.
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        return Errors.forCode(response.getResults(index).getErrorCode());
    }
}
