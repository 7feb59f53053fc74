package io.tideline.node.kafka;

import io.tideline.store.segment.RecordsSlice;
import java.io.IOException;
import java.util.Objects;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Stored batches in a Fetch response, as they are in the segment file: the {@code records} field of a
 * {@code FetchResponseData} partition. The listener's writer sends them with a file transfer (sendfile)
 * instead of reading them into the heap, and closes the slice once they are sent or the connection is gone;
 * the slice holds the segment file open meanwhile, so retention may delete it under the read (B-entries on
 * reads outliving a segment in docs/behaviours.md).
 */
public final class SliceRecords implements BaseRecords, AutoCloseable {
    private final RecordsSlice slice;

    public SliceRecords(RecordsSlice slice) {
        this.slice = Objects.requireNonNull(slice, "slice");
    }

    public RecordsSlice slice() {
        return slice;
    }

    @Override
    public int sizeInBytes() {
        return slice.sizeInBytes();
    }

    /** Kafka's own network layer's way to send these bytes; the Netty listener uses {@link #slice()}. */
    @Override
    public RecordsSend<SliceRecords> toSend() {
        return new RecordsSend<>(this, sizeInBytes()) {
            @Override
            protected int writeTo(TransferableChannel channel, int previouslyWritten, int remaining) throws IOException {
                return (int) slice.transferTo(previouslyWritten, remaining, channel);
            }
        };
    }

    @Override
    public void close() {
        slice.close();
    }

    /**
     * Closes every slice of a Fetch response that will not be sent (the fetch's own failure paths, a connection
     * gone before the write); closing a sent slice again is harmless.
     */
    public static void closeAll(FetchResponseData response) {
        response.responses().forEach(t -> t.partitions().forEach(p -> {
            if (p.records() instanceof SliceRecords s) {
                s.close();
            }
        }));
    }

    @Override
    public String toString() {
        return "SliceRecords(" + sizeInBytes() + " bytes)";
    }
}
