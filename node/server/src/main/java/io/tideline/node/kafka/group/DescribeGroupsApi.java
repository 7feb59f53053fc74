package io.tideline.node.kafka.group;

import io.tideline.common.errors.Errors;
import io.tideline.node.group.GroupAdmin;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.ErrorMessages;
import io.tideline.node.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * DescribeGroups v0-6. An unknown group is "Dead" with no error before v6 and GROUP_ID_NOT_FOUND from v6
 * (KIP-1043), as in Kafka. Authorized operations are not computed (no ACLs): Kafka's "not provided" value.
 */
final class DescribeGroupsApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;

    DescribeGroupsApi(GroupCoordinator coordinator) {
        super(ApiKeys.DESCRIBE_GROUPS, ApiKeys.DESCRIBE_GROUPS.oldestVersion(), 6);
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<DescribeGroupsResponseData> handle(KafkaRequest request) {
        DescribeGroupsRequestData req = request.body(DescribeGroupsRequestData.class);
        DescribeGroupsResponseData response = new DescribeGroupsResponseData();
        for (String id : req.groups()) {
            GroupAdmin.Described d = coordinator.describeGroup(id);
            DescribeGroupsResponseData.DescribedGroup g = new DescribeGroupsResponseData.DescribedGroup().setGroupId(id)
                    .setProtocolType("").setProtocolData("").setGroupState("Dead").setErrorCode(d.error().code());
            if (d.error() == Errors.NONE && d.summary().isEmpty()) {
                if (request.version() >= 6) {
                    g.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                            .setErrorMessage(ErrorMessages.bounded("Group " + id + " not found."));
                }
            } else if (d.summary().isPresent()) {
                GroupAdmin.Summary s = d.summary().get();
                g.setGroupState(s.state().kafkaName()).setProtocolType(s.protocolType()).setProtocolData(s.protocol());
                for (GroupAdmin.MemberSummary m : s.members()) {
                    // group_instance_id exists from v4; an older answer leaves it out.
                    g.members().add(new DescribeGroupsResponseData.DescribedGroupMember().setMemberId(m.memberId())
                            .setGroupInstanceId(m.groupInstanceId()).setClientId(m.clientId()).setClientHost(m.clientHost()).setMemberMetadata(m.metadata())
                            .setMemberAssignment(m.assignment()));
                }
            }
            response.groups().add(g);
        }
        return CompletableFuture.completedFuture(response);
    }
}
