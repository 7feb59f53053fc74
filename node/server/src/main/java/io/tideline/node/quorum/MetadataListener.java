package io.tideline.node.quorum;

import io.tideline.node.metadata.MetadataImage;
import io.tideline.proto.metadata.MetadataRecord;
import java.util.List;

/**
 * Told about every change of a voter's image, in log order, on the thread that applies it (Ratis'
 * apply thread; for the snapshot loaded at start, the thread calling {@code QuorumServer.start()}, so
 * a listener added before the start sees the image from the beginning). A listener must return
 * quickly and never block on the quorum (hand heavy work to another thread).
 *
 * <p>{@code records} are the records that turned {@code previous} into {@code current}; empty when
 * the entry changed nothing but the offset (a refused command, a Raft configuration entry), and also
 * empty when the image was replaced wholesale by a snapshot (at start, or one installed from the
 * leader): then {@code current} has to be compared with {@code previous} as a whole.
 */
@FunctionalInterface
public interface MetadataListener {
    void onMetadata(MetadataImage previous, MetadataImage current, List<MetadataRecord> records);
}
