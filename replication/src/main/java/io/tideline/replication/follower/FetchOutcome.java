package io.tideline.replication.follower;

import io.tideline.common.errors.Errors;

/**
 * What {@link FollowerPartition#onFetchResponse} did with one response.
 *
 * @param kind          what happened
 * @param appendedBytes bytes appended (APPENDED only, may be 0 for an empty response)
 * @param offset        APPENDED: the new log end; TRUNCATED, BOOTSTRAPPED, REBUILDING: the offset the log was
 *                      truncated to or restarted at; FAILED, BACKOFF: the (unchanged) fetch offset
 * @param error         the error in the response (NONE for APPENDED and a diverging-epoch TRUNCATED)
 * @param detail        a human-readable line for logs
 */
public record FetchOutcome(Kind kind, int appendedBytes, long offset, Errors error, String detail) {
    public enum Kind {
        /** Records (possibly none) appended; high watermark and start offset raised. */
        APPENDED,
        /** A divergent tail or a tail ahead of the leader was dropped; nothing appended. */
        TRUNCATED,
        /** A new empty replica restarted at the leader's log start offset (not a failure). */
        BOOTSTRAPPED,
        /** The replica is FAILED (policy halt); it does not fetch until rebuilt or reassigned. */
        FAILED,
        /** A rebuild began: the log was truncated fully and restarted at the leader's log start offset. */
        REBUILDING,
        /** Nothing changed; back off and wait for new metadata (or retry). */
        BACKOFF
    }

    static FetchOutcome appended(int bytes, long logEndOffset) {
        return new FetchOutcome(Kind.APPENDED, bytes, logEndOffset, Errors.NONE, "appended " + bytes + " bytes");
    }

    static FetchOutcome truncated(long offset, Errors error, String detail) {
        return new FetchOutcome(Kind.TRUNCATED, 0, offset, error, detail);
    }

    static FetchOutcome of(Kind kind, long offset, Errors error, String detail) {
        return new FetchOutcome(kind, 0, offset, error, detail);
    }
}
