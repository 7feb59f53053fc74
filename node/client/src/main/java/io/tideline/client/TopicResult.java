package io.tideline.client;

import io.tideline.common.errors.Errors;

/** The outcome of one topic in a create or delete call: NONE or the broker's error with its message. */
public record TopicResult(String name, Errors error, String message) {

    public boolean isSuccess() {
        return error == Errors.NONE;
    }
}
