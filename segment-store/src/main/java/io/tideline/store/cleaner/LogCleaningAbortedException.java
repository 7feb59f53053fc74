package io.tideline.store.cleaner;

/**
 * A cleaning stopped because its log is being deleted, truncated or closed, or lost a segment it was
 * rewriting to retention (docs/behaviours.md B189). Nothing of it is swapped in; its files are deleted.
 */
public final class LogCleaningAbortedException extends RuntimeException {
    public LogCleaningAbortedException(String message) {
        super(message, null, false, false);
    }
}
