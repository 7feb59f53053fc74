package io.tideline.node.group;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A classic group's rebalance, as Kafka's classic group coordinator runs it (docs/kafka-protocol.md, Consumer
 * groups): PreparingRebalance waits for every member to rejoin (the first rebalance of an Empty group also waits
 * group.initial.rebalance.delay.ms for more), or for the rebalance timeout, which drops those that did not;
 * CompletingRebalance gives the members the new generation and waits for the leader's assignment, which is stored
 * before the group goes Stable and the members get their part. A member whose session runs out leaves, and the
 * others rebalance. {@link GroupMembership} decides when a request starts or advances a rebalance; the timers here
 * end one.
 *
 * <p>Every method is called with the group's monitor held, and every timer takes it: not thread-safe on its own.
 */
final class GroupRebalance {
    private static final Logger log = LoggerFactory.getLogger(GroupRebalance.class);
    private final GroupRegistry registry;

    GroupRebalance(GroupRegistry registry) {
        this.registry = registry;
    }

    /** Starts a rebalance (again): PreparingRebalance, after the initial delay when the group is Empty. */
    void prepare(ClassicGroup g) {
        if (g.is(GroupState.COMPLETING_REBALANCE)) {
            failSyncs(g, Errors.REBALANCE_IN_PROGRESS);
        }
        GroupRegistry.cancel(g.joinTimer);
        GroupRegistry.cancel(g.syncTimer);
        g.assigning = false;
        int id = ++g.rebalanceId;
        int rebalanceTimeout = g.rebalanceTimeoutMs();
        if (g.is(GroupState.EMPTY)) {
            int delay = Math.min(registry.config.initialRebalanceDelayMs(), rebalanceTimeout);
            g.initialDelay = true;
            g.joinedDuringDelay = false;
            g.initialDelayRemainingMs = rebalanceTimeout - delay;
            g.state = GroupState.PREPARING_REBALANCE;
            g.joinTimer = schedule("group-initial-delay", g, () -> initialDelayOver(g, id), delay);
            return;
        }
        g.initialDelay = false;
        g.state = GroupState.PREPARING_REBALANCE;
        g.joinTimer = schedule("group-join", g, () -> {
            synchronized (g) {
                if (g.rebalanceId == id) {
                    completeJoin(g);
                }
            }
        }, rebalanceTimeout);
        tryCompleteJoin(g);
    }

    /** Every member that joined during the delay extends it by one more delay, up to the rebalance timeout. */
    private void initialDelayOver(ClassicGroup g, int id) {
        synchronized (g) {
            if (g.rebalanceId != id || !g.is(GroupState.PREPARING_REBALANCE)) {
                return;
            }
            if (g.joinedDuringDelay && g.initialDelayRemainingMs > 0) {
                long delay = Math.min(registry.config.initialRebalanceDelayMs(), g.initialDelayRemainingMs);
                g.initialDelayRemainingMs -= delay;
                g.joinedDuringDelay = false;
                g.joinTimer = schedule("group-initial-delay", g, () -> initialDelayOver(g, id), delay);
                return;
            }
            g.initialDelay = false;
            completeJoin(g);
        }
    }

    void tryCompleteJoin(ClassicGroup g) {
        if (g.is(GroupState.PREPARING_REBALANCE) && !g.initialDelay && g.allRejoined()) {
            completeJoin(g);
        }
    }

    /** The rebalance's join phase ends: members that did not rejoin are out, the rest get the new generation. */
    private void completeJoin(ClassicGroup g) {
        if (!g.is(GroupState.PREPARING_REBALANCE)) {
            return;
        }
        GroupRegistry.cancel(g.joinTimer);
        g.initialDelay = false;
        for (GroupMember m : new ArrayList<>(g.members.values())) {
            if (m.awaitingJoin == null) {
                remove(g, m, Errors.UNKNOWN_MEMBER_ID);
            }
        }
        g.generation++;
        int id = ++g.rebalanceId;
        if (g.members.isEmpty()) {
            g.state = GroupState.EMPTY;
            g.protocol = "";
            g.leaderId = "";
            registry.store(g);
            return;
        }
        g.protocol = g.selectProtocol().orElseThrow();
        if (!g.members.containsKey(g.leaderId)) {
            g.leaderId = g.members.keySet().iterator().next();
        }
        g.state = GroupState.COMPLETING_REBALANCE;
        long now = registry.time.milliseconds();
        for (GroupMember m : g.members.values()) {
            CompletableFuture<JoinGroupResponseData> waiting = m.awaitingJoin;
            m.awaitingJoin = null;
            m.lastHeartbeatMs = now;
            waiting.complete(joinAnswer(g, m));
        }
        // Members that never send SyncGroup (the leader above all) must not hold the group forever.
        g.syncTimer = schedule("group-sync", g, () -> syncTimedOut(g, id), g.rebalanceTimeoutMs());
    }

    private void syncTimedOut(ClassicGroup g, int id) {
        synchronized (g) {
            if (g.rebalanceId != id || !g.is(GroupState.COMPLETING_REBALANCE)) {
                return;
            }
            for (GroupMember m : new ArrayList<>(g.members.values())) {
                if (m.awaitingSync == null) {
                    remove(g, m, Errors.UNKNOWN_MEMBER_ID);
                }
            }
            prepare(g);
        }
    }

