package io.tideline.store.segment;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * How a log reaches the files of its segments: the {@code .log} file's channel is opened here, and a
 * memory-mapped index reports each fsync here, since its writes and its msync bypass any channel.
 * {@link #REAL} is the file system as it is; a test passes a layer that records what was fsynced and
 * drops the rest on a simulated power loss (docs/storage.md, Durability). One instance serves many logs
 * and threads, so an implementation is thread-safe.
 */
public interface FileLayer {

    /** The file system itself. */
    FileLayer REAL = new FileLayer() {
    };

    /** Opens (creating it if absent) a segment's {@code .log} file for reading and writing. */
    default FileChannel openSegmentFile(Path file) throws IOException {
        return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** An index file's mapping was forced to disk: its contents as of now are durable. */
    default void indexFlushed(Path file) {
    }
}
