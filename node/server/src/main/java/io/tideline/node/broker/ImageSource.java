package io.tideline.node.broker;

import io.tideline.proto.metadata.ControllerQueryResponse;
import java.util.concurrent.CompletableFuture;

/**
 * Where a broker-only node reads the metadata image: a {@code FetchImage} query to the quorum (the
 * controller client implements it). Kept as an interface so the fetcher does not depend on the client.
 */
@FunctionalInterface
public interface ImageSource {

    /**
     * @param knownOffset the offset of the caller's image
     * @return a response whose {@code image} is set when the quorum has a newer image than
     *         {@code knownOffset}, absent when not; a non-zero {@code error_code} or an exceptionally
     *         completed future means the fetch failed
     */
    CompletableFuture<ControllerQueryResponse> fetchImage(long knownOffset);
}
