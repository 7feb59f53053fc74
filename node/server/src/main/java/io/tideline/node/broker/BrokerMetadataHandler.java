package io.tideline.node.broker;

import io.tideline.node.metadata.MetadataImage;

/**
 * The broker side of metadata: receives, in log order, what changed for this broker. Implemented by the
 * replica manager.
 */
@FunctionalInterface
public interface BrokerMetadataHandler {

    /**
     * Called once per published image, on the publisher's thread, never concurrently.
     *
     * @param delta what this broker must do; apply its stops and deletes before its leads and follows
     * @param image the image the delta leads to (for leader endpoints, topic configs, ...)
     * @throws RuntimeException to refuse the image: the publisher keeps its previous image, so the next
     *                          delta repeats these changes (handlers must tolerate a repeated lead or
     *                          follow at the same epoch)
     */
    void onDelta(MetadataDelta delta, MetadataImage image);
}
