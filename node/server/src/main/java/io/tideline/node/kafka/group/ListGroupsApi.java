package io.tideline.node.kafka.group;

import io.tideline.node.group.GroupAdmin;
import io.tideline.node.group.GroupCoordinator;
import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * ListGroups v0-5: as in Kafka, a broker lists the groups it coordinates (the admin client asks every broker).
 * The states filter (v4+) and the types filter (v5+, only "classic" groups exist) compare case-insensitively.
 */
final class ListGroupsApi extends AbstractKafkaApi {
    private final GroupCoordinator coordinator;

    ListGroupsApi(GroupCoordinator coordinator) {
        super(ApiKeys.LIST_GROUPS, ApiKeys.LIST_GROUPS.oldestVersion(), 5);
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<ListGroupsResponseData> handle(KafkaRequest request) {
        ListGroupsRequestData req = request.body(ListGroupsRequestData.class);
        Set<String> states = req.statesFilter().stream().map(s -> s.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        Set<String> types = req.typesFilter().stream().map(s -> s.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        ListGroupsResponseData response = new ListGroupsResponseData();
        if (!types.isEmpty() && !types.contains(GroupAdmin.CLASSIC)) {
            return CompletableFuture.completedFuture(response);
        }
        for (GroupAdmin.Summary g : coordinator.listGroups()) {
            if (!states.isEmpty() && !states.contains(g.state().kafkaName().toLowerCase(Locale.ROOT))) {
                continue;
            }
            response.groups().add(new ListGroupsResponseData.ListedGroup().setGroupId(g.groupId())
                    .setProtocolType(g.protocolType()).setGroupState(g.state().kafkaName())
                    .setGroupType(GroupAdmin.CLASSIC));
        }
        return CompletableFuture.completedFuture(response);
    }
}
