package io.tideline.cluster.history;

import java.util.List;

/**
 * Checks a recorded {@link History} after healing and the final full read, in the spirit of Jepsen's Kafka
 * workload: no acknowledged write lost, duplicates counted, no offset with two values, consumers in order,
 * replicas identical to the leader, high watermark and log start offset monotonic. docs/testing.md describes the
 * properties and the report. Stateless; safe to share.
 */
public final class HistoryChecker {

    private final List<Check> checks;

    private HistoryChecker(boolean strictDuplicates) {
        this.checks = List.of(
            new AcknowledgedWritesCheck(),
            new DuplicateValuesCheck(strictDuplicates),
            new OffsetValuesCheck(),
            new ConsumerOrderCheck(),
            new ReplicaConsistencyCheck(),
            new WatermarkMonotonicityCheck());
    }

    /** Duplicates are counted and described but are not violations: the producer is not idempotent yet. */
    public static HistoryChecker lenient() {
        return new HistoryChecker(false);
    }

    /** Every duplicate is a violation (for an idempotent producer). */
    public static HistoryChecker strict() {
        return new HistoryChecker(true);
    }

    public CheckResult check(History history) {
        return check(history.events());
    }

    /** Checks events given in sequence order (the order {@link History#events()} returns). */
    public CheckResult check(List<HistoryEvent> events) {
        HistoryIndex index = new HistoryIndex(events);
        CheckResult.Builder result = new CheckResult.Builder();
        for (Check check : checks) {
            check.run(index, result);
        }
        return result.build();
    }
}
