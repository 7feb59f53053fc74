package io.tideline.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.tideline.common.errors.Errors;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * The broker could not be reached or did not answer in time (a gRPC status other than OK). The error
 * code is BROKER_NOT_AVAILABLE for UNAVAILABLE and CANCELLED, REQUEST_TIMED_OUT for DEADLINE_EXCEEDED and
 * UNKNOWN_SERVER_ERROR otherwise; {@link #status()} keeps the gRPC status code for diagnosis, and
 * {@link #connectFailure()} says why no connection could be set up when that was the failure.
 */
public final class TransportException extends TidelineClientException {
    /**
     * How a Tideline node's Kafka listener answers a gRPC client: GOAWAY whose debug data begins so and names the
     * gRPC address (docs/behaviours.md B230). grpc-java carries the debug data in the status description.
     */
    static final String WRONG_LISTENER_PREFIX = "this is Tideline's Kafka listener";
    private static final String DEBUG_DATA = "debug data: ";

    private final Status.Code status;
    private final String connectFailure;
    private final String wrongListener;

    public TransportException(String target, StatusRuntimeException cause) {
        this(target, cause, connectFailureOf(cause.getStatus()));
    }

    private TransportException(String target, StatusRuntimeException cause, String connectFailure) {
        super(errorFor(cause.getStatus().getCode()), target + ": " + describe(cause.getStatus(), connectFailure), cause);
        this.status = cause.getStatus().getCode();
        this.connectFailure = connectFailure;
        this.wrongListener = wrongListener(cause.getStatus()).orElse(null);
    }

    /**
     * What the node said when this client reached its Kafka listener instead of its gRPC one ("this is Tideline's
     * Kafka listener ...; the gRPC API ... is on host:port"), or empty. Retrying the same address cannot help.
     */
    public Optional<String> wrongListener() {
        return Optional.ofNullable(wrongListener);
    }

    /** What a node's Kafka listener said in {@code status} (see {@link #wrongListener()}), or empty. */
    public static Optional<String> wrongListener(Status status) {
        String description = status.getDescription();
        int at = description == null ? -1 : description.indexOf(DEBUG_DATA + WRONG_LISTENER_PREFIX);
        if (at < 0) {
            return Optional.empty();
        }
        String said = description.substring(at + DEBUG_DATA.length());
        int nl = said.indexOf('\n');
        return Optional.of((nl < 0 ? said : said.substring(0, nl)).strip());
    }

    public Status.Code status() {
        return status;
    }

    /**
     * Why no connection to the broker could be set up ("Connection refused", "connection timed out after
     * 10000 ms", "Unable to resolve host h"), or empty when the failure was something else (a deadline, a
     * connection lost after it was set up). The request cannot have reached the broker in the first case.
     */
    public Optional<String> connectFailure() {
        return Optional.ofNullable(connectFailure);
    }

    /** Whether the same request may succeed later, possibly on another broker. */
    public boolean retriable() {
        // CANCELLED: a broker that stops cancels the calls still open (the client cancels none of its own), so
        // the request's fate is unknown as after a lost connection - Kafka's retriable NetworkException.
        if (wrongListener != null) {
            return false;
        }
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

    /**
     * gRPC reports a failed connect as UNAVAILABLE "io exception" with Netty's ConnectException as the
     * cause ("finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:1"), and a host it
     * cannot resolve as UNAVAILABLE "Unable to resolve host h" with an UnknownHostException.
     */
    static String connectFailureOf(Status status) {
        if (status.getCode() != Status.Code.UNAVAILABLE) {
            return null;
        }
        for (Throwable t = status.getCause(); t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof UnknownHostException) {
                return status.getDescription() != null ? status.getDescription() : "unknown host " + t.getMessage();
            }
            if (t instanceof ConnectException) {
                return connectReason(t.getMessage());
            }
        }
        return null;
    }

    /** "finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:1" to "Connection refused". */
    private static String connectReason(String message) {
        if (message == null || message.isBlank()) {
            return "connect failed";
        }
        String m = message.strip().replaceFirst(":\\s+\\S*/\\S+$", "");
        int colon = m.lastIndexOf(": ");
        return colon < 0 ? m : m.substring(colon + 2);
    }

    private static String describe(Status status, String connectFailure) {
        String detail = connectFailure != null ? connectFailure : status.getDescription();
        return detail == null ? status.getCode().name() : status.getCode() + " (" + detail + ")";
    }
}
