package io.tideline.node.quorum;

import com.google.protobuf.InvalidProtocolBufferException;
import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerQuery;
import io.tideline.proto.metadata.ControllerQueryResponse;
import io.tideline.proto.metadata.ControllerResponse;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Our protobuf messages across the Ratis boundary. Ratis carries its own relocated protobuf, so
 * messages cross as plain bytes ({@code toByteArray} / {@code parseFrom(byte[])}); the relocated
 * ByteString appears here and in the state machine only.
 */
public final class RatisMessages {
    private RatisMessages() {
    }

    public static Message of(ControllerCommand command) {
        return Message.valueOf(UnsafeByteOperations.unsafeWrap(command.toByteArray()));
    }

    public static Message of(ControllerQuery query) {
        return Message.valueOf(UnsafeByteOperations.unsafeWrap(query.toByteArray()));
    }

    /** The state machine's answer to a command, or the Ratis failure as an error code. */
    public static ControllerResponse commandResponse(RaftClientReply reply) {
        if (!reply.isSuccess()) {
            return reply.getException() == null
                    ? ControllerResponse.newBuilder().setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage("request failed").build()
                    : RatisErrors.response(reply.getException());
        }
        try {
            return ControllerResponse.parseFrom(reply.getMessage().getContent().toByteArray());
        } catch (InvalidProtocolBufferException e) {
            return ControllerResponse.newBuilder().setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                    .setErrorMessage("unreadable controller response: " + e.getMessage()).build();
        }
    }

    /** The state machine's answer to a query, or the Ratis failure as an error code. */
    public static ControllerQueryResponse queryResponse(RaftClientReply reply) {
        if (!reply.isSuccess()) {
            return reply.getException() == null
                    ? ControllerQueryResponse.newBuilder().setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage("query failed").build()
                    : RatisErrors.queryResponse(reply.getException());
        }
        try {
            return ControllerQueryResponse.parseFrom(reply.getMessage().getContent().toByteArray());
        } catch (InvalidProtocolBufferException e) {
            return ControllerQueryResponse.newBuilder().setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
                    .setErrorMessage("unreadable controller query response: " + e.getMessage()).build();
        }
    }
}
