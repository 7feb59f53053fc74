package io.tideline.common.errors;

/** A read or a DeleteRecords target outside [log start offset, bound]; carries both bounds. */
public final class OffsetOutOfRangeException extends TidelineException {
    private final long requestedOffset;
    private final long logStartOffset;
    private final long logEndOffset;

    public OffsetOutOfRangeException(String what, long requestedOffset, long logStartOffset, long logEndOffset) {
        super(Errors.OFFSET_OUT_OF_RANGE, what + ": offset " + requestedOffset
                + " is out of range [" + logStartOffset + ", " + logEndOffset + "]");
        this.requestedOffset = requestedOffset;
        this.logStartOffset = logStartOffset;
        this.logEndOffset = logEndOffset;
    }

    public long requestedOffset() {
        return requestedOffset;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return logEndOffset;
    }
}
