package io.tideline.store.producer;

import java.util.Optional;

/**
 * What the producer state says about a leader append before anything is written: go ahead, or the
 * batch repeats one already written ({@link #duplicateOf()}), which the append answers with the original
 * offsets and writes nothing. Refusals are thrown as typed errors instead.
 */
public record ProducerAppendOutcome(Optional<BatchMetadata> duplicateOf) {
    public static final ProducerAppendOutcome APPEND = new ProducerAppendOutcome(Optional.empty());

    public static ProducerAppendOutcome duplicate(BatchMetadata original) {
        return new ProducerAppendOutcome(Optional.of(original));
    }

    public boolean isDuplicate() {
        return duplicateOf.isPresent();
    }
}
