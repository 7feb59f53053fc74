package io.tideline.node.group;

import static io.tideline.node.group.GroupRebalance.joinAnswer;
import static io.tideline.node.group.GroupRebalance.syncAnswer;

import io.tideline.common.errors.Errors;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic protocol's membership rules (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, session expiry, static
 * members), as Kafka's classic group coordinator applies them: docs/kafka-protocol.md, Consumer groups, and
 * docs/behaviours.md B174-B177 for static membership. Nothing here blocks:
 * a JoinGroup waiting for the rebalance and a SyncGroup waiting for the leader's assignment are futures
 * completed by a later request or a timer on the injected scheduler. Thread-safe (see {@link GroupRegistry}).
 * The rebalance these requests start and advance runs in {@link GroupRebalance}.
 */
final class GroupMembership {
    private static final Logger log = LoggerFactory.getLogger(GroupMembership.class);
    /** Kafka's longest group.instance.id, the bound its clients check (docs/behaviours.md B177). */
    static final int MAX_GROUP_INSTANCE_ID_LENGTH = 249;
    private final GroupRegistry registry;
    private final GroupRebalance rebalance;

    GroupMembership(GroupRegistry registry) {
        this.registry = registry;
        this.rebalance = new GroupRebalance(registry);
        registry.sessions(rebalance::watchSession);
    }

