package io.tideline.store.retention;

/** Why a segment left the log; logged with every deletion, so an operator can tell which rule fired. */
public enum DeletionReason {
    /** Wholly below the log start offset (moved by DeleteRecords or by a leader's start offset). */
    LOG_START_OFFSET_BREACH,
    /** The log was larger than retention.bytes. */
    RETENTION_SIZE_BREACH,
    /** Its largest record timestamp is older than retention.ms. */
    RETENTION_TIME_BREACH,
    /** Truncation or log deletion. */
    LOG_TRUNCATION
}
