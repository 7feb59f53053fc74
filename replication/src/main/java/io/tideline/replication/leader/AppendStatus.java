package io.tideline.replication.leader;

import io.tideline.common.errors.Errors;

/** Where an acks=all produce stands after its records were appended to the leader. */
public enum AppendStatus {
    /** The high watermark has not passed the last offset yet; keep the request parked. */
    PENDING,
    /** The high watermark passed the last offset: answer NONE. */
    DONE,
    /** The ISR fell below min.insync.replicas before the high watermark passed the last offset. */
    NOT_ENOUGH_REPLICAS_AFTER_APPEND;

    /** The error to answer with; only meaningful once the status is not {@link #PENDING}. */
    public Errors error() {
        return switch (this) {
            case DONE -> Errors.NONE;
            case NOT_ENOUGH_REPLICAS_AFTER_APPEND -> Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
            case PENDING -> throw new IllegalStateException("An append still pending has no error yet");
        };
    }
}
