package io.tideline.replication.metrics;

import com.codahale.metrics.Meter;
import io.tideline.replication.leader.IsrProposal;

/**
 * Event rates of this broker's leaders (Kafka's IsrShrinksPerSec, IsrExpandsPerSec,
 * FailedIsrUpdatesPerSec); registered under Kafka's names by {@link ReplicationMetrics}.
 */
public final class ReplicationStats {
    private final Meter isrShrinks = new Meter();
    private final Meter isrExpands = new Meter();
    private final Meter failedIsrUpdates = new Meter();

    public void recordIsrChange(IsrProposal committed) {
        if (IsrProposal.LAGGING.equals(committed.reason())) {
            isrShrinks.mark();
        } else {
            isrExpands.mark();
        }
    }

    public void recordFailedIsrUpdate() {
        failedIsrUpdates.mark();
    }

    public Meter isrShrinks() {
        return isrShrinks;
    }

    public Meter isrExpands() {
        return isrExpands;
    }

    public Meter failedIsrUpdates() {
        return failedIsrUpdates;
    }
}
