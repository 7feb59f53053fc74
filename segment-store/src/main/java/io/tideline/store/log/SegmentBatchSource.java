package io.tideline.store.log;

import io.tideline.store.producer.BatchHeader;
import io.tideline.store.producer.ProducerStateManager;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.segment.FileBatch;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * Replays the batch headers of a log's segments for the producer state: from the segment holding the
 * start offset to the end, reading 61-byte headers only (no records, no CRC: recovery has validated
 * the segments it had reason to doubt).
 */
final class SegmentBatchSource implements ProducerStateManager.BatchSource {
    private final LogSegments segments;

    SegmentBatchSource(LogSegments segments) {
        this.segments = segments;
    }

    @Override
    public void replayFrom(long from, Consumer<BatchHeader> visitor) throws IOException {
        for (LogSegment segment : segments.from(from)) {
            FileBatch batch = segment.translateOffset(Math.max(from, segment.baseOffset()));
            int position = batch == null ? segment.size() : batch.position();
            while ((batch = segment.log().batchAt(position, segment.size())) != null) {
                visitor.accept(header(batch));
                position += batch.sizeInBytes();
            }
        }
    }

    static BatchHeader header(FileBatch batch) {
        short attributes = batch.attributes();
        return new BatchHeader(batch.producerId(), batch.producerEpoch(), batch.baseSequence(), batch.lastOffsetDelta(),
                batch.baseOffset(), batch.maxTimestamp(), (attributes & RecordBatch.TRANSACTIONAL_MASK) != 0,
                (attributes & RecordBatch.CONTROL_MASK) != 0);
    }
}
