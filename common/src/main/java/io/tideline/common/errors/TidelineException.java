package io.tideline.common.errors;

/**
 * An internal failure that carries the error code it becomes at the boundary. Where an exception turns into a
 * wire error, {@link #errorOf} reads {@link #error()}; any other exception becomes
 * {@link Errors#UNKNOWN_SERVER_ERROR}.
 */
public class TidelineException extends RuntimeException {
    private final Errors error;

    public TidelineException(Errors error, String message) {
        super(message);
        this.error = error;
    }

    public TidelineException(Errors error, String message, Throwable cause) {
        super(message, cause);
        this.error = error;
    }

    public Errors error() {
        return error;
    }

    /** The error code for any throwable: its own if it is one of ours, else UNKNOWN_SERVER_ERROR. */
    public static Errors errorOf(Throwable t) {
        return t instanceof TidelineException te ? te.error() : Errors.UNKNOWN_SERVER_ERROR;
    }
}
