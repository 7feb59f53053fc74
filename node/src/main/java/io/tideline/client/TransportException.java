package io.tideline.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.tideline.common.errors.Errors;

/**
 * The broker could not be reached or did not answer in time (a gRPC status other than OK). The error
 * code is BROKER_NOT_AVAILABLE for UNAVAILABLE and CANCELLED, REQUEST_TIMED_OUT for DEADLINE_EXCEEDED and
 * UNKNOWN_SERVER_ERROR otherwise; {@link #status()} keeps the gRPC status code for diagnosis.
 */
public final class TransportException extends TidelineClientException {
    private final Status.Code status;

    public TransportException(String target, StatusRuntimeException cause) {
        super(errorFor(cause.getStatus().getCode()), target + ": " + describe(cause.getStatus()), cause);
        this.status = cause.getStatus().getCode();
    }

    public Status.Code status() {
        return status;
    }

    /** Whether the same request may succeed later, possibly on another broker. */
    public boolean retriable() {
        // CANCELLED: a broker that stops cancels the calls still open (the client cancels none of its own), so
        // the request's fate is unknown as after a lost connection - Kafka's retriable NetworkException.
        return status == Status.Code.UNAVAILABLE || status == Status.Code.CANCELLED
                || status == Status.Code.DEADLINE_EXCEEDED
                || status == Status.Code.ABORTED || status == Status.Code.RESOURCE_EXHAUSTED;
    }

    static Errors errorFor(Status.Code code) {
        return switch (code) {
            case UNAVAILABLE, CANCELLED -> Errors.BROKER_NOT_AVAILABLE;
            case DEADLINE_EXCEEDED -> Errors.REQUEST_TIMED_OUT;
            default -> Errors.UNKNOWN_SERVER_ERROR;
        };
    }

    private static String describe(Status status) {
        return status.getDescription() == null ? status.getCode().name()
                : status.getCode() + " (" + status.getDescription() + ")";
    }
}
