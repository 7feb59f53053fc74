package io.tideline.node.api;

import io.grpc.stub.StreamObserver;
import io.tideline.common.errors.Errors;
import io.tideline.node.group.GroupAdmin;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.group.GroupOffsets;
import io.tideline.node.group.GroupOwnership;
import io.tideline.node.metadata.MetadataImage;
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
import io.tideline.proto.admin.GroupTopicPartition;
import io.tideline.proto.admin.ListGroupsRequest;
import io.tideline.proto.admin.ListGroupsResponse;
import io.tideline.proto.admin.ListedGroup;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;

/**
 * The admin API's consumer groups, over the same {@link GroupCoordinator} operations Kafka's group APIs call
 * (docs/behaviours.md B245-B247). Every request is checked whole (counts, group ids, offsets, partitions that
 * exist) before the coordinator sees it. A group this broker does not coordinate is NOT_COORDINATOR with the
 * coordinator's id, where the client sends it again. Thread-safe.
 */
final class GroupsAdminApi {
    /** Groups in one DescribeGroups or DeleteGroups request. */
    static final int MAX_GROUPS = 1_000;
    /** Offsets in one AlterGroupOffsets request. */
    static final int MAX_OFFSETS = 10_000;
    /** Kafka's group id travels as a STRING (int16 length): no Kafka client can name a longer one. */
    static final int MAX_GROUP_ID_BYTES = Short.MAX_VALUE;
    private static final String CONSUMER = "consumer";

    private final Supplier<GroupCoordinator> coordinator;
    private final Supplier<MetadataImage> image;

    /** @param coordinator null while (or where) the node runs no group coordinator */
    GroupsAdminApi(Supplier<GroupCoordinator> coordinator, Supplier<MetadataImage> image) {
        this.coordinator = coordinator;
        this.image = image;
    }

