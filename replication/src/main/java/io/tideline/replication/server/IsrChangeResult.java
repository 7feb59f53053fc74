package io.tideline.replication.server;

import io.tideline.common.errors.Errors;
import java.util.List;

/**
 * The controller's answer to an ISR change: NONE with the committed ISR and partition epoch, or the
 * reason it refused (FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, INELIGIBLE_REPLICA, ...).
 */
public record IsrChangeResult(Errors error, List<Integer> isr, int partitionEpoch) {
    public IsrChangeResult {
        isr = List.copyOf(isr);
    }

    public static IsrChangeResult committed(List<Integer> isr, int partitionEpoch) {
        return new IsrChangeResult(Errors.NONE, isr, partitionEpoch);
    }

    public static IsrChangeResult refused(Errors error) {
        return new IsrChangeResult(error, List.of(), -1);
    }
}
