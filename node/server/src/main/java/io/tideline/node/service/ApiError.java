package io.tideline.node.service;

import io.tideline.common.errors.Errors;
import java.util.Objects;

/**
 * The typed error of an operation, or of one item of it: one of our error codes (the same numbers as Kafka's)
 * and the message the answer carries, "" when there is none. Each listener turns it into its own answer: the
 * gRPC adapters copy code and message, the Kafka adapters send the code and, where Kafka's answer has the field,
 * the message. Immutable.
 */
public record ApiError(Errors error, String message) {
    public static final ApiError NONE = new ApiError(Errors.NONE, "");

    public ApiError {
        Objects.requireNonNull(error, "error");
        message = message == null ? "" : message;
    }

    /** A call the operation relies on (the controller's, the replica manager's) failed instead of answering. */
    public static ApiError unexpected(Throwable e) {
        return new ApiError(Errors.UNKNOWN_SERVER_ERROR, String.valueOf(e.getMessage()));
    }

    public boolean isError() {
        return error != Errors.NONE;
    }

    public short code() {
        return error.code();
    }
}
