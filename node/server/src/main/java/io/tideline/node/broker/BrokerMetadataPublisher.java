package io.tideline.node.broker;

import io.tideline.node.metadata.MetadataImage;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a sequence of metadata images into deltas for one broker's {@link BrokerMetadataHandler}. Fed by
 * the local state machine on a voter, or by the {@link MetadataFetcher} on a broker-only node; either way
 * images arrive in log order, and one that is not newer than the last published one is skipped (a
 * fetch answered by a lagging voter, a repeated image).
 *
 * <p>Thread-safety: {@link #publish} calls are serialized by the publisher's lock and the handler runs
 * under it, so the handler sees deltas one at a time in offset order; it must not call back into
 * {@link #publish}. {@link #lastPublished()} may be read from any thread.
 */
public final class BrokerMetadataPublisher {
    private static final Logger log = LoggerFactory.getLogger(BrokerMetadataPublisher.class);

    private final int brokerId;
    private final BrokerMetadataHandler handler;
    private volatile MetadataImage lastPublished;

    /** Starts from {@link MetadataImage#EMPTY}: the first delta lists every partition the broker hosts. */
    public BrokerMetadataPublisher(int brokerId, BrokerMetadataHandler handler) {
        this.brokerId = brokerId;
        this.handler = Objects.requireNonNull(handler, "handler");
        this.lastPublished = MetadataImage.EMPTY;
    }

    /**
     * Hands the handler the delta from the last published image to {@code image}, unless {@code image} is
     * not newer.
     *
     * @return false when the image was skipped
     * @throws RuntimeException from the handler; the image is then not recorded as published
     */
    public synchronized boolean publish(MetadataImage image) {
        Objects.requireNonNull(image, "image");
        MetadataImage previous = lastPublished;
        if (image.offset() <= previous.offset()) {
            log.debug("Skipping metadata image at offset {}: already published offset {}", image.offset(),
                    previous.offset());
            return false;
        }
        MetadataDelta delta = MetadataDelta.compute(brokerId, previous, image);
        handler.onDelta(delta, image);
        lastPublished = image;
        return true;
    }

    /** The last image the handler accepted; {@link MetadataImage#EMPTY} before the first. */
    public MetadataImage lastPublished() {
        return lastPublished;
    }

    public int brokerId() {
        return brokerId;
    }
}
