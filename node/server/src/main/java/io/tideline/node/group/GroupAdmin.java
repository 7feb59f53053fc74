package io.tideline.node.group;

import io.tideline.common.errors.Errors;
import io.tideline.node.metadata.GroupImage;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.DeleteGroups;
import io.tideline.proto.metadata.ExpireGroups;
import io.tideline.proto.metadata.GroupMemberRecord;
import io.tideline.proto.metadata.GroupMetadataRecord;
import io.tideline.proto.metadata.ItemResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ListGroups, DescribeGroups, DeleteGroups, and the periodic upkeep: groups that moved to another coordinator
 * are dropped from memory, an Empty group whose state did not reach the quorum is stored again, and groups
 * past offsets.retention.minutes are expired. Thread-safe (see {@link GroupRegistry}).
 */
public final class GroupAdmin {
    private static final Logger log = LoggerFactory.getLogger(GroupAdmin.class);
    /** Kafka's group type of the classic protocol, what ListGroups v5 prints and filters on. */
    public static final String CLASSIC = "classic";

    private final GroupRegistry registry;

    GroupAdmin(GroupRegistry registry) {
        this.registry = registry;
    }

    /** What DescribeGroups and ListGroups show of one group. */
    public record Summary(String groupId, GroupState state, String protocolType, String protocol, List<MemberSummary> members) {
    }

    /** @param groupInstanceId null for a dynamic member */
    public record MemberSummary(String memberId, String groupInstanceId, String clientId, String clientHost,
                                byte[] metadata, byte[] assignment) {
    }

    /** The groups this broker coordinates: in memory, or in the image and not loaded yet. */
    List<Summary> list() {
        MetadataImage image = registry.images.image();
        Map<String, Summary> out = new LinkedHashMap<>();
        for (GroupImage g : image.groups().values()) {
            OptionalInt owner = GroupOwnership.coordinator(image, g.groupId());
            if (owner.isPresent() && owner.getAsInt() == registry.nodeId) {
                out.put(g.groupId(), summary(g));
            }
        }
        for (ClassicGroup g : registry.groups().values()) {
            OptionalInt owner = GroupOwnership.coordinator(image, g.groupId);
            if (owner.isPresent() && owner.getAsInt() == registry.nodeId) {
                Summary s = summary(g);
                if (s.state() != GroupState.DEAD) {
                    out.put(g.groupId, s);
                }
            }
        }
        return new ArrayList<>(out.values());
    }

    /** Empty with NONE when the group does not exist. */
    public record Described(Errors error, Optional<Summary> summary) {
    }

    Described describe(String groupId) {
        Errors owner = registry.ownership(groupId);
        if (owner != Errors.NONE) {
            return new Described(owner, Optional.empty());
        }
        GroupRegistry.Lookup found = registry.find(groupId, false);
        if (found.error() != Errors.NONE) {
            return new Described(found.error(), Optional.empty());
        }
        return new Described(Errors.NONE, Optional.ofNullable(found.group()).map(GroupAdmin::summary)
                .filter(s -> s.state() != GroupState.DEAD));
    }

    private static Summary summary(ClassicGroup g) {
        synchronized (g) {
            // Kafka shows the members' metadata and assignments only when the group is Stable.
            boolean stable = g.is(GroupState.STABLE);
            List<MemberSummary> members = new ArrayList<>();
            for (GroupMember m : g.members.values()) {
                members.add(new MemberSummary(m.memberId, m.groupInstanceId, m.clientId, m.clientHost,
                        stable ? m.metadata(g.protocol) : new byte[0], stable ? m.assignment : new byte[0]));
            }
            return new Summary(g.groupId, g.state, g.protocolType, stable ? g.protocol : "", members);
        }
    }

    private static Summary summary(GroupImage g) {
        GroupMetadataRecord m = g.metadata().orElse(GroupMetadataRecord.getDefaultInstance());
        List<MemberSummary> members = new ArrayList<>();
        for (GroupMemberRecord r : m.getMembersList()) {
            members.add(new MemberSummary(r.getMemberId(),
                    r.getGroupInstanceId().isEmpty() ? null : r.getGroupInstanceId(), r.getClientId(), r.getClientHost(),
                    r.getMetadata().toByteArray(), r.getAssignment().toByteArray()));
        }
        return new Summary(g.groupId(), g.hasMembers() ? GroupState.STABLE : GroupState.EMPTY, m.getProtocolType(),
                m.getProtocol(), members);
    }

    /** NONE when the group has no members (Empty, or not known), else NON_EMPTY_GROUP or the lookup's error. */
    Errors requireInactive(String groupId) {
        Errors owner = registry.ownership(groupId);
        if (owner != Errors.NONE) {
            return owner;
        }
        GroupRegistry.Lookup found = registry.find(groupId, false);
        if (found.error() != Errors.NONE || found.group() == null) {
            return found.error();
        }
        synchronized (found.group()) {
            return found.group().is(GroupState.EMPTY) || found.group().is(GroupState.DEAD)
                    ? Errors.NONE : Errors.NON_EMPTY_GROUP;
        }
    }

