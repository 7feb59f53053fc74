package io.tideline.replication.cluster;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.replication.leader.IsrProposal;
import io.tideline.replication.server.IsrChangeResult;
import io.tideline.replication.server.IsrChannel;
import io.tideline.replication.server.LeaderAndIsr;
import io.tideline.replication.server.PartitionSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * A test metadata quorum for replication: one serialized "controller" thread owns each partition's
 * committed state and applies AlterPartition with the real controller's checks (leader epoch, partition
 * epoch, ISR within the replicas and containing the leader), then publishes the new state to every
 * replica, like the metadata log does. The ISR changes only here.
 */
final class TestController implements IsrChannel, AutoCloseable {
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "test-controller");
        t.setDaemon(true);
        return t;
    });
    private final Map<TopicPartition, LeaderAndIsr> states = new HashMap<>();
    private final Map<TopicPartition, PartitionSettings> settings = new HashMap<>();
    private final List<String> isrHistory = new ArrayList<>();
    /** Publishes a committed state to a broker: (brokerId, state). */
    private final BiConsumer<Integer, LeaderAndIsr> publisher;
    private volatile boolean refuseAll;
    private volatile boolean holdAll;
    /** AlterPartition requests held unanswered while {@link #holdAll}; guarded by itself. */
    private final List<Runnable> held = new ArrayList<>();
    private final AtomicInteger alterPartitionRequests = new AtomicInteger();

    TestController(BiConsumer<Integer, LeaderAndIsr> publisher) {
        this.publisher = publisher;
    }

    PartitionSettings settings(TopicPartition tp) {
        return call(() -> settings.get(tp));
    }

    /** Creates a partition led by the first replica with every replica in the ISR. */
    LeaderAndIsr createPartition(TopicPartition tp, List<Integer> replicas, PartitionSettings partitionSettings) {
        return call(() -> {
            settings.put(tp, partitionSettings);
            return commit(new LeaderAndIsr(tp, "id-" + tp.topic(), replicas.get(0), 0, 0, replicas, replicas));
        });
    }

    LeaderAndIsr state(TopicPartition tp) {
        return call(() -> states.get(tp));
    }

    /** A clean election: {@code newLeader} must be in the ISR; leader epoch +1. */
    LeaderAndIsr electLeader(TopicPartition tp, int newLeader) {
        return call(() -> {
            LeaderAndIsr s = states.get(tp);
            if (!s.isr().contains(newLeader)) {
                throw new IllegalArgumentException(newLeader + " is not in the ISR " + s.isr());
            }
            return commit(new LeaderAndIsr(tp, s.topicId(), newLeader, s.leaderEpoch() + 1, s.partitionEpoch() + 1,
                    s.replicas(), s.isr()));
        });
    }

    /** The controller fences a broker: out of the ISR (never emptying it), leadership moves if it led. */
    LeaderAndIsr fence(TopicPartition tp, int broker) {
        return call(() -> {
            LeaderAndIsr s = states.get(tp);
            List<Integer> isr = new ArrayList<>(s.isr());
            if (isr.size() > 1) {
                isr.remove(Integer.valueOf(broker));
            }
            int leader = s.leaderId();
            int epoch = s.leaderEpoch();
            if (leader == broker) {
                leader = isr.stream().filter(b -> b != broker).findFirst().orElse(LeaderAndIsr.NO_LEADER);
                epoch++;
            }
            return commit(new LeaderAndIsr(tp, s.topicId(), leader, epoch, s.partitionEpoch() + 1, s.replicas(), isr));
        });
    }

    /**
     * Reassigns {@code tp} to {@code replicas} under the same leader and leader epoch (new replicas start
     * outside the ISR, removed ones leave it), as a reassignment's first step does; partition epoch +1.
     */
    LeaderAndIsr reassign(TopicPartition tp, List<Integer> replicas) {
        return call(() -> {
            LeaderAndIsr s = states.get(tp);
            if (!replicas.contains(s.leaderId())) {
                throw new IllegalArgumentException("The leader " + s.leaderId() + " must stay in " + replicas);
            }
            List<Integer> isr = new ArrayList<>(s.isr());
            isr.retainAll(replicas);
            return commit(new LeaderAndIsr(tp, s.topicId(), s.leaderId(), s.leaderEpoch(), s.partitionEpoch() + 1,
                    List.copyOf(replicas), isr));
        });
    }

    /** Publishes the current state again to one broker (it restarted or was unfenced). */
    void republish(TopicPartition tp, int broker) {
        call(() -> {
            publisher.accept(broker, states.get(tp));
            return null;
        });
    }

    /**
     * Every later AlterPartition is refused with INELIGIBLE_REPLICA: the controller evaluated it at the current
     * partition epoch and did not apply it, so the leader forgets it (docs/behaviours.md B152).
     */
    void refuseIsrChanges(boolean refuse) {
        this.refuseAll = refuse;
    }

    /**
     * Later AlterPartition requests are held unanswered until {@link #releaseIsrChanges()} (a slow
     * controller): lets a test observe a leader with a change in flight.
     */
    void holdIsrChanges() {
        this.holdAll = true;
    }

    /** Stops holding and answers the held requests in arrival order. */
    void releaseIsrChanges() {
        List<Runnable> answers;
        synchronized (held) {
            holdAll = false;
            answers = List.copyOf(held);
            held.clear();
        }
        answers.forEach(Runnable::run);
    }

    /** AlterPartition requests received so far, answered or not. */
    int alterPartitionRequests() {
        return alterPartitionRequests.get();
    }

    List<String> isrHistory() {
        return call(() -> List.copyOf(isrHistory));
    }

    @Override
    public CompletableFuture<IsrChangeResult> alterPartition(TopicPartition tp, String topicId, int leaderEpoch,
                                                             IsrProposal proposal) {
        alterPartitionRequests.incrementAndGet();
        synchronized (held) {
            if (holdAll) {
                CompletableFuture<IsrChangeResult> later = new CompletableFuture<>();
                held.add(() -> answer(tp, leaderEpoch, proposal).whenComplete((r, e) -> {
                    if (e != null) {
                        later.completeExceptionally(e);
                    } else {
                        later.complete(r);
                    }
                }));
                return later;
            }
        }
        return answer(tp, leaderEpoch, proposal);
    }

    private CompletableFuture<IsrChangeResult> answer(TopicPartition tp, int leaderEpoch, IsrProposal proposal) {
        return CompletableFuture.supplyAsync(() -> {
            LeaderAndIsr s = states.get(tp);
            if (s == null) {
                return IsrChangeResult.refused(Errors.UNKNOWN_TOPIC_OR_PARTITION);
            }
            if (refuseAll) {
                return IsrChangeResult.refused(Errors.INELIGIBLE_REPLICA);
            }
            if (leaderEpoch != s.leaderEpoch()) {
                return IsrChangeResult.refused(Errors.FENCED_LEADER_EPOCH);
            }
            if (proposal.partitionEpoch() != s.partitionEpoch()) {
                return IsrChangeResult.refused(Errors.INVALID_UPDATE_VERSION);
            }
            List<Integer> isr = proposal.newIsr();
            if (!isr.contains(s.leaderId()) || !s.replicas().containsAll(isr)
                    || new LinkedHashSet<>(isr).size() != isr.size()) {
                return IsrChangeResult.refused(Errors.INVALID_REQUEST);
            }
            isrHistory.add(tp + " " + s.isr() + " -> " + isr + " " + proposal.reason());
            LeaderAndIsr next = commit(new LeaderAndIsr(tp, s.topicId(), s.leaderId(), s.leaderEpoch(),
                    s.partitionEpoch() + 1, s.replicas(), isr));
            return IsrChangeResult.committed(next.isr(), next.partitionEpoch());
        }, thread);
    }

    private LeaderAndIsr commit(LeaderAndIsr next) {
        states.put(next.topicPartition(), next);
        for (int replica : next.replicas()) {
            publisher.accept(replica, next);
        }
        return next;
    }

    private <T> T call(java.util.concurrent.Callable<T> task) {
        try {
            return thread.submit(task).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Controller call failed", e);
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
