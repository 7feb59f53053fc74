package io.tideline.node.kafka;

import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * A {@link SliceRecords} on its way to the socket as a Netty file region: Netty's NIO transport hands it the
 * socket channel and the bytes go from the segment file with a file transfer (sendfile), never through the heap.
 * Netty releases the region once it is written or its write failed (the connection died with it queued), and the
 * release closes the slice, which lets go of the segment file.
 */
final class SliceRegion extends AbstractReferenceCounted implements FileRegion {
    private final SliceRecords records;
    private final long count;
    private long transferred;

    SliceRegion(SliceRecords records) {
        this.records = records;
        this.count = records.sizeInBytes();
    }

    @Override
    public long position() {
        return 0;
    }

    @Override
    @Deprecated
    public long transfered() {
        return transferred;
    }

    @Override
    public long transferred() {
        return transferred;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long transferTo(WritableByteChannel target, long position) throws IOException {
        long n = records.slice().transferTo(position, count - position, target);
        transferred += n;
        return n;
    }

    @Override
    protected void deallocate() {
        records.close();
    }

    @Override
    public SliceRegion retain() {
        super.retain();
        return this;
    }

    @Override
    public SliceRegion retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public SliceRegion touch() {
        return this;
    }

    @Override
    public SliceRegion touch(Object hint) {
        return this;
    }
}
