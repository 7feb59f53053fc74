package io.tideline.node.group;

import io.tideline.common.errors.Errors;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/** Error answers of the membership APIs, shaped as Kafka's are. */
final class GroupResponses {
    private GroupResponses() {
    }

    static JoinGroupResponseData joinError(Errors error, String memberId) {
        return new JoinGroupResponseData().setErrorCode(error.code()).setGenerationId(-1)
                .setMemberId(memberId == null ? "" : memberId).setProtocolName("").setLeader("");
    }

    static SyncGroupResponseData syncError(Errors error) {
        return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0]);
    }
}
