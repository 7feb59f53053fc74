package io.tideline.node.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.stub.StreamObserver;
import io.tideline.common.errors.Errors;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.admin.AlterGroupOffsetsRequest;
import io.tideline.proto.admin.AlterGroupOffsetsResponse;
import io.tideline.proto.admin.DeleteGroupsRequest;
import io.tideline.proto.admin.DeleteGroupsResponse;
import io.tideline.proto.admin.DescribeGroupsRequest;
import io.tideline.proto.admin.DescribeGroupsResponse;
import io.tideline.proto.admin.GroupDescription;
import io.tideline.proto.admin.GroupOffset;
import io.tideline.proto.admin.GroupResult;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** docs/behaviours.md B247: every group request is checked whole before the coordinator sees it. */
class GroupsAdminApiTest {
    /**
     * A broker without a group coordinator: a request that passes the checks is COORDINATOR_NOT_AVAILABLE, so any
     * other answer below comes from the checks.
     */
    private static final Supplier<GroupCoordinator> NONE = () -> null;
    private final GroupsAdminApi api = new GroupsAdminApi(NONE, () -> MetadataImage.EMPTY);

    private static <T> T answer(java.util.function.Consumer<StreamObserver<T>> call) {
        List<T> answers = new ArrayList<>();
        call.accept(new StreamObserver<>() {
            @Override
            public void onNext(T value) {
                answers.add(value);
            }

            @Override
            public void onError(Throwable t) {
                throw new AssertionError(t);
            }

            @Override
            public void onCompleted() {
            }
        });
        assertEquals(1, answers.size());
        return answers.get(0);
    }

    @Test
    void tooManyGroupsAreRefusedEachWithTheBound() {
        DescribeGroupsRequest.Builder describe = DescribeGroupsRequest.newBuilder();
        DeleteGroupsRequest.Builder delete = DeleteGroupsRequest.newBuilder();
        for (int i = 0; i <= GroupsAdminApi.MAX_GROUPS; i++) {
            describe.addGroupIds("g" + i);
            delete.addGroupIds("g" + i);
        }
        DescribeGroupsResponse described = answer(o -> api.describe(describe.build(), o));
        assertEquals(GroupsAdminApi.MAX_GROUPS + 1, described.getGroupsCount());
        for (GroupDescription g : described.getGroupsList()) {
            assertEquals(Errors.INVALID_REQUEST.code(), g.getErrorCode());
            assertEquals("group_ids holds 1001 entries; at most 1000 per request", g.getErrorMessage());
        }
        DeleteGroupsResponse deleted = answer(o -> api.delete(delete.build(), o));
        assertTrue(deleted.getResultsList().stream().allMatch(r -> r.getErrorCode() == Errors.INVALID_REQUEST.code()));
    }

    @Test
    void emptyOverlongAndRepeatedGroupIdsAreRefused() {
        String overlong = "x".repeat(GroupsAdminApi.MAX_GROUP_ID_BYTES + 1);
        DeleteGroupsResponse deleted = answer(o -> api.delete(DeleteGroupsRequest.newBuilder().addGroupIds("")
                .addGroupIds(overlong).addGroupIds("twice").addGroupIds("twice").build(), o));
        List<Integer> codes = deleted.getResultsList().stream().map(GroupResult::getErrorCode).toList();
        // Only the first "twice" passes the checks, to meet a broker without a coordinator.
        assertEquals(List.of((int) Errors.INVALID_GROUP_ID.code(), (int) Errors.INVALID_GROUP_ID.code(),
                (int) Errors.COORDINATOR_NOT_AVAILABLE.code(), (int) Errors.INVALID_REQUEST.code()), codes, deleted.toString());
        assertTrue(deleted.getResults(1).getErrorMessage().contains("at most 32767"), deleted.toString());
        assertEquals("group twice is named twice", deleted.getResults(3).getErrorMessage());
    }

    @Test
    void offsetsAreCheckedWholeBeforeAnyIsCommitted() {
        AlterGroupOffsetsResponse negative = answer(o -> api.alterOffsets(AlterGroupOffsetsRequest.newBuilder()
                .setGroupId("g").addOffsets(GroupOffset.newBuilder().setTopic("t").setPartition(0).setOffset(-1)).build(), o));
        assertEquals(Errors.INVALID_REQUEST.code(), negative.getErrorCode());
        assertEquals("offset -1 for t-0 is negative", negative.getErrorMessage());

        AlterGroupOffsetsResponse unknown = answer(o -> api.alterOffsets(AlterGroupOffsetsRequest.newBuilder()
                .setGroupId("g").addOffsets(GroupOffset.newBuilder().setTopic("t").setPartition(0).setOffset(3)).build(), o));
        assertEquals(Errors.INVALID_REQUEST.code(), unknown.getErrorCode());
        assertEquals("unknown topic or partition t-0", unknown.getErrorMessage());

        AlterGroupOffsetsRequest.Builder many = AlterGroupOffsetsRequest.newBuilder().setGroupId("g");
        for (int i = 0; i <= GroupsAdminApi.MAX_OFFSETS; i++) {
            many.addOffsets(GroupOffset.newBuilder().setTopic("t").setPartition(i).setOffset(0));
        }
        AlterGroupOffsetsResponse tooMany = answer(o -> api.alterOffsets(many.build(), o));
        assertEquals("offsets holds 10001 entries; at most 10000 per request", tooMany.getErrorMessage());

        AlterGroupOffsetsRequest valid = AlterGroupOffsetsRequest.newBuilder().setGroupId("g").build();
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), answer((StreamObserver<AlterGroupOffsetsResponse> o) ->
                api.alterOffsets(valid, o)).getErrorCode(), "a request that passes the checks");
        AlterGroupOffsetsResponse noGroup = answer(o -> api.alterOffsets(AlterGroupOffsetsRequest.getDefaultInstance(), o));
        assertEquals(Errors.INVALID_GROUP_ID.code(), noGroup.getErrorCode());
    }
}