    static JoinGroupResponseData joinAnswer(ClassicGroup g, GroupMember m) {
        JoinGroupResponseData r = new JoinGroupResponseData().setGenerationId(g.generation)
                .setProtocolType(g.protocolType).setProtocolName(g.protocol).setLeader(g.leaderId)
                .setMemberId(m.memberId);
        if (m.memberId.equals(g.leaderId)) {
            for (GroupMember each : g.members.values()) {
                r.members().add(new JoinGroupResponseData.JoinGroupResponseMember().setMemberId(each.memberId)
                        .setGroupInstanceId(each.groupInstanceId).setMetadata(each.metadata(g.protocol)));
            }
        }
        return r;
    }

    /** The leader's assignment is stored with the group's metadata before anyone gets it. */
    void assign(ClassicGroup g, SyncGroupRequestData req) {
        Map<String, byte[]> assignments = new HashMap<>();
        req.assignments().forEach(a -> assignments.put(a.memberId(), a.assignment()));
        for (GroupMember m : g.members.values()) {
            m.assignment = assignments.getOrDefault(m.memberId, new byte[0]);
        }
        g.assigning = true;
        int generation = g.generation;
        registry.store(g).thenAccept(error -> {
            synchronized (g) {
                if (!g.is(GroupState.COMPLETING_REBALANCE) || g.generation != generation) {
                    return;
                }
                g.assigning = false;
                if (error == Errors.NONE) {
                    GroupRegistry.cancel(g.syncTimer);
                    g.state = GroupState.STABLE;
                    for (GroupMember m : g.members.values()) {
                        if (m.awaitingSync != null) {
                            m.awaitingSync.complete(syncAnswer(g, m));
                            m.awaitingSync = null;
                        }
                    }
                } else {
                    g.members.values().forEach(m -> m.assignment = new byte[0]);
                    failSyncs(g, error);
                    prepare(g);
                }
            }
        });
    }

    static SyncGroupResponseData syncAnswer(ClassicGroup g, GroupMember m) {
        return new SyncGroupResponseData().setProtocolType(g.protocolType).setProtocolName(g.protocol)
                .setAssignment(m.assignment);
    }

    private static void failSyncs(ClassicGroup g, Errors error) {
        for (GroupMember m : g.members.values()) {
            if (m.awaitingSync != null) {
                m.awaitingSync.complete(GroupResponses.syncError(error));
                m.awaitingSync = null;
            }
        }
    }

    /** A member left or expired: the others rebalance (called with the group's monitor held). */
    void afterDeparture(ClassicGroup g) {
        if (g.is(GroupState.STABLE) || g.is(GroupState.COMPLETING_REBALANCE)) {
            prepare(g);
        } else if (g.is(GroupState.PREPARING_REBALANCE)) {
            tryCompleteJoin(g);
        }
    }

    static void remove(ClassicGroup g, GroupMember m, Errors error) {
        g.members.remove(m.memberId);
        if (m.groupInstanceId != null) {
            g.staticMembers.remove(m.groupInstanceId, m.memberId);
        }
        GroupRegistry.cancel(m.sessionTimer);
        if (m.awaitingJoin != null) {
            m.awaitingJoin.complete(GroupResponses.joinError(error, m.memberId));
            m.awaitingJoin = null;
        }
        if (m.awaitingSync != null) {
            m.awaitingSync.complete(GroupResponses.syncError(error));
            m.awaitingSync = null;
        }
    }

    /**
     * A timer of group {@code g} that acts only while this broker still coordinates it and {@code g} is the group
     * in memory. A coordinator that lost the group to another broker hears no more of its members, whose
     * heartbeats go to the new one: its session timers would expire them all and store the group Empty at the
     * next generation, which the controller accepts (the generation is the one it expects), and so throw the
     * members out of their group at the new coordinator. Asking for ownership also drops the stale group.
     */
    Scheduler.Cancellable schedule(String name, ClassicGroup g, Runnable action, long delayMs) {
        return registry.scheduler.scheduleOnce(name, () -> {
            if (registry.ownership(g.groupId) == Errors.NONE && registry.groups().get(g.groupId) == g) {
                action.run();
            }
        }, delayMs);
    }

    /**
     * One timer per member, re-armed for the rest of the session when heartbeats came meanwhile (cheaper than
     * re-scheduling on every heartbeat). A member waiting in JoinGroup is kept: the rebalance timeout ends that
     * wait.
     */
    void watchSession(ClassicGroup g, GroupMember m, long delayMs) {
        m.sessionTimer = schedule("group-session", g, () -> checkSession(g, m), delayMs);
    }

    private void checkSession(ClassicGroup g, GroupMember m) {
        synchronized (g) {
            if (g.members.get(m.memberId) != m) {
                return;
            }
            long left = m.lastHeartbeatMs + m.sessionTimeoutMs - registry.time.milliseconds();
            if (m.awaitingJoin != null || left > 0) {
                watchSession(g, m, m.awaitingJoin != null ? m.sessionTimeoutMs : left);
                return;
            }
            log.info("Member {} of group {} expired: no heartbeat for {} ms", m.memberId, g.groupId, m.sessionTimeoutMs);
            remove(g, m, Errors.UNKNOWN_MEMBER_ID);
            afterDeparture(g);
        }
    }
}
