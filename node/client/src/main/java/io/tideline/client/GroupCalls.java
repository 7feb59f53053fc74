package io.tideline.client;

import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.admin.AdminServiceGrpc.AdminServiceStub;
import io.tideline.proto.admin.AlterGroupOffsetsRequest;
import io.tideline.proto.admin.AlterGroupOffsetsResponse;
import io.tideline.proto.admin.DeleteGroupsRequest;
import io.tideline.proto.admin.DeleteGroupsResponse;
import io.tideline.proto.admin.DescribeGroupsRequest;
import io.tideline.proto.admin.DescribeGroupsResponse;
import io.tideline.proto.admin.GroupDescription;
import io.tideline.proto.admin.GroupMemberInfo;
import io.tideline.proto.admin.GroupOffset;
import io.tideline.proto.admin.GroupPartitionResult;
import io.tideline.proto.admin.GroupResult;
import io.tideline.proto.admin.ListGroupsRequest;
import io.tideline.proto.admin.ListGroupsResponse;
import io.tideline.proto.admin.ListedGroup;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The consumer-group calls of {@link TidelineAdmin}. ListGroups asks every unfenced broker (each lists the groups
 * it coordinates, as Kafka's brokers do); the other calls go to any broker first and then, for each group it
 * answers NOT_COORDINATOR, to the coordinator it names, a bounded number of times (a group moves only when
 * brokers join or leave). Thread-safe.
 */
final class GroupCalls {
    /** Redirects followed per group before its NOT_COORDINATOR stands. */
    private static final int MAX_REDIRECTS = 3;

    /** Sends a request to any broker (-1) or to the broker with the given id. */
    interface Router {
        <Q, A> A call(int brokerId, String name, TidelineAdmin.AdminMethod<Q, A> method, Q request);
    }

    private final Router router;
    private final Supplier<ClusterDescription> cluster;

    GroupCalls(Router router, Supplier<ClusterDescription> cluster) {
        this.router = router;
        this.cluster = cluster;
    }

    List<ConsumerGroupListing> list() {
        Map<String, ConsumerGroupListing> byId = new TreeMap<>();
        for (ClusterDescription.Broker b : cluster.get().brokers()) {
            if (b.fenced()) {
                continue;
            }
            ListGroupsResponse r = router.call(b.id(), "ListGroups", AdminServiceStub::listGroups,
                    ListGroupsRequest.getDefaultInstance());
            Errors error = Errors.forCode(r.getErrorCode());
            if (error != Errors.NONE) {
                throw new TidelineClientException(error, "ListGroups to broker " + b.id() + ": " + error + ": "
                        + AdminProtos.message(error, r.getErrorMessage()));
            }
            for (ListedGroup g : r.getGroupsList()) {
                byId.put(g.getGroupId(), new ConsumerGroupListing(g.getGroupId(), g.getState(), g.getProtocolType()));
            }
        }
        return new ArrayList<>(byId.values());
    }

    Map<String, ConsumerGroupDescription> describe(Collection<String> groupIds) {
        return routed(groupIds, (broker, ids) -> {
            DescribeGroupsResponse r = router.call(broker, "DescribeGroups", AdminServiceStub::describeGroups,
                    DescribeGroupsRequest.newBuilder().addAllGroupIds(ids).build());
            Map<String, ConsumerGroupDescription> out = new LinkedHashMap<>();
            r.getGroupsList().forEach(g -> out.put(g.getGroupId(), fromProto(g)));
            return out;
        }, ConsumerGroupDescription::error, ConsumerGroupDescription::coordinatorId,
                id -> ConsumerGroupDescription.failed(id, Errors.UNKNOWN_SERVER_ERROR, "the broker's answer does not "
                        + "mention this group", -1));
    }

    GroupOutcome alterOffsets(String groupId, Map<TopicPartition, Long> offsets) {
        AlterGroupOffsetsRequest.Builder request = AlterGroupOffsetsRequest.newBuilder().setGroupId(groupId);
        offsets.forEach((tp, offset) -> request.addOffsets(GroupOffset.newBuilder().setTopic(tp.topic())
                .setPartition(tp.partition()).setOffset(offset).setLeaderEpoch(-1)));
        int broker = -1;
        for (int attempt = 0; ; attempt++) {
            AlterGroupOffsetsResponse r = router.call(broker, "AlterGroupOffsets", AdminServiceStub::alterGroupOffsets,
                    request.build());
            Errors error = Errors.forCode(r.getErrorCode());
            if (error == Errors.NOT_COORDINATOR && r.getCoordinatorId() >= 0 && attempt < MAX_REDIRECTS) {
                broker = r.getCoordinatorId();
                continue;
            }
            Map<TopicPartition, Errors> partitions = new LinkedHashMap<>();
            for (GroupPartitionResult p : r.getResultsList()) {
                partitions.put(new TopicPartition(p.getTopic(), p.getPartition()), Errors.forCode(p.getErrorCode()));
            }
            return new GroupOutcome(groupId, error, AdminProtos.message(error, r.getErrorMessage()), partitions);
        }
    }

    Map<String, GroupOutcome> delete(Collection<String> groupIds) {
        Map<String, Integer> coordinators = new LinkedHashMap<>();
        Map<String, GroupOutcome> outcomes = routed(groupIds, (broker, ids) -> {
            DeleteGroupsResponse r = router.call(broker, "DeleteGroups", AdminServiceStub::deleteGroups,
                    DeleteGroupsRequest.newBuilder().addAllGroupIds(ids).build());
            Map<String, GroupOutcome> out = new LinkedHashMap<>();
            for (GroupResult g : r.getResultsList()) {
                Errors error = Errors.forCode(g.getErrorCode());
                coordinators.put(g.getGroupId(), g.getCoordinatorId());
                out.put(g.getGroupId(), new GroupOutcome(g.getGroupId(), error,
                        error == Errors.NONE ? "" : AdminProtos.message(error, g.getErrorMessage()), Map.of()));
            }
            return out;
        }, GroupOutcome::error, o -> coordinators.getOrDefault(o.groupId(), -1),
                id -> new GroupOutcome(id, Errors.UNKNOWN_SERVER_ERROR, "the broker's answer does not mention this group",
                        Map.of()));
        return outcomes;
    }

    /**
     * Sends the groups to any broker, then each group answered NOT_COORDINATOR to the coordinator named, in
     * request order. A group the answers leave out gets {@code missing}.
     */
    private <R> Map<String, R> routed(Collection<String> groupIds, BiFunction<Integer, List<String>, Map<String, R>> send,
                                      Function<R, Errors> errorOf, Function<R, Integer> coordinatorOf,
                                      Function<String, R> missing) {
        Map<String, R> results = new LinkedHashMap<>();
        Map<Integer, List<String>> pending = new LinkedHashMap<>();
        pending.put(-1, new ArrayList<>(new LinkedHashSet<>(groupIds)));
        for (int round = 0; round <= MAX_REDIRECTS && !pending.isEmpty(); round++) {
            Map<Integer, List<String>> next = new LinkedHashMap<>();
            for (Map.Entry<Integer, List<String>> e : pending.entrySet()) {
                Map<String, R> answers = send.apply(e.getKey(), e.getValue());
                for (String id : e.getValue()) {
                    R r = answers.containsKey(id) ? answers.get(id) : missing.apply(id);
                    results.put(id, r);
                    int coordinator = coordinatorOf.apply(r);
                    if (errorOf.apply(r) == Errors.NOT_COORDINATOR && coordinator >= 0 && coordinator != e.getKey()) {
                        next.computeIfAbsent(coordinator, k -> new ArrayList<>()).add(id);
                    }
                }
            }
            pending = next;
        }
        Map<String, R> ordered = new LinkedHashMap<>();
        new LinkedHashSet<>(groupIds).forEach(id -> ordered.put(id, results.get(id)));
        return ordered;
    }

    private static ConsumerGroupDescription fromProto(GroupDescription g) {
        Errors error = Errors.forCode(g.getErrorCode());
        if (error != Errors.NONE) {
            return ConsumerGroupDescription.failed(g.getGroupId(), error, AdminProtos.message(error, g.getErrorMessage()),
                    g.getCoordinatorId());
        }
        List<ConsumerGroupDescription.Member> members = new ArrayList<>();
        for (GroupMemberInfo m : g.getMembersList()) {
            members.add(new ConsumerGroupDescription.Member(m.getMemberId(), m.getGroupInstanceId(), m.getClientId(),
                    m.getClientHost(), m.getAssignmentList().stream()
                    .map(tp -> new TopicPartition(tp.getTopic(), tp.getPartition())).toList()));
        }
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        g.getOffsetsList().forEach(o -> offsets.put(new TopicPartition(o.getTopic(), o.getPartition()), o.getOffset()));
        return new ConsumerGroupDescription(g.getGroupId(), Errors.NONE, "", g.getCoordinatorId(), g.getState(),
                g.getProtocolType(), g.getProtocol(), members, offsets);
    }
}
