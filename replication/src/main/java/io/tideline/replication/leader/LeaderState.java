package io.tideline.replication.leader;

import io.tideline.common.errors.Errors;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The leader side of one partition for one leader epoch, as pure deterministic logic: follower
 * tracking, the high watermark, ISR shrink/expand proposals, the acks=all checks and the DeleteRecords
 * low watermark. It does no I/O and reads no clock: every time rule takes {@code nowMs}.
 *
 * <p><b>Thread-safety:</b> not thread-safe. The partition lock guards it: every call, including the
 * read accessors, must hold that lock. The {@link LocalLog} it is given may be appended to by the
 * produce path under the same lock; {@link #maybeAdvanceHighWatermark()} must be called after each
 * append so a leader alone in the ISR moves its high watermark.
 *
 * <p><b>ISR.</b> The <em>committed</em> ISR is what the controller last committed; the leader never
 * changes it by itself, it only proposes ({@link #maybeShrinkIsr}, {@link #maybeExpandIsr}) and at most
 * one proposal is in flight ({@link #pendingIsrChange()}). The <em>maximal</em> ISR is the committed one
 * plus any replica a pending expansion adds; a replica a pending shrink removes is still in it. The high
 * watermark is computed over the maximal ISR, so it never advances past a replica that might still be
 * (or already be) in the ISR once the controller answers (docs/behaviours.md B36). min.insync.replicas is
 * checked against the committed ISR (docs/behaviours.md B37, B38).
 *
 * <p><b>High watermark.</b> min log end offset over the maximal ISR (the leader's own included); it never
 * decreases, and it does not advance while the committed ISR is smaller than min.insync.replicas.
 */
public final class LeaderState {
    private final int localBrokerId;
    private final int leaderEpoch;
    private final long leaderEpochStartOffset;
    private List<Integer> replicas;
    private int minInsyncReplicas;
    private final long replicaLagTimeMaxMs;
    private final LocalLog log;
    private final Map<Integer, FollowerState> followers = new LinkedHashMap<>();

    private List<Integer> isr;
    private int partitionEpoch;
    private IsrProposal pendingIsrChange;

    /**
     * @param leaderEpochStartOffset the leader's log end offset when this epoch began; a follower joins
     *                               the ISR only once it reached it (docs/behaviours.md B35)
     * @param nowMs                  the time leadership began; followers in the ISR count as caught up at
     *                               it, so none is shrunk before a full replica.lag.time.max.ms has passed
     */
    public LeaderState(int localBrokerId, int leaderEpoch, long leaderEpochStartOffset, int partitionEpoch,
                       List<Integer> replicas, List<Integer> isr, int minInsyncReplicas,
                       long replicaLagTimeMaxMs, LocalLog log, long nowMs) {
        this.replicas = List.copyOf(replicas);
        List<Integer> initialIsr = List.copyOf(isr);
        if (!this.replicas.contains(localBrokerId) || !initialIsr.contains(localBrokerId)) {
            throw new IllegalArgumentException("The leader " + localBrokerId + " must be in the replicas "
                    + replicas + " and the ISR " + isr);
        }
        if (!this.replicas.containsAll(initialIsr) || new LinkedHashSet<>(initialIsr).size() != initialIsr.size()) {
            throw new IllegalArgumentException("The ISR " + isr + " must be distinct members of the replicas " + replicas);
        }
        if (minInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1: " + minInsyncReplicas);
        }
        if (replicaLagTimeMaxMs <= 0) {
            throw new IllegalArgumentException("replica.lag.time.max.ms must be positive: " + replicaLagTimeMaxMs);
        }
        this.localBrokerId = localBrokerId;
        this.leaderEpoch = leaderEpoch;
        this.leaderEpochStartOffset = leaderEpochStartOffset;
        this.partitionEpoch = partitionEpoch;
        this.isr = initialIsr;
        this.minInsyncReplicas = minInsyncReplicas;
        this.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        this.log = Objects.requireNonNull(log, "log");
        for (int replica : this.replicas) {
            if (replica != localBrokerId) {
                followers.put(replica, new FollowerState(replica, initialIsr.contains(replica) ? nowMs : 0L));
            }
        }
    }

    // ---------------------------------------------------------------- follower fetches and high watermark

    /**
     * Records a follower's fetch. The caller has validated the epoch and that {@code fetchOffset} lies in
     * [logStartOffset, logEndOffset] of the leader (else OFFSET_OUT_OF_RANGE, never this call).
     *
     * @return whether the high watermark advanced
     */
    public boolean onFollowerFetch(int replicaId, long fetchOffset, long followerLogStartOffset, long nowMs) {
        FollowerState follower = followers.get(replicaId);
        if (follower == null) {
            throw new IllegalArgumentException("Replica " + replicaId + " is not a follower of this partition; replicas "
                    + replicas + ", leader " + localBrokerId);
        }
        long leaderLogEnd = log.logEndOffset();
        if (fetchOffset > leaderLogEnd) {
            throw new IllegalArgumentException("Fetch offset " + fetchOffset + " of replica " + replicaId
                    + " is past the leader's log end offset " + leaderLogEnd);
        }
        follower.onFetch(fetchOffset, followerLogStartOffset, leaderLogEnd, nowMs);
        return maybeAdvanceHighWatermark();
    }

    /**
     * Recomputes the high watermark and publishes it to the {@link LocalLog} if it moved forward.
     *
     * @return whether it advanced
     */
    public boolean maybeAdvanceHighWatermark() {
        if (isr.size() < minInsyncReplicas) {
            return false;
        }
        long candidate = log.logEndOffset();
        for (int replica : maximalIsr()) {
            if (replica != localBrokerId) {
                // UNKNOWN_OFFSET (-1) for a member that has not fetched yet keeps the HW where it is.
                candidate = Math.min(candidate, followers.get(replica).logEndOffset());
            }
        }
        long current = log.highWatermark();
        if (candidate <= current) {
            return false;
        }
        log.updateHighWatermark(candidate);
        return log.highWatermark() > current;
    }

    public long highWatermark() {
        return log.highWatermark();
    }

    // ---------------------------------------------------------------- ISR proposals

    /**
     * Proposes removing the ISR followers not caught up for more than replica.lag.time.max.ms (reason
     * {@link IsrProposal#LAGGING}). As in Kafka, a follower whose log end offset equals the leader's is
     * never lagging: on an idle partition followers stay in the ISR without new fetches being needed.
     * Empty while another change is pending or when nobody lags.
     */
    public Optional<IsrProposal> maybeShrinkIsr(long nowMs) {
        if (pendingIsrChange != null) {
            return Optional.empty();
        }
        long leaderLogEnd = log.logEndOffset();
        List<Integer> newIsr = new ArrayList<>(isr.size());
        for (int replica : isr) {
            if (replica == localBrokerId || !isOutOfSync(followers.get(replica), leaderLogEnd, nowMs)) {
                newIsr.add(replica);
            }
        }
        if (newIsr.size() == isr.size()) {
            return Optional.empty();
        }
        pendingIsrChange = new IsrProposal(newIsr, IsrProposal.LAGGING, partitionEpoch);
        return Optional.of(pendingIsrChange);
    }

    private boolean isOutOfSync(FollowerState follower, long leaderLogEnd, long nowMs) {
        return follower.logEndOffset() != leaderLogEnd && nowMs - follower.lastCaughtUpTimeMs() > replicaLagTimeMaxMs;
    }

    /**
     * Proposes adding {@code replicaId} to the ISR (reason {@link IsrProposal#CAUGHT_UP}) if it is an
     * assigned follower outside the ISR whose log end offset reached both the high watermark and the
     * start offset of the current leader epoch (docs/behaviours.md B35). Empty while another change is pending.
     */
    public Optional<IsrProposal> maybeExpandIsr(int replicaId) {
        FollowerState follower = followers.get(replicaId);
        if (pendingIsrChange != null || follower == null || isr.contains(replicaId)) {
            return Optional.empty();
        }
        long leo = follower.logEndOffset();
        if (leo == FollowerState.UNKNOWN_OFFSET || leo < log.highWatermark() || leo < leaderEpochStartOffset) {
            return Optional.empty();
        }
        List<Integer> newIsr = new ArrayList<>(isr);
        newIsr.add(replicaId);
        pendingIsrChange = new IsrProposal(newIsr, IsrProposal.CAUGHT_UP, partitionEpoch);
        return Optional.of(pendingIsrChange);
    }

    /**
     * The controller committed an ISR (ours or its own, e.g. after fencing a broker). Clears the pending
     * change. A commit at or below the partition epoch already known is stale and ignored.
     *
     * @return whether the high watermark advanced (a shrink can unblock it)
     */
    public boolean onIsrChangeCommitted(List<Integer> newIsr, int newPartitionEpoch) {
        if (newPartitionEpoch <= partitionEpoch) {
            return false;
        }
        List<Integer> committed = List.copyOf(newIsr);
        if (!replicas.containsAll(committed)) {
            throw new IllegalArgumentException("Committed ISR " + newIsr + " is not within the replicas " + replicas);
        }
        isr = committed;
        partitionEpoch = newPartitionEpoch;
        pendingIsrChange = null;
        return maybeAdvanceHighWatermark();
    }

    /**
     * The controller committed a new assignment under the same leader epoch (a reassignment added or
     * removed replicas). Known followers keep their state; a new one starts unknown and out of the ISR.
     *
     * <p>The assignment may come at the partition epoch this leader already has: the controller answers the
     * AlterPartition whose ISR completes a reassignment with the completed state, whose ISR and epoch the
     * leader takes at once, and the replicas follow with the metadata. A pending change made since at that
     * epoch stays pending unless it adds a replica the assignment no longer has: the controller refuses an ISR
     * outside the replicas, so that one can never commit, and kept it would hold the high watermark at a
     * replica that no longer fetches (docs/behaviours.md B154).
     *
     * @return whether the high watermark advanced (a removed laggard can unblock it)
     */
    public boolean onAssignmentCommitted(List<Integer> newReplicas, List<Integer> newIsr, int newPartitionEpoch,
                                         long nowMs) {
        if (newPartitionEpoch < partitionEpoch
                || (newPartitionEpoch == partitionEpoch && newReplicas.equals(replicas))) {
            return false;
        }
        if (!newReplicas.contains(localBrokerId) || !newReplicas.containsAll(newIsr)) {
            throw new IllegalArgumentException("Assignment " + newReplicas + " / ISR " + newIsr
                    + " must contain the leader " + localBrokerId + " and the ISR");
        }
        replicas = List.copyOf(newReplicas);
        followers.keySet().retainAll(replicas);
        for (int replica : replicas) {
            if (replica != localBrokerId && !followers.containsKey(replica)) {
                followers.put(replica, new FollowerState(replica, newIsr.contains(replica) ? nowMs : 0L));
            }
        }
        boolean sameEpoch = newPartitionEpoch == partitionEpoch;
        isr = List.copyOf(newIsr);
        partitionEpoch = newPartitionEpoch;
        if (!sameEpoch || (pendingIsrChange != null && !replicas.containsAll(pendingIsrChange.newIsr()))) {
            pendingIsrChange = null;
        }
        return maybeAdvanceHighWatermark();
    }

    /**
     * The topic's min.insync.replicas changed. A lower value can unblock the high watermark.
     *
     * @return whether the high watermark advanced
     */
    public boolean updateMinInsyncReplicas(int newMinInsyncReplicas) {
        if (newMinInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1: " + newMinInsyncReplicas);
        }
        minInsyncReplicas = newMinInsyncReplicas;
        return maybeAdvanceHighWatermark();
    }

    /**
     * The controller said the pending change was not applied: the committed ISR stays as it was. Never for a
     * change whose fate is unknown (no answer, a failed request): it may still be committed, so it stays in
     * the maximal ISR until an answer or newer metadata (docs/behaviours.md B152).
     */
    public void onIsrChangeFailed() {
        pendingIsrChange = null;
    }

    public List<Integer> isr() {
        return isr;
    }

    /** The committed ISR plus any replica a pending expansion adds. */
    public List<Integer> maximalIsr() {
        if (pendingIsrChange == null) {
            return isr;
        }
        LinkedHashSet<Integer> union = new LinkedHashSet<>(isr);
        union.addAll(pendingIsrChange.newIsr());
        return List.copyOf(union);
    }

    public Optional<IsrProposal> pendingIsrChange() {
        return Optional.ofNullable(pendingIsrChange);
    }

    // ---------------------------------------------------------------- produce with acks=all

    /** Before appending an acks=all batch: NOT_ENOUGH_REPLICAS if the committed ISR is below the minimum. */
    public Errors checkEnoughReplicasForAppend() {
        return isr.size() < minInsyncReplicas ? Errors.NOT_ENOUGH_REPLICAS : Errors.NONE;
    }

    /**
     * After appending an acks=all batch ending at {@code lastOffset}: DONE once the high watermark passed
     * it; NOT_ENOUGH_REPLICAS_AFTER_APPEND if the committed ISR fell below the minimum meanwhile (the high
     * watermark cannot advance then, so waiting would only end in a timeout); else PENDING.
     */
    public AppendStatus checkAppendCompleted(long lastOffset) {
        if (log.highWatermark() > lastOffset) {
            return AppendStatus.DONE;
        }
        return isr.size() < minInsyncReplicas ? AppendStatus.NOT_ENOUGH_REPLICAS_AFTER_APPEND : AppendStatus.PENDING;
    }

    // ---------------------------------------------------------------- DeleteRecords

    /**
     * The DeleteRecords low watermark (docs/behaviours.md B25): the minimum log start offset over the leader
     * and every assigned follower in {@code liveReplicas}. Dead followers are skipped; a live one that has
     * not fetched since this leadership began is unknown and yields {@link FollowerState#UNKNOWN_OFFSET},
     * so DeleteRecords never reports a start offset a live replica may not have reached.
     */
    public long lowWatermark(Set<Integer> liveReplicas) {
        long low = log.logStartOffset();
        for (FollowerState follower : followers.values()) {
            if (liveReplicas.contains(follower.replicaId())) {
                low = Math.min(low, follower.logStartOffset());
            }
        }
        return low;
    }

    // ---------------------------------------------------------------- accessors

    public Optional<FollowerState> follower(int replicaId) {
        return Optional.ofNullable(followers.get(replicaId));
    }

    public Map<Integer, FollowerState> followers() {
        return Collections.unmodifiableMap(followers);
    }

    public int localBrokerId() {
        return localBrokerId;
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    public long leaderEpochStartOffset() {
        return leaderEpochStartOffset;
    }

    public int partitionEpoch() {
        return partitionEpoch;
    }

    public List<Integer> replicas() {
        return replicas;
    }

    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    public long replicaLagTimeMaxMs() {
        return replicaLagTimeMaxMs;
    }

    @Override
    public String toString() {
        return "LeaderState(leader=" + localBrokerId + ", leaderEpoch=" + leaderEpoch + ", partitionEpoch="
                + partitionEpoch + ", isr=" + isr + ", pending=" + pendingIsrChange + ", hw=" + log.highWatermark()
                + ", leo=" + log.logEndOffset() + ", followers=" + followers.values() + ")";
    }
}
