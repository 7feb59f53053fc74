package io.tideline.replication.server;

import com.codahale.metrics.Meter;
import io.tideline.replication.leader.IsrProposal;

/**
 * Event rates of this broker's leaders (Kafka's IsrShrinksPerSec, IsrExpandsPerSec,
 * FailedIsrUpdatesPerSec); registered under Kafka's names by {@link io.tideline.replication.metrics.ReplicationMetrics}.
 */
public final class ReplicationStats {
    private final Meter isrShrinks = new Meter();
    private final Meter isrExpands = new Meter();
    private final Meter failedIsrUpdates = new Meter();

    void recordIsrChange(IsrProposal committed) {
        if (IsrProposal.LAGGING.equals(committed.reason())) {
            isrShrinks.mark();
        } else {
            isrExpands.mark();
        }
    }

    void recordFailedIsrUpdate() {
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
