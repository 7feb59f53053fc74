package io.tideline.client;

/** The values of {@code auto.offset.reset}. */
public enum OffsetResetStrategy {
    /** Move to the log start offset; offsets below it that were never read are reported as skipped. */
    EARLIEST,
    /** Move to the high watermark. */
    LATEST,
    /** Do not move: poll() throws. */
    NONE
}
