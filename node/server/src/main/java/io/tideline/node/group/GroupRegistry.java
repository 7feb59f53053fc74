package io.tideline.node.group;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.metadata.GroupImage;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.GroupMemberRecord;
import io.tideline.proto.metadata.GroupMetadataRecord;
import io.tideline.proto.metadata.StoreGroup;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/**
 * The groups this coordinator holds in memory, loaded from the image the first time a request touches a group
 * it coordinates, and what every group operation shares: ownership, loading, storing a group's metadata in the
 * quorum, dropping a group that moved. Thread-safe: the map is concurrent, each group is guarded by its own
 * monitor, and a group is only ever changed with it held.
 */
final class GroupRegistry {
    final int nodeId;
    final GroupConfig config;
    final Time time;
    final Scheduler scheduler;
    final ImageTracker images;
    final GroupQuorum quorum;
    private final Map<String, ClassicGroup> groups = new ConcurrentHashMap<>();
    /** Set by the membership logic: how a loaded member's session is watched. */
    private SessionWatcher sessions;

    interface SessionWatcher {
        void watch(ClassicGroup group, GroupMember member, long delayMs);
    }

    GroupRegistry(int nodeId, GroupConfig config, Time time, Scheduler scheduler, ImageTracker images,
                  GroupQuorum quorum) {
        this.nodeId = nodeId;
        this.config = config;
        this.time = time;
        this.scheduler = scheduler;
        this.images = images;
        this.quorum = quorum;
    }

    void sessions(SessionWatcher watcher) {
        this.sessions = watcher;
    }

    /** NONE when this broker coordinates the group in its current image, else the error to answer. */
    Errors ownership(String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        OptionalInt owner = GroupOwnership.coordinator(images.image(), groupId);
        if (owner.isEmpty()) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        if (owner.getAsInt() != nodeId) {
            ClassicGroup stale = groups.get(groupId);
            if (stale != null) {
                drop(stale, Errors.NOT_COORDINATOR);
            }
            return Errors.NOT_COORDINATOR;
        }
        return Errors.NONE;
    }

    /** A result of looking a group up: the group, or why there is none. */
    record Lookup(ClassicGroup group, Errors error) {
    }

    /**
     * The group in memory, else loaded from the image; with {@code create} a group in neither place is created
     * Empty (within group.coordinator.max.groups), without it the answer is an empty lookup with NONE.
     */
    Lookup find(String groupId, boolean create) {
        MetadataImage image = images.image();
        Optional<GroupImage> stored = image.group(groupId);
        ClassicGroup g = groups.get(groupId);
        if (g != null) {
            synchronized (g) {
                // Another coordinator stored a newer generation (the group moved away and back meanwhile):
                // what this memory holds is stale. Not while a store of ours is in flight, which the image may
                // show before its callback updates storedGeneration.
                int imageGeneration = stored.map(GroupImage::generation).orElse(-1);
                if (g.storesInFlight == 0 && imageGeneration > g.storedGeneration) {
                    drop(g, Errors.NOT_COORDINATOR);
                    g = null;
                }
            }
        }
        if (g != null && !g.is(GroupState.DEAD)) {
            return new Lookup(g, Errors.NONE);
        }
        if (stored.isEmpty() && !create) {
            return new Lookup(null, Errors.NONE);
        }
        if (stored.isEmpty() && groups.size() >= config.maxGroups()) {
            return new Lookup(null, Errors.COORDINATOR_LOAD_IN_PROGRESS);
        }
        ClassicGroup loaded = stored.map(this::load).orElseGet(() -> new ClassicGroup(groupId, GroupState.EMPTY, 0, -1));
        ClassicGroup winner = groups.putIfAbsent(groupId, loaded);
        if (winner != null) {
            discard(loaded);
            return new Lookup(winner, Errors.NONE);
        }
        return new Lookup(loaded, Errors.NONE);
    }

    /** Members of a stored group keep their generation; their sessions restart now (docs/behaviours.md). */
    private ClassicGroup load(GroupImage stored) {
        ClassicGroup g = new ClassicGroup(stored.groupId(), stored.hasMembers() ? GroupState.STABLE : GroupState.EMPTY,
                Math.max(0, stored.generation()), stored.generation());
        stored.metadata().ifPresent(m -> {
            g.protocolType = m.getProtocolType();
            g.protocol = m.getProtocol();
            g.leaderId = m.getLeader();
            synchronized (g) {
                for (GroupMemberRecord r : m.getMembersList()) {
                    LinkedHashMap<String, byte[]> protocols = new LinkedHashMap<>();
                    protocols.put(m.getProtocol(), r.getMetadata().toByteArray());
                    String instanceId = r.getGroupInstanceId().isEmpty() ? null : r.getGroupInstanceId();
                    GroupMember member = new GroupMember(r.getMemberId(), instanceId, r.getClientId(),
                            r.getClientHost(), r.getSessionTimeoutMs(), r.getRebalanceTimeoutMs(), protocols);
                    member.assignment = r.getAssignment().toByteArray();
                    member.lastHeartbeatMs = time.milliseconds();
                    g.members.put(member.memberId, member);
                    if (instanceId != null) {
                        g.staticMembers.put(instanceId, member.memberId);
                    }
                    sessions.watch(g, member, member.sessionTimeoutMs);
                }
            }
        });
        return g;
    }

