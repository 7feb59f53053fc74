package io.tideline.cluster.proxy;

import java.time.Duration;

/**
 * The fault switches of one link. Thread-safe: each switch is a volatile field read by the accept loop and by
 * every pump on each chunk, so a change applies to the next chunk or connection without a lock on the data path.
 */
final class LinkFaults {
    private volatile boolean cut;
    private volatile boolean refusing;
    private volatile long delayNanos;
    private volatile boolean held;

    boolean cut() {
        return cut;
    }

    boolean refusing() {
        return refusing;
    }

    long delayNanos() {
        return delayNanos;
    }

    boolean held() {
        return held;
    }

    void held(boolean value) {
        held = value;
    }

    void cut(boolean value) {
        cut = value;
    }

    void refusing(boolean value) {
        refusing = value;
    }

    void delay(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative: " + delay);
        }
        delayNanos = delay.toNanos();
    }

    void clear() {
        cut = false;
        refusing = false;
        delayNanos = 0;
        held = false;
    }

    @Override
    public String toString() {
        if (!cut && !refusing && delayNanos == 0 && !held) {
            return "forwarding";
        }
        StringBuilder s = new StringBuilder();
        if (cut) {
            s.append("cut");
        }
        if (refusing) {
            s.append(s.length() > 0 ? "+" : "").append("refusing");
        }
        if (delayNanos > 0) {
            s.append(s.length() > 0 ? "+" : "").append("delay=").append(Duration.ofNanos(delayNanos));
        }
        if (held) {
            s.append(s.length() > 0 ? "+" : "").append("held");
        }
        return s.toString();
    }
}