    CompletableFuture<JoinGroupResponseData> join(JoinGroupRequestData req, String clientId, String clientHost,
                                                  short version) {
        String memberId = req.memberId() == null ? "" : req.memberId();
        Errors owner = registry.ownership(req.groupId());
        if (owner != Errors.NONE) {
            return done(GroupResponses.joinError(owner, memberId));
        }
        String instanceId = req.groupInstanceId();
        if (instanceId != null && (instanceId.isEmpty() || instanceId.length() > MAX_GROUP_INSTANCE_ID_LENGTH)) {
            // kafka-clients never sends such an id (its ConsumerConfig refuses it); the bound keeps what the
            // group stores and echoes small (docs/behaviours.md B177).
            return done(GroupResponses.joinError(Errors.INVALID_REQUEST, memberId));
        }
        GroupConfig config = registry.config;
        if (req.sessionTimeoutMs() < config.minSessionTimeoutMs() || req.sessionTimeoutMs() > config.maxSessionTimeoutMs()) {
            return done(GroupResponses.joinError(Errors.INVALID_SESSION_TIMEOUT, memberId));
        }
        GroupRegistry.Lookup found = registry.find(req.groupId(), memberId.isEmpty());
        if (found.error() != Errors.NONE) {
            return done(GroupResponses.joinError(found.error(), memberId));
        }
        if (found.group() == null) {
            return done(GroupResponses.joinError(Errors.UNKNOWN_MEMBER_ID, memberId));
        }
        LinkedHashMap<String, byte[]> protocols = new LinkedHashMap<>();
        req.protocols().forEach(p -> protocols.putIfAbsent(p.name(), p.metadata()));
        // v0 has no rebalance timeout: the session timeout stands for it, as in Kafka.
        int rebalanceTimeoutMs = req.rebalanceTimeoutMs() < 0 ? req.sessionTimeoutMs() : req.rebalanceTimeoutMs();
        Join join = new Join(memberId, instanceId, clientId == null ? "" : clientId, clientHost, req.sessionTimeoutMs(),
                rebalanceTimeoutMs, req.protocolType(), protocols, version);
        ClassicGroup g = found.group();
        synchronized (g) {
            if (g.is(GroupState.DEAD)) {
                return done(GroupResponses.joinError(Errors.COORDINATOR_NOT_AVAILABLE, memberId));
            }
            if (!g.supports(join.protocolType, protocols)) {
                return done(GroupResponses.joinError(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
            }
            if (!memberId.isEmpty()) {
                return joinKnown(g, join);
            }
            return instanceId == null ? joinNew(g, join) : joinNewStatic(g, join);
        }
    }

    private record Join(String memberId, String groupInstanceId, String clientId, String clientHost,
                        int sessionTimeoutMs, int rebalanceTimeoutMs, String protocolType,
                        LinkedHashMap<String, byte[]> protocols, short version) {
    }

    private CompletableFuture<JoinGroupResponseData> joinNew(ClassicGroup g, Join join) {
        if (g.size() >= registry.config.maxSize()) {
            return done(GroupResponses.joinError(Errors.GROUP_MAX_SIZE_REACHED, ""));
        }
        String memberId = join.clientId + "-" + UUID.randomUUID();
        if (join.version >= 4) {
            // KIP-394: the member gets its id first and joins with it, so a join retried after a lost answer
            // does not leave an orphan member behind. The id is dropped if it does not come back in a session.
            g.pendingMembers.put(memberId, rebalance.schedule("group-pending-member", g, () -> expirePending(g, memberId),
                    join.sessionTimeoutMs));
            return done(GroupResponses.joinError(Errors.MEMBER_ID_REQUIRED, memberId));
        }
        return addAndRebalance(g, memberId, join);
    }

    /**
     * A JoinGroup with a group.instance.id and no member id: a known instance takes its slot back under a new
     * member id (B174), an unknown one joins at once. Static members get no MEMBER_ID_REQUIRED round: the
     * instance id already tells a retried join from a new member, which is what KIP-394's round is for.
     */
    private CompletableFuture<JoinGroupResponseData> joinNewStatic(ClassicGroup g, Join join) {
        String existing = g.staticMembers.get(join.groupInstanceId);
        if (existing != null) {
            // A replacement adds no member, so group.max.size does not apply to it (B177).
            return replaceStaticMember(g, g.members.get(existing), join);
        }
        if (g.size() >= registry.config.maxSize()) {
            return done(GroupResponses.joinError(Errors.GROUP_MAX_SIZE_REACHED, ""));
        }
        // Kafka's form of a static member's id: the instance id, then a random part.
        return addAndRebalance(g, join.groupInstanceId + "-" + UUID.randomUUID(), join);
    }

    /**
     * KIP-345's check of a request that names a member: a group.instance.id held by another member id fences the
     * request (FENCED_INSTANCE_ID, B175), an instance id the group does not know is UNKNOWN_MEMBER_ID. NONE when
     * there is no instance id or it is held by {@code memberId}; whether the member exists is the caller's check.
     */
    private static Errors checkInstance(ClassicGroup g, String memberId, String instanceId) {
        if (instanceId == null) {
            return Errors.NONE;
        }
        String holder = g.staticMembers.get(instanceId);
        if (holder == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return holder.equals(memberId) ? Errors.NONE : Errors.FENCED_INSTANCE_ID;
    }

    private CompletableFuture<JoinGroupResponseData> replaceStaticMember(ClassicGroup g, GroupMember old, Join join) {
        String newId = join.groupInstanceId + "-" + UUID.randomUUID();
        GroupMember fresh = old.withMemberId(newId);
        // The old incarnation's waiting requests are answered now: it is fenced (B175).
        if (old.awaitingJoin != null) {
            old.awaitingJoin.complete(GroupResponses.joinError(Errors.FENCED_INSTANCE_ID, old.memberId));
            old.awaitingJoin = null;
        }
        if (old.awaitingSync != null) {
            old.awaitingSync.complete(GroupResponses.syncError(Errors.FENCED_INSTANCE_ID));
            old.awaitingSync = null;
        }
        GroupRegistry.cancel(old.sessionTimer);
        String previousLeader = g.leaderId;
        swap(g, old, fresh);
        log.info("Static member {} of group {} rejoined in state {}: member id {} replaces {}", join.groupInstanceId,
                g.groupId, g.state.kafkaName(), newId, old.memberId);
        fresh.protocols = join.protocols;
        fresh.sessionTimeoutMs = join.sessionTimeoutMs;
        fresh.rebalanceTimeoutMs = join.rebalanceTimeoutMs;
        fresh.lastHeartbeatMs = registry.time.milliseconds();
        rebalance.watchSession(g, fresh, fresh.sessionTimeoutMs);
        fresh.awaitingJoin = new CompletableFuture<>();
        CompletableFuture<JoinGroupResponseData> answer = fresh.awaitingJoin;
        switch (g.state) {
            case STABLE:
                if (g.protocol.equals(g.selectProtocol().orElse(""))) {
                    storeReplacement(g, old, fresh, answer, previousLeader, join.version);
                } else {
                    rebalance.prepare(g);
                }
                break;
            case COMPLETING_REBALANCE:
                // The leader may be computing an assignment that names the old member id: the new id would get
                // nothing from it, so this generation is abandoned (as in Kafka).
                rebalance.prepare(g);
                break;
            default:
                rebalance.tryCompleteJoin(g);
        }
        return answer;
    }

    /** Puts {@code to} in the place of {@code from}: member map, instance id, leadership. */
    private static void swap(ClassicGroup g, GroupMember from, GroupMember to) {
        g.members.remove(from.memberId);
        g.members.put(to.memberId, to);
        g.staticMembers.put(to.groupInstanceId, to.memberId);
        if (g.leaderId.equals(from.memberId)) {
            g.leaderId = to.memberId;
        }
    }

    /**
     * A static member's rejoin into a Stable group whose protocol it does not change: no rebalance (B174). The
     * new member id is stored before the member hears it, so that the controller accepts its commits and another
     * coordinator loading the group knows it. If the store fails the old member, which the replacement copied
     * and left as it was, is put back, as Kafka reverts.
     */
    private void storeReplacement(ClassicGroup g, GroupMember old, GroupMember fresh,
                                  CompletableFuture<JoinGroupResponseData> answer, String previousLeader, short version) {
        registry.store(g).thenAccept(error -> {
            synchronized (g) {
                if (fresh.awaitingJoin != answer) {
                    return; // answered meanwhile: fenced by a later replacement, dropped, or in a rebalance
                }
                if (!g.is(GroupState.STABLE)) {
                    return; // a rebalance began meanwhile; the member counts as rejoined and completeJoin answers it
                }
                fresh.awaitingJoin = null;
                if (error == Errors.NONE) {
                    answer.complete(staticRejoinAnswer(g, fresh, previousLeader, version));
                    return;
                }
                if (g.members.get(fresh.memberId) == fresh) {
                    GroupRegistry.cancel(fresh.sessionTimer);
                    swap(g, fresh, old);
                    rebalance.watchSession(g, old, Math.max(0, old.lastHeartbeatMs + old.sessionTimeoutMs
                            - registry.time.milliseconds()));
                }
                answer.complete(GroupResponses.joinError(error, ""));
            }
        });
    }

    /**
     * The answer to a static rejoin without a rebalance. From v9 a rejoining leader gets the members with
     * skip_assignment set, so it learns the group without sending a new assignment; before v9 the answer names
     * the leader as it was, so the old leader's new incarnation takes itself for a follower and just syncs.
     */
    private static JoinGroupResponseData staticRejoinAnswer(ClassicGroup g, GroupMember m, String previousLeader,
                                                            short version) {
        if (version >= 9) {
            JoinGroupResponseData r = joinAnswer(g, m);
            return r.setSkipAssignment(m.memberId.equals(g.leaderId));
        }
        return new JoinGroupResponseData().setGenerationId(g.generation).setProtocolType(g.protocolType)
                .setProtocolName(g.protocol).setLeader(previousLeader).setMemberId(m.memberId);
    }

    private CompletableFuture<JoinGroupResponseData> joinKnown(ClassicGroup g, Join join) {
        Errors instance = checkInstance(g, join.memberId, join.groupInstanceId);
        if (instance != Errors.NONE) {
            return done(GroupResponses.joinError(instance, join.memberId));
        }
        var pending = g.pendingMembers.remove(join.memberId);
        if (pending != null) {
            pending.cancel();
            return addAndRebalance(g, join.memberId, join);
        }
        GroupMember m = g.members.get(join.memberId);
        if (m == null) {
            return done(GroupResponses.joinError(Errors.UNKNOWN_MEMBER_ID, join.memberId));
        }
        switch (g.state) {
            case PREPARING_REBALANCE:
                return updateAndRebalance(g, m, join);
            case COMPLETING_REBALANCE:
                // The member missed the join answer (a retry): give it again unless its protocols changed.
                return m.sameProtocols(join.protocols) ? done(joinAnswer(g, m)) : updateAndRebalance(g, m, join);
            case STABLE:
                // A leader's rejoin or new protocols (e.g. a changed subscription) start a rebalance.
                return m.memberId.equals(g.leaderId) || !m.sameProtocols(join.protocols)
                        ? updateAndRebalance(g, m, join) : done(joinAnswer(g, m));
            default:
                return done(GroupResponses.joinError(Errors.UNKNOWN_MEMBER_ID, join.memberId));
        }
    }

    private CompletableFuture<JoinGroupResponseData> addAndRebalance(ClassicGroup g, String memberId, Join join) {
        GroupMember m = new GroupMember(memberId, join.groupInstanceId, join.clientId, join.clientHost,
                join.sessionTimeoutMs, join.rebalanceTimeoutMs, join.protocols);
        if (g.members.isEmpty()) {
            g.protocolType = join.protocolType;
        }
        m.awaitingJoin = new CompletableFuture<>();
        m.lastHeartbeatMs = registry.time.milliseconds();
        g.members.put(memberId, m);
        if (m.groupInstanceId != null) {
            g.staticMembers.put(m.groupInstanceId, memberId);
        }
        if (g.initialDelay) {
            g.joinedDuringDelay = true;
        }
        rebalance.watchSession(g, m, m.sessionTimeoutMs);
        CompletableFuture<JoinGroupResponseData> answer = m.awaitingJoin;
        if (g.is(GroupState.PREPARING_REBALANCE)) {
            rebalance.tryCompleteJoin(g);
        } else {
            rebalance.prepare(g);
        }
        return answer;
    }

    private CompletableFuture<JoinGroupResponseData> updateAndRebalance(ClassicGroup g, GroupMember m, Join join) {
        m.protocols = join.protocols;
        m.sessionTimeoutMs = join.sessionTimeoutMs;
        m.rebalanceTimeoutMs = join.rebalanceTimeoutMs;
        m.clientId = join.clientId;
        m.clientHost = join.clientHost;
        m.lastHeartbeatMs = registry.time.milliseconds();
        if (m.awaitingJoin != null) {
            // An earlier JoinGroup of the same member is superseded by this one (the client gave up on it).
            m.awaitingJoin.complete(GroupResponses.joinError(Errors.REBALANCE_IN_PROGRESS, m.memberId));
        }
        m.awaitingJoin = new CompletableFuture<>();
        CompletableFuture<JoinGroupResponseData> answer = m.awaitingJoin;
        if (g.is(GroupState.PREPARING_REBALANCE)) {
            rebalance.tryCompleteJoin(g);
        } else {
            rebalance.prepare(g);
        }
        return answer;
    }

    CompletableFuture<SyncGroupResponseData> sync(SyncGroupRequestData req) {
        Errors owner = registry.ownership(req.groupId());
        if (owner != Errors.NONE) {
            return done(GroupResponses.syncError(owner));
        }
        GroupRegistry.Lookup found = registry.find(req.groupId(), false);
        if (found.group() == null) {
            return done(GroupResponses.syncError(found.error() != Errors.NONE ? found.error() : Errors.UNKNOWN_MEMBER_ID));
        }
        ClassicGroup g = found.group();
        synchronized (g) {
            GroupMember m = g.members.get(req.memberId());
            if (g.is(GroupState.DEAD)) {
                return done(GroupResponses.syncError(Errors.COORDINATOR_NOT_AVAILABLE));
            }
            Errors instance = checkInstance(g, req.memberId(), req.groupInstanceId());
            if (instance != Errors.NONE) {
                return done(GroupResponses.syncError(instance));
            }
            if (m == null) {
                return done(GroupResponses.syncError(Errors.UNKNOWN_MEMBER_ID));
            }
            if (req.generationId() != g.generation) {
                return done(GroupResponses.syncError(Errors.ILLEGAL_GENERATION));
            }
            if ((req.protocolType() != null && !req.protocolType().equals(g.protocolType))
                    || (req.protocolName() != null && !req.protocolName().equals(g.protocol))) {
                return done(GroupResponses.syncError(Errors.INCONSISTENT_GROUP_PROTOCOL));
            }
            switch (g.state) {
                case PREPARING_REBALANCE:
                    return done(GroupResponses.syncError(Errors.REBALANCE_IN_PROGRESS));
                case STABLE:
                    return done(syncAnswer(g, m));
                case COMPLETING_REBALANCE:
                    break;
                default:
                    return done(GroupResponses.syncError(Errors.UNKNOWN_MEMBER_ID));
            }
            m.lastHeartbeatMs = registry.time.milliseconds();
            if (m.awaitingSync != null) {
                m.awaitingSync.complete(GroupResponses.syncError(Errors.REBALANCE_IN_PROGRESS));
            }
            m.awaitingSync = new CompletableFuture<>();
            CompletableFuture<SyncGroupResponseData> answer = m.awaitingSync;
            if (m.memberId.equals(g.leaderId) && !g.assigning) {
                rebalance.assign(g, req);
            }
            return answer;
        }
    }

    HeartbeatResponseData heartbeat(HeartbeatRequestData req) {
        Errors owner = registry.ownership(req.groupId());
        if (owner != Errors.NONE) {
            return new HeartbeatResponseData().setErrorCode(owner.code());
        }
        GroupRegistry.Lookup found = registry.find(req.groupId(), false);
        if (found.group() == null) {
            Errors e = found.error() != Errors.NONE ? found.error() : Errors.UNKNOWN_MEMBER_ID;
            return new HeartbeatResponseData().setErrorCode(e.code());
        }
        ClassicGroup g = found.group();
        synchronized (g) {
            return new HeartbeatResponseData().setErrorCode(heartbeat(g, req).code());
        }
    }

    private Errors heartbeat(ClassicGroup g, HeartbeatRequestData req) {
        if (g.is(GroupState.DEAD)) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        Errors instance = checkInstance(g, req.memberId(), req.groupInstanceId());
        if (instance != Errors.NONE) {
            return instance;
        }
        GroupMember m = g.members.get(req.memberId());
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (req.generationId() != g.generation) {
            return Errors.ILLEGAL_GENERATION;
        }
        m.lastHeartbeatMs = registry.time.milliseconds();
        return g.is(GroupState.PREPARING_REBALANCE) ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    LeaveGroupResponseData leave(LeaveGroupRequestData req, short version) {
        List<LeaveGroupRequestData.MemberIdentity> leaving = version >= 3 ? req.members()
                : List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId(req.memberId()));
        Errors owner = registry.ownership(req.groupId());
        if (owner != Errors.NONE) {
            return new LeaveGroupResponseData().setErrorCode(owner.code());
        }
        GroupRegistry.Lookup found = registry.find(req.groupId(), false);
        if (found.group() == null) {
            Errors e = found.error() != Errors.NONE ? found.error() : Errors.UNKNOWN_MEMBER_ID;
            return new LeaveGroupResponseData().setErrorCode(e.code());
        }
        ClassicGroup g = found.group();
        LeaveGroupResponseData response = new LeaveGroupResponseData();
        synchronized (g) {
            if (g.is(GroupState.DEAD)) {
                return response.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code());
            }
            boolean removed = false;
            for (LeaveGroupRequestData.MemberIdentity id : leaving) {
                Errors e = Errors.NONE;
                String memberId = id.memberId() == null ? "" : id.memberId();
                if (memberId.isEmpty() && id.groupInstanceId() != null) {
                    // An operator's removal of a static member by its instance id alone (B176).
                    String holder = g.staticMembers.get(id.groupInstanceId());
                    if (holder == null) {
                        e = Errors.UNKNOWN_MEMBER_ID;
                    } else {
                        log.info("Static member {} ({}) of group {} removed by LeaveGroup", id.groupInstanceId(),
                                holder, g.groupId);
                        GroupRebalance.remove(g, g.members.get(holder), Errors.UNKNOWN_MEMBER_ID);
                        removed = true;
                    }
                    response.members().add(new LeaveGroupResponseData.MemberResponse().setMemberId(memberId)
                            .setGroupInstanceId(id.groupInstanceId()).setErrorCode(e.code()));
                    continue;
                }
                var pending = g.pendingMembers.remove(memberId);
                GroupMember m = g.members.get(memberId);
                if (pending != null) {
                    pending.cancel();
                } else if ((e = checkInstance(g, memberId, id.groupInstanceId())) != Errors.NONE) {
                    // a fenced incarnation, or an instance id the group does not know: nothing leaves
                } else if (m == null) {
                    e = Errors.UNKNOWN_MEMBER_ID;
                } else {
                    GroupRebalance.remove(g, m, Errors.UNKNOWN_MEMBER_ID);
                    removed = true;
                }
                response.members().add(new LeaveGroupResponseData.MemberResponse().setMemberId(id.memberId())
                        .setGroupInstanceId(id.groupInstanceId()).setErrorCode(e.code()));
            }
            if (removed || g.is(GroupState.PREPARING_REBALANCE)) {
                rebalance.afterDeparture(g);
            }
            if (version < 3) {
                response.setErrorCode(response.members().get(0).errorCode());
                response.members().clear();
            }
        }
        return response;
    }

    private void expirePending(ClassicGroup g, String memberId) {
        synchronized (g) {
            if (g.pendingMembers.remove(memberId) != null) {
                rebalance.tryCompleteJoin(g);
            }
        }
    }

    private static <T> CompletableFuture<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }
}