    private void discard(ClassicGroup g) {
        synchronized (g) {
            g.members.values().forEach(m -> cancel(m.sessionTimer));
        }
    }

    Map<String, ClassicGroup> groups() {
        return groups;
    }

    /**
     * The group is gone from this coordinator (moved, deleted, expired): waiting members get {@code error}, its
     * timers stop, and the next request loads it afresh.
     */
    void drop(ClassicGroup g, Errors error) {
        synchronized (g) {
            g.state = GroupState.DEAD;
            for (GroupMember m : g.members.values()) {
                cancel(m.sessionTimer);
                if (m.awaitingJoin != null) {
                    m.awaitingJoin.complete(GroupResponses.joinError(error, m.memberId));
                    m.awaitingJoin = null;
                }
                if (m.awaitingSync != null) {
                    m.awaitingSync.complete(GroupResponses.syncError(error));
                    m.awaitingSync = null;
                }
            }
            g.pendingMembers.values().forEach(GroupRegistry::cancel);
            g.pendingMembers.clear();
            cancel(g.joinTimer);
            cancel(g.syncTimer);
        }
        groups.remove(g.groupId, g);
    }

    static void cancel(Scheduler.Cancellable c) {
        if (c != null) {
            c.cancel();
        }
    }

    /** The group's metadata as it stands now (called with the group's monitor held). */
    GroupMetadataRecord record(ClassicGroup g) {
        GroupMetadataRecord.Builder b = GroupMetadataRecord.newBuilder().setGroupId(g.groupId)
                .setProtocolType(g.protocolType).setGeneration(g.generation);
        if (!g.members.isEmpty()) {
            b.setProtocol(g.protocol).setLeader(g.leaderId);
        }
        for (GroupMember m : g.members.values()) {
            b.addMembers(GroupMemberRecord.newBuilder().setMemberId(m.memberId)
                    .setGroupInstanceId(m.groupInstanceId == null ? "" : m.groupInstanceId).setClientId(m.clientId)
                    .setClientHost(m.clientHost).setSessionTimeoutMs(m.sessionTimeoutMs)
                    .setRebalanceTimeoutMs(m.rebalanceTimeoutMs)
                    .setMetadata(com.google.protobuf.ByteString.copyFrom(m.metadata(g.protocol)))
                    .setAssignment(com.google.protobuf.ByteString.copyFrom(m.assignment)));
        }
        return b.build();
    }

    /**
     * Stores the group's current metadata (called with its monitor held); completes with NONE once the local
     * image holds it. On NOT_COORDINATOR (another coordinator stored it meanwhile) the group is dropped.
     */
    CompletableFuture<Errors> store(ClassicGroup g) {
        GroupMetadataRecord record = record(g);
        int expected = g.storedGeneration;
        g.storesInFlight++;
        CompletableFuture<ControllerResponse> sent;
        try {
            sent = quorum.submit(ControllerCommand.newBuilder().setTimestampMs(time.milliseconds())
                    .setStoreGroup(StoreGroup.newBuilder().setGroup(record).setExpectedGeneration(expected)).build());
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.thenCompose(r -> r.getErrorCode() == 0
                        ? images.awaitOffset(r.getOffset()).thenApply(i -> Errors.NONE)
                        : CompletableFuture.completedFuture(Errors.forCode(r.getErrorCode())))
                .exceptionally(t -> Errors.COORDINATOR_NOT_AVAILABLE)
                .thenApply(error -> {
                    boolean moved;
                    synchronized (g) {
                        g.storesInFlight--;
                        if (error == Errors.NONE) {
                            g.storedGeneration = Math.max(g.storedGeneration, record.getGeneration());
                        }
                        moved = error == Errors.NOT_COORDINATOR && !g.is(GroupState.DEAD);
                    }
                    if (moved) {
                        drop(g, Errors.NOT_COORDINATOR);
                    }
                    return error == Errors.NONE || error == Errors.NOT_COORDINATOR ? error : Errors.COORDINATOR_NOT_AVAILABLE;
                });
    }

    static JoinGroupResponseData joinError(Errors error, String memberId) {
        return GroupResponses.joinError(error, memberId);
    }
}