    void list(ListGroupsRequest request, StreamObserver<ListGroupsResponse> observer) {
        GroupCoordinator c = coordinator.get();
        ListGroupsResponse.Builder b = ListGroupsResponse.newBuilder();
        if (c == null) {
            b.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()).setErrorMessage(noCoordinator());
        } else {
            for (GroupAdmin.Summary s : c.listGroups()) {
                b.addGroups(ListedGroup.newBuilder().setGroupId(s.groupId()).setState(s.state().kafkaName())
                        .setProtocolType(s.protocolType() == null ? "" : s.protocolType()));
            }
        }
        ClientApiService.respond(observer, b.build());
    }

    void describe(DescribeGroupsRequest request, StreamObserver<DescribeGroupsResponse> observer) {
        DescribeGroupsResponse.Builder b = DescribeGroupsResponse.newBuilder();
        String countProblem = countProblem(request.getGroupIdsCount(), MAX_GROUPS, "group_ids");
        GroupCoordinator c = coordinator.get();
        for (String id : request.getGroupIdsList()) {
            GroupDescription.Builder d = GroupDescription.newBuilder().setGroupId(id).setCoordinatorId(-1);
            String problem = countProblem != null ? countProblem : groupIdProblem(id);
            if (problem != null) {
                error(d, countProblem != null ? Errors.INVALID_REQUEST : Errors.INVALID_GROUP_ID, problem);
            } else if (c == null) {
                error(d, Errors.COORDINATOR_NOT_AVAILABLE, noCoordinator());
            } else {
                describeOne(c, id, d);
            }
            b.addGroups(d);
        }
        ClientApiService.respond(observer, b.build());
    }

    private void describeOne(GroupCoordinator c, String id, GroupDescription.Builder d) {
        GroupAdmin.Described described = c.describeGroup(id);
        d.setCoordinatorId(coordinatorOf(id));
        if (described.error() != Errors.NONE) {
            error(d, described.error(), notHere(id, described.error()));
            return;
        }
        GroupOffsets.Fetched offsets = c.fetchOffsets(id, null);
        if (described.summary().isEmpty() && offsets.topics().isEmpty()) {
            error(d, Errors.GROUP_ID_NOT_FOUND, "Group " + id + " not found.");
            return;
        }
        // A group known only by its committed offsets (no member ever joined through this coordinator) is Empty.
        d.setState(described.summary().map(s -> s.state().kafkaName()).orElse("Empty"));
        described.summary().ifPresent(s -> {
            d.setProtocolType(s.protocolType() == null ? "" : s.protocolType()).setProtocol(s.protocol() == null ? "" : s.protocol());
            for (GroupAdmin.MemberSummary m : s.members()) {
                GroupMemberInfo.Builder member = GroupMemberInfo.newBuilder().setMemberId(m.memberId())
                        .setGroupInstanceId(m.groupInstanceId() == null ? "" : m.groupInstanceId())
                        .setClientId(m.clientId()).setClientHost(m.clientHost());
                if (CONSUMER.equals(s.protocolType())) {
                    assignment(m.assignment()).forEach(tp -> member.addAssignment(GroupTopicPartition.newBuilder()
                            .setTopic(tp.topic()).setPartition(tp.partition())));
                }
                d.addMembers(member);
            }
        });
        if (offsets.error() == Errors.NONE) {
            for (GroupOffsets.FetchedTopic t : offsets.topics()) {
                for (GroupOffsets.FetchedPartition p : t.partitions()) {
                    d.addOffsets(GroupOffset.newBuilder().setTopic(t.name()).setPartition(p.partition())
                            .setOffset(p.offset()).setLeaderEpoch(p.leaderEpoch()).setMetadata(p.metadata()));
                }
            }
        }
    }

    /** A consumer's assignment, or none when the bytes are empty or not Kafka's ConsumerProtocol. */
    private static List<TopicPartition> assignment(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return List.of();
        }
        try {
            return ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(bytes)).partitions();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    void alterOffsets(AlterGroupOffsetsRequest request, StreamObserver<AlterGroupOffsetsResponse> observer) {
        String id = request.getGroupId();
        AlterGroupOffsetsResponse.Builder b = AlterGroupOffsetsResponse.newBuilder().setCoordinatorId(-1);
        String problem = groupIdProblem(id);
        if (problem != null) {
            ClientApiService.respond(observer, b.setErrorCode(Errors.INVALID_GROUP_ID.code()).setErrorMessage(problem).build());
            return;
        }
        problem = countProblem(request.getOffsetsCount(), MAX_OFFSETS, "offsets");
        if (problem == null) {
            problem = offsetsProblem(request.getOffsetsList(), image.get());
        }
        if (problem != null) {
            ClientApiService.respond(observer, b.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(problem).build());
            return;
        }
        GroupCoordinator c = coordinator.get();
        if (c == null) {
            ClientApiService.respond(observer, b.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                    .setErrorMessage(noCoordinator()).build());
            return;
        }
        List<GroupOffsets.PartitionOffset> offsets = request.getOffsetsList().stream()
                .map(o -> new GroupOffsets.PartitionOffset(o.getTopic(), o.getPartition(), o.getOffset(),
                        o.getLeaderEpoch(), o.getMetadata()))
                .toList();
        c.alterOffsets(id, offsets).whenComplete((outcome, e) -> {
            b.setCoordinatorId(coordinatorOf(id));
            if (e != null) {
                b.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage(String.valueOf(e.getMessage()));
            } else if (outcome.error() != Errors.NONE) {
                b.setErrorCode(outcome.error().code()).setErrorMessage(notHere(id, outcome.error()));
            } else {
                for (GroupOffset o : request.getOffsetsList()) {
                    Errors pe = outcome.partition(o.getTopic(), o.getPartition());
                    b.addResults(GroupPartitionResult.newBuilder().setTopic(o.getTopic()).setPartition(o.getPartition())
                            .setErrorCode(pe.code()).setErrorMessage(pe == Errors.NONE ? "" : pe.defaultMessage()));
                }
            }
            ClientApiService.respond(observer, b.build());
        });
    }

    void delete(DeleteGroupsRequest request, StreamObserver<DeleteGroupsResponse> observer) {
        String countProblem = countProblem(request.getGroupIdsCount(), MAX_GROUPS, "group_ids");
        GroupCoordinator c = coordinator.get();
        List<String> valid = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        DeleteGroupsResponse.Builder refused = DeleteGroupsResponse.newBuilder();
        for (String id : request.getGroupIdsList()) {
            String problem = countProblem != null ? countProblem : groupIdProblem(id);
            Errors error = countProblem != null ? Errors.INVALID_REQUEST : Errors.INVALID_GROUP_ID;
            if (problem == null && !seen.add(id)) {
                problem = "group " + id + " is named twice";
                error = Errors.INVALID_REQUEST;
            }
            if (problem == null && c == null) {
                problem = noCoordinator();
                error = Errors.COORDINATOR_NOT_AVAILABLE;
            }
            if (problem != null) {
                refused.addResults(GroupResult.newBuilder().setGroupId(id).setErrorCode(error.code())
                        .setErrorMessage(problem).setCoordinatorId(-1));
            } else {
                valid.add(id);
            }
        }
        if (valid.isEmpty()) {
            ClientApiService.respond(observer, refused.build());
            return;
        }
        c.deleteGroups(valid).whenComplete((results, e) -> {
            DeleteGroupsResponse.Builder b = refused.clone();
            for (String id : valid) {
                Errors error = e != null ? Errors.UNKNOWN_SERVER_ERROR : results.getOrDefault(id, Errors.UNKNOWN_SERVER_ERROR);
                b.addResults(GroupResult.newBuilder().setGroupId(id).setErrorCode(error.code())
                        .setErrorMessage(error == Errors.NONE ? "" : notHere(id, error)).setCoordinatorId(coordinatorOf(id)));
            }
            ClientApiService.respond(observer, b.build());
        });
    }

    private int coordinatorOf(String groupId) {
        return GroupOwnership.coordinator(image.get(), groupId).orElse(-1);
    }

    private static String notHere(String id, Errors error) {
        return switch (error) {
            case NOT_COORDINATOR -> "this broker is not the coordinator of group " + id;
            case NON_EMPTY_GROUP -> "The group " + id + " has active members.";
            case GROUP_ID_NOT_FOUND -> "Group " + id + " not found.";
            default -> error.defaultMessage();
        };
    }

    private static void error(GroupDescription.Builder d, Errors error, String message) {
        d.setErrorCode(error.code()).setErrorMessage(message);
    }

    private static String noCoordinator() {
        return "this broker runs no group coordinator (it has no Kafka listener)";
    }

    static String countProblem(int count, int max, String field) {
        return count > max ? field + " holds " + count + " entries; at most " + max + " per request" : null;
    }

    static String groupIdProblem(String id) {
        if (id.isEmpty()) {
            return "the group id is empty";
        }
        int bytes = id.getBytes(StandardCharsets.UTF_8).length;
        return bytes > MAX_GROUP_ID_BYTES ? "the group id is " + bytes + " bytes; at most " + MAX_GROUP_ID_BYTES : null;
    }

    /** Each offset >= 0, of a partition of an existing topic, named once. */
    static String offsetsProblem(List<GroupOffset> offsets, MetadataImage image) {
        Set<String> seen = new HashSet<>();
        for (GroupOffset o : offsets) {
            String tp = o.getTopic() + "-" + o.getPartition();
            if (o.getOffset() < 0) {
                return "offset " + o.getOffset() + " for " + tp + " is negative";
            }
            if (image.topic(o.getTopic()).map(t -> !t.partitions().containsKey(o.getPartition())).orElse(true)) {
                return "unknown topic or partition " + tp;
            }
            if (!seen.add(o.getTopic() + "\u0000" + o.getPartition())) {
                return tp + " is named twice";
            }
        }
        return null;
    }
}
