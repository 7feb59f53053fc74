package io.tideline.replication.server;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.replication.leader.IsrProposal;
import io.tideline.replication.metrics.ReplicationStats;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a leader's ISR proposals to the controller (AlterPartition) and hands the verdicts to the partition.
 *
 * <p>A proposal the controller may still commit stays pending in the leader, so the added replicas stay in
 * the maximal ISR that bounds the high watermark (docs/behaviours.md B152, docs/replication.md "ISR changes
 * in flight"). Without a verdict (no answer within replica.isr.change.timeout.ms, a failed request, or an
 * error saying the controller did not evaluate it: {@link #NO_VERDICT}) the same proposal is sent again
 * once replica.isr.change.timeout.ms has passed since it was sent, for as long as it is pending at the same
 * leader epoch. A commit ends it, and so does INELIGIBLE_REPLICA (not applied) in answer to its latest send:
 * the controller applies one client's commands in the order they were sent, so every earlier send was
 * applied before that one, and none committed (that would have moved the partition epoch). The same
 * answer to an earlier send while a later one is out says nothing of the later one and is ignored. Any
 * other refusal means the partition moved on at the controller, so it stays pending, unsent, until newer
 * metadata ends it.
 *
 * <p>Time runs on the injected {@link Scheduler}. Thread-safe: answers arrive on the channel's threads and
 * retries on the scheduler's; the partition's lock guards what they change.
 */
final class IsrChangeSender {
    private static final Logger log = LoggerFactory.getLogger(IsrChangeSender.class);

    /** Errors with which the controller did not judge the proposal (or whose judgement is unknown). */
    static final Set<Errors> NO_VERDICT = Set.of(Errors.REQUEST_TIMED_OUT, Errors.NOT_CONTROLLER,
            Errors.UNKNOWN_SERVER_ERROR, Errors.BROKER_NOT_AVAILABLE, Errors.STALE_BROKER_EPOCH);

    /** Told after each verdict the partition applied. */
    interface Listener {
        void onAnswered(TopicPartition tp, boolean highWatermarkAdvanced);
    }

    private final IsrChannel channel;
    private final Scheduler scheduler;
    private final long timeoutMs;
    private final ReplicationStats stats;
    private final Listener listener;

    IsrChangeSender(IsrChannel channel, Scheduler scheduler, long timeoutMs, ReplicationStats stats, Listener listener) {
        this.channel = channel;
        this.scheduler = scheduler;
        this.timeoutMs = timeoutMs;
        this.stats = stats;
        this.listener = listener;
    }

    void send(Partition partition, int leaderEpoch, IsrProposal proposal) {
        send(partition, leaderEpoch, proposal, new AtomicInteger());
    }

    /** @param sends how many times this proposal was sent before, shared by its sends */
    private void send(Partition partition, int leaderEpoch, IsrProposal proposal, AtomicInteger sends) {
        int attempt = sends.incrementAndGet();
        TopicPartition tp = partition.topicPartition();
        String topicId = partition.metadata().map(LeaderAndIsr::topicId).orElse("");
        log.info("Proposing ISR {} for {} at leader epoch {} ({})", proposal.newIsr(), tp, leaderEpoch, proposal.reason());
        CompletableFuture<IsrChangeResult> answer;
        try {
            answer = channel.alterPartition(tp, topicId, leaderEpoch, proposal);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        AtomicBoolean judged = new AtomicBoolean();
        Scheduler.Cancellable retry = scheduler.scheduleOnce("isr-change-retry", () -> {
            if (!judged.get() && partition.isIsrChangePending(leaderEpoch, proposal)) {
                log.warn("No verdict on ISR change {} for {} within {} ms; sending it again", proposal.newIsr(), tp,
                        timeoutMs);
                send(partition, leaderEpoch, proposal, sends);
            }
        }, timeoutMs);
        answer.whenComplete((result, error) -> {
            if (error != null || NO_VERDICT.contains(result.error())) {
                stats.recordFailedIsrUpdate();
                log.warn("ISR change {} for {} got no verdict ({}); it stays pending and is sent again {} ms after "
                        + "it was sent", proposal.newIsr(), tp, error != null ? error.toString() : result.error(),
                        timeoutMs);
                return;
            }
            judged.set(true);
            retry.cancel();
            if (result.error() == Errors.INELIGIBLE_REPLICA && attempt != sends.get()) {
                log.info("ISR change {} for {}: INELIGIBLE_REPLICA for send {}, while send {} is out; waiting for it",
                        proposal.newIsr(), tp, attempt, sends.get());
                return;
            }
            if (result.error() == Errors.NONE) {
                stats.recordIsrChange(proposal);
            } else {
                stats.recordFailedIsrUpdate();
                log.warn("ISR change {} for {} refused: {}", proposal.newIsr(), tp, result.error());
            }
            listener.onAnswered(tp, partition.onIsrChangeAnswered(leaderEpoch, proposal, result));
        });
    }
}