    /** Per group, in order: NONE, NOT_COORDINATOR, GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, or a quorum error. */
    CompletableFuture<Map<String, Errors>> delete(List<String> groupIds) {
        Map<String, Errors> results = new LinkedHashMap<>();
        List<String> toDelete = new ArrayList<>();
        for (String id : groupIds) {
            Errors owner = registry.ownership(id);
            if (owner != Errors.NONE) {
                results.put(id, owner);
                continue;
            }
            GroupRegistry.Lookup found = registry.find(id, false);
            ClassicGroup g = found.group();
            if (found.error() != Errors.NONE) {
                results.put(id, found.error());
            } else if (g == null) {
                results.put(id, Errors.GROUP_ID_NOT_FOUND);
            } else {
                synchronized (g) {
                    results.put(id, g.is(GroupState.EMPTY) ? Errors.NONE : Errors.NON_EMPTY_GROUP);
                }
                if (results.get(id) == Errors.NONE) {
                    toDelete.add(id);
                }
            }
        }
        if (toDelete.isEmpty()) {
            return CompletableFuture.completedFuture(results);
        }
        return submit(ControllerCommand.newBuilder().setDeleteGroups(DeleteGroups.newBuilder().addAllGroupIds(toDelete)))
                .thenApply(response -> {
                    for (int i = 0; i < toDelete.size(); i++) {
                        String id = toDelete.get(i);
                        Errors e = response == null || response.getErrorCode() != 0 || response.getResultsCount() <= i
                                ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.forCode(response.getResults(i).getErrorCode());
                        results.put(id, e);
                        // A group the image does not know (Empty, created in memory only) is gone as well.
                        if (e == Errors.NONE || e == Errors.GROUP_ID_NOT_FOUND) {
                            forget(id);
                            results.put(id, Errors.NONE);
                        }
                    }
                    return results;
                });
    }

    /** Drops an Empty group from memory once the quorum removed it. */
    void forget(String groupId) {
        ClassicGroup g = registry.groups().get(groupId);
        if (g != null) {
            synchronized (g) {
                if (g.is(GroupState.EMPTY)) {
                    registry.drop(g, Errors.COORDINATOR_NOT_AVAILABLE);
                }
            }
        }
    }

    /** Completes with the response once the local image holds it; with null if the quorum did not answer. */
    CompletableFuture<ControllerResponse> submit(ControllerCommand.Builder command) {
        CompletableFuture<ControllerResponse> sent;
        try {
            sent = registry.quorum.submit(command.setTimestampMs(registry.time.milliseconds()).build());
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.thenCompose(r -> r.getErrorCode() == 0
                        ? registry.images.awaitOffset(r.getOffset()).thenApply(i -> r)
                        : CompletableFuture.completedFuture(r))
                .exceptionally(t -> null);
    }

    /** One upkeep pass (every offsets.retention.check.interval.ms). */
    CompletableFuture<List<String>> maintain() {
        MetadataImage image = registry.images.image();
        for (ClassicGroup g : new ArrayList<>(registry.groups().values())) {
            OptionalInt owner = GroupOwnership.coordinator(image, g.groupId);
            if (owner.isEmpty() || owner.getAsInt() != registry.nodeId) {
                registry.drop(g, Errors.NOT_COORDINATOR);
                continue;
            }
            synchronized (g) {
                if (g.is(GroupState.EMPTY) && g.storesInFlight == 0 && g.storedGeneration >= 0
                        && g.storedGeneration < g.generation) {
                    registry.store(g);
                }
            }
        }
        long now = registry.time.milliseconds();
        long retention = registry.config.retentionMs();
        List<String> expired = new ArrayList<>();
        for (GroupImage g : image.groups().values()) {
            OptionalInt owner = GroupOwnership.coordinator(image, g.groupId());
            ClassicGroup live = registry.groups().get(g.groupId());
            boolean emptyInMemory = live == null || live.is(GroupState.EMPTY);
            if (owner.isPresent() && owner.getAsInt() == registry.nodeId && !g.hasMembers() && emptyInMemory
                    && now - g.lastActivityMs() >= retention) {
                expired.add(g.groupId());
            }
        }
        if (expired.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        return submit(ControllerCommand.newBuilder().setExpireGroups(ExpireGroups.newBuilder().addAllGroupIds(expired)
                .setRetentionMs(retention))).thenApply(response -> {
                    List<String> removed = new ArrayList<>();
                    if (response != null && response.getErrorCode() == 0) {
                        for (ItemResult r : response.getResultsList()) {
                            removed.add(r.getName());
                            forget(r.getName());
                        }
                        if (!removed.isEmpty()) {
                            log.info("Expired groups {} (no members, nothing committed for {} ms)", removed, retention);
                        }
                    }
                    return removed;
                });
    }
}
