package io.tideline.client;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;

/**
 * A request the client gave up on: a broker's error that is not retriable, or a retriable one that
 * outlived the retries or the timeout. {@link #error()} is the broker's error code (or the code the
 * client assigns to a transport failure, see {@link TransportException}).
 */
public class TidelineClientException extends TidelineException {

    public TidelineClientException(Errors error, String message) {
        super(error, message);
    }

    public TidelineClientException(Errors error, String message, Throwable cause) {
        super(error, message, cause);
    }
}
