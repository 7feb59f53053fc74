package io.tideline.node.group;

import io.tideline.node.metadata.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The metadata image this broker has applied, and futures for "applied up to index N". A group change is
 * answered only once the local image holds it, so that an OffsetFetch or a DescribeGroups on this coordinator
 * right after an acknowledged OffsetCommit sees it (read your writes). Thread-safe; waiters are few (at most
 * one commit entry and the group changes in flight).
 */
public final class ImageTracker {
    private volatile MetadataImage image;
    private final TreeMap<Long, List<CompletableFuture<MetadataImage>>> waiters = new TreeMap<>();

    public ImageTracker(MetadataImage initial) {
        this.image = initial;
    }

    public MetadataImage image() {
        return image;
    }

    /** Called with every image the broker applies, in order. */
    public void onImage(MetadataImage next) {
        List<CompletableFuture<MetadataImage>> due = new ArrayList<>();
        synchronized (this) {
            if (next.offset() < image.offset()) {
                return;
            }
            image = next;
            Map<Long, List<CompletableFuture<MetadataImage>>> head = waiters.headMap(next.offset(), true);
            head.values().forEach(due::addAll);
            head.clear();
        }
        due.forEach(f -> f.complete(next));
    }

    /** Completes with the first image at or after {@code offset}. */
    public CompletableFuture<MetadataImage> awaitOffset(long offset) {
        synchronized (this) {
            if (image.offset() < offset) {
                CompletableFuture<MetadataImage> f = new CompletableFuture<>();
                waiters.computeIfAbsent(offset, k -> new ArrayList<>()).add(f);
                return f;
            }
        }
        return CompletableFuture.completedFuture(image);
    }
}
