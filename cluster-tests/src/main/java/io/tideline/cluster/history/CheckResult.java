package io.tideline.cluster.history;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@link HistoryChecker} found: the counts a scenario reports and asserts on, and the violations. Duplicates
 * are counted apart from violations: without an idempotent producer a retried attempt may land twice, which is
 * expected; they become violations only when the checker is strict.
 *
 * @param acknowledged produce attempts that ended OK
 * @param lost acknowledged records missing at their acknowledged offset (each is also a LOST_WRITE violation)
 * @param deletedByRetention acknowledged records below a log start offset that DeleteRecords or retention moved
 * @param duplicates values seen at more than one offset
 * @param duplicatesOfAcknowledged those of them written by an attempt that ended OK
 * @param failed produce attempts that ended with an error
 * @param unknownOutcomes produce attempts that timed out or never completed
 * @param consumed records the consumers read
 */
public record CheckResult(long acknowledged, long lost, long deletedByRetention, long duplicates,
                          long duplicatesOfAcknowledged, long failed, long unknownOutcomes, long consumed,
                          List<String> duplicateDescriptions, List<Violation> violations) {

    public CheckResult {
        duplicateDescriptions = List.copyOf(duplicateDescriptions);
        violations = List.copyOf(violations);
    }

    public boolean valid() {
        return violations.isEmpty();
    }

    public List<Violation> violations(Violation.Kind kind) {
        return violations.stream().filter(v -> v.kind() == kind).toList();
    }

    /** @throws AssertionError carrying {@link #report()} if any property was broken */
    public void assertValid() {
        if (!valid()) {
            throw new AssertionError(report());
        }
    }

    /** The counts on one line, then each violation with its slice, then the duplicates. */
    public String report() {
        StringBuilder out = new StringBuilder();
        out.append(valid() ? "history valid: " : "history INVALID, " + violations.size() + " violation(s): ")
            .append("acknowledged=").append(acknowledged)
            .append(" lost=").append(lost)
            .append(" deleted-by-retention=").append(deletedByRetention)
            .append(" duplicates=").append(duplicates)
            .append(" (of acknowledged ").append(duplicatesOfAcknowledged).append(')')
            .append(" failed=").append(failed)
            .append(" unknown=").append(unknownOutcomes)
            .append(" consumed=").append(consumed);
        for (Violation violation : violations) {
            out.append("\n  ").append(violation.render());
        }
        for (String duplicate : duplicateDescriptions) {
            out.append("\n  duplicate: ").append(duplicate);
        }
        return out.toString();
    }

    /** Collects what the checks find. Not thread-safe; one checker run owns it. */
    static final class Builder {
        long acknowledged;
        long lost;
        long deletedByRetention;
        long duplicates;
        long duplicatesOfAcknowledged;
        long failed;
        long unknownOutcomes;
        long consumed;
        final List<String> duplicateDescriptions = new ArrayList<>();
        final List<Violation> violations = new ArrayList<>();

        void violation(Violation.Kind kind, String description, List<HistoryEvent> slice) {
            violations.add(new Violation(kind, description, slice));
        }

        CheckResult build() {
            return new CheckResult(acknowledged, lost, deletedByRetention, duplicates, duplicatesOfAcknowledged,
                failed, unknownOutcomes, consumed, duplicateDescriptions, violations);
        }
    }
}
