package io.tideline.node.producer;

import io.tideline.common.errors.Errors;

/** A producer id, or the error that says why there is none: a value, never an exception. */
public record ProducerIdResult(long producerId, Errors error) {

    public static ProducerIdResult of(long producerId) {
        return new ProducerIdResult(producerId, Errors.NONE);
    }

    public static ProducerIdResult error(Errors error) {
        return new ProducerIdResult(-1, error);
    }
}
