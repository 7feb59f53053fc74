package io.tideline.store.producer;

/**
 * Sequence arithmetic as Kafka's producer and broker do it: a sequence is a non-negative int that wraps
 * from Integer.MAX_VALUE to 0, so a long-lived producer never runs out.
 */
public final class Sequences {
    private Sequences() {
    }

    /** The sequence {@code delta} records after {@code sequence}, wrapping past Integer.MAX_VALUE to 0. */
    public static int increment(int sequence, int delta) {
        long next = (long) sequence + delta;
        return next > Integer.MAX_VALUE ? (int) (next - Integer.MAX_VALUE - 1) : (int) next;
    }

    /** Whether {@code next} is the sequence right after {@code last}. */
    public static boolean follows(int last, int next) {
        return next == last + 1L || (next == 0 && last == Integer.MAX_VALUE);
    }
}
