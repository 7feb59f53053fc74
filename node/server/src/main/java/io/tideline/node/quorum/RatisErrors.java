package io.tideline.node.quorum;

import io.tideline.common.errors.Errors;
import io.tideline.proto.metadata.ControllerQueryResponse;
import io.tideline.proto.metadata.ControllerResponse;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.protocol.exceptions.ReadException;
import org.apache.ratis.protocol.exceptions.ReadIndexException;
import org.apache.ratis.protocol.exceptions.ResourceUnavailableException;
import org.apache.ratis.protocol.exceptions.ServerNotReadyException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.protocol.exceptions.TransferLeadershipException;

/**
 * The one place where Ratis failures become Tideline error codes. Callers of the quorum (brokers,
 * the admin API, the controller's own duties) see an {@link Errors} value in a response, never a
 * Ratis exception: "no leader right now" is {@link Errors#NOT_CONTROLLER} (retriable), "gave up" is
 * {@link Errors#REQUEST_TIMED_OUT}, anything else is {@link Errors#UNKNOWN_SERVER_ERROR} with the
 * exception's message.
 */
public final class RatisErrors {
    private RatisErrors() {
    }

    public static Errors toError(Throwable t) {
        Throwable e = unwrap(t);
        if (e instanceof NotLeaderException || e instanceof LeaderNotReadyException
                || e instanceof LeaderSteppingDownException || e instanceof TransferLeadershipException
                || e instanceof ReadIndexException || e instanceof ReadException
                || e instanceof ServerNotReadyException) {
            return Errors.NOT_CONTROLLER;
        }
        if (e instanceof RaftRetryFailureException || e instanceof TimeoutIOException
                || e instanceof TimeoutException || e instanceof ResourceUnavailableException) {
            return Errors.REQUEST_TIMED_OUT;
        }
        if (e instanceof AlreadyClosedException) {
            return Errors.BROKER_NOT_AVAILABLE;
        }
        if (e instanceof GroupMismatchException) {
            return Errors.INVALID_REQUEST;
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    public static String message(Throwable t) {
        Throwable e = unwrap(t);
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    public static ControllerResponse response(Throwable t) {
        return ControllerResponse.newBuilder().setErrorCode(toError(t).code()).setErrorMessage(message(t)).build();
    }

    public static ControllerQueryResponse queryResponse(Throwable t) {
        return ControllerQueryResponse.newBuilder().setErrorCode(toError(t).code()).setErrorMessage(message(t)).build();
    }

    static Throwable unwrap(Throwable t) {
        Throwable e = t;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
