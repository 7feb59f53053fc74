package io.tideline.replication.tools;

import static io.tideline.store.tools.BenchmarkSupport.MB;

import java.util.Arrays;

/**
 * Timings of one scenario over {@code bytes} leader bytes, per round; the figures are the best round of
 * each. The target: at least half the raw read, or 0.8 of the follower's own append rate,
 * whichever is lower.
 */
record CatchUpResult(long bytes, long[] catchUpRounds, long[] catchUpCpuRounds, long[] catchUpAllocatedRounds,
                     long[] rawReadRounds, long[] appendRounds) {
    long catchUpNs() {
        return Arrays.stream(catchUpRounds).min().orElseThrow();
    }

    double catchUpMbPerS() {
        return bytes / MB / (catchUpNs() / 1e9);
    }

    double rawReadMbPerS() {
        return bytes / MB / (Arrays.stream(rawReadRounds).min().orElseThrow() / 1e9);
    }

    /**
     * CPU the whole process spent per MB during the cheapest catch-up round (every thread: leader,
     * follower, gRPC, GC, JIT): the cost of moving the bytes, which a busy neighbour on the machine
     * changes much less than the elapsed time.
     */
    double catchUpCpuMsPerMb() {
        return Arrays.stream(catchUpCpuRounds).min().orElseThrow() / 1e6 / (bytes / MB);
    }

    /** Heap bytes the process allocated per byte caught up (fewest of the rounds): copies show here exactly. */
    double catchUpAllocatedPerByte() {
        return (double) Arrays.stream(catchUpAllocatedRounds).min().orElseThrow() / bytes;
    }

    double appendMbPerS() {
        return bytes / MB / (Arrays.stream(appendRounds).min().orElseThrow() / 1e9);
    }

    boolean targetIsRawRead() {
        return 0.5 * rawReadMbPerS() <= 0.8 * appendMbPerS();
    }

    double targetMbPerS() {
        return Math.min(0.5 * rawReadMbPerS(), 0.8 * appendMbPerS());
    }

    String targetRule() {
        return targetIsRawRead() ? "0.5x raw read" : "0.8x follower append";
    }
}
