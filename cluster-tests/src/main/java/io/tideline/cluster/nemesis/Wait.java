package io.tideline.cluster.nemesis;

import java.time.Duration;

/**
 * Lets the load run for a while under the faults in force. This is the nemesis's pacing between steps, not a
 * wait for a condition: how long a fault lasts is part of the seeded sequence.
 */
public record Wait(Duration duration) implements Operation {
    @Override
    public String kind() {
        return "wait";
    }

    @Override
    public void update(ClusterModel model) {
    }

    @Override
    public String apply(NemesisContext context) throws InterruptedException {
        Thread.sleep(duration.toMillis());
        return "waited";
    }

    @Override
    public String toString() {
        return "wait " + duration.toMillis() + " ms";
    }
}
