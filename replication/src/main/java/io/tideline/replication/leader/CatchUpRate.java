package io.tideline.replication.leader;

import java.util.ArrayDeque;
import java.util.Optional;

/**
 * How fast one follower's log end has been moving over the last {@code windowMs}, from the positions its
 * fetches reported to the leader. Bounded: at most {@code maxSamples} positions, at least
 * {@code windowMs / (maxSamples - 1)} apart (a fetch closer than that to the previous position replaces it), so
 * a follower fetching thousands of times a second costs the same as one fetching once a second.
 *
 * <p>Rates are taken over the span from the oldest position in the window to <em>now</em>, not to the last
 * fetch: a follower that stopped fetching shows its rate falling to 0 within one window.
 *
 * <p>Not thread-safe; owned by {@link FollowerState} under the partition lock.
 */
public final class CatchUpRate {
    /** The window replicas --describe reports over. */
    public static final long DEFAULT_WINDOW_MS = 30_000L;
    public static final int DEFAULT_MAX_SAMPLES = 16;

    /** Where the follower's log end was at one time. */
    public record Sample(long timeMs, long logEndOffset) {
    }

    /**
     * The window as of a time: the oldest and newest positions in it and the span from the oldest to then.
     * The caller turns the offsets into bytes with the leader's log (docs/replication.md, "Replica states").
     */
    public record Span(Sample oldest, Sample newest, long spanMs) {
        /** Offsets per second the log end advanced; 0 when it went back (a truncation) or the span is empty. */
        public double offsetsPerSecond() {
            long moved = newest.logEndOffset() - oldest.logEndOffset();
            return spanMs <= 0 || moved <= 0 ? 0.0 : moved * 1000.0 / spanMs;
        }

        /** {@code bytes} moved over the span, per second. */
        public double perSecond(long bytes) {
            return spanMs <= 0 || bytes <= 0 ? 0.0 : bytes * 1000.0 / spanMs;
        }
    }

    private final long windowMs;
    private final int maxSamples;
    private final long stepMs;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();

    public CatchUpRate() {
        this(DEFAULT_WINDOW_MS, DEFAULT_MAX_SAMPLES);
    }

    public CatchUpRate(long windowMs, int maxSamples) {
        if (windowMs <= 0 || maxSamples < 2) {
            throw new IllegalArgumentException("window must be positive and hold at least 2 samples: " + windowMs
                    + " ms, " + maxSamples);
        }
        this.windowMs = windowMs;
        this.maxSamples = maxSamples;
        // maxSamples positions a step apart span the whole window.
        this.stepMs = Math.max(1, windowMs / (maxSamples - 1));
    }

    /** A fetch reported {@code logEndOffset} at {@code nowMs}. */
    public void record(long nowMs, long logEndOffset) {
        Sample sample = new Sample(nowMs, logEndOffset);
        if (samples.size() >= 2) {
            Sample last = samples.pollLast();
            // Keep the last position only if it is a step past the one before it; otherwise the new one takes its place.
            if (last.timeMs() - samples.peekLast().timeMs() >= stepMs) {
                samples.addLast(last);
            }
        }
        samples.addLast(sample);
        while (samples.size() > maxSamples) {
            samples.pollFirst();
        }
        expire(nowMs);
    }

    /** The window as of {@code nowMs}; empty when fewer than two positions fall in it. */
    public Optional<Span> span(long nowMs) {
        expire(nowMs);
        if (samples.size() < 2) {
            return Optional.empty();
        }
        return Optional.of(new Span(samples.peekFirst(), samples.peekLast(), nowMs - samples.peekFirst().timeMs()));
    }

    /** Positions held now (for tests of the bound). */
    public int size() {
        return samples.size();
    }

    private void expire(long nowMs) {
        while (!samples.isEmpty() && nowMs - samples.peekFirst().timeMs() > windowMs) {
            samples.pollFirst();
        }
    }
}
