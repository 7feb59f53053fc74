package io.tideline.testsupport.link;

import java.io.IOException;

/**
 * What a request over a cut {@link RequestLink} fails with: an I/O error, as a connection error is to the
 * RPC callers (a fetcher backs off and retries, a producer reports a network failure).
 */
public final class LinkCutException extends IOException {
    LinkCutException(String message) {
        super(message);
    }
}
