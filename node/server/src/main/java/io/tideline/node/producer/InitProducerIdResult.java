package io.tideline.node.producer;

import io.tideline.common.errors.Errors;

/** InitProducerId's answer, on either listener: the producer id and epoch to write with, or an error. */
public record InitProducerIdResult(long producerId, short producerEpoch, Errors error) {

    public static InitProducerIdResult error(Errors error) {
        return new InitProducerIdResult(-1, (short) -1, error);
    }
}
