package io.tideline.store.record;

import java.io.IOException;

/** A codec refused to inflate past the bound it was given (B121): the batch is too large, not corrupt. */
final class InflateBoundException extends IOException {
    InflateBoundException(String message) {
        super(message);
    }
}
