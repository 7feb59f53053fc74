package io.tideline.common.time;

/**
 * The source of time for every component that cares about it. Production code uses {@link #SYSTEM};
 * tests use test-support's {@code MockTime} so that retention, lag and delay rules can be exercised by jumping the
 * clock instead of sleeping.
 */
public interface Time {

    Time SYSTEM = new SystemTime();

    /** Wall-clock milliseconds since the epoch; what record timestamps are compared with. */
    long milliseconds();

    /** Monotonic nanoseconds, for measuring intervals only. */
    long nanoseconds();

    /** Blocks the calling thread (a {@code MockTime} advances itself instead). */
    void sleep(long ms);

    final class SystemTime implements Time {
        private SystemTime() {
        }

        @Override
        public long milliseconds() {
            return System.currentTimeMillis();
        }

        @Override
        public long nanoseconds() {
            return System.nanoTime();
        }

        @Override
        public void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
