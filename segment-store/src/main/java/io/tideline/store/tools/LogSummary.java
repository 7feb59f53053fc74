package io.tideline.store.tools;

import io.tideline.store.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The batch headers of a .log up to its end or its first bad bytes, for index verification: where each batch
 * starts, its offsets and its max timestamp.
 */
record LogSummary(List<BatchSummary> batches, int validBytes, String problem) {
    record BatchSummary(int position, long baseOffset, long lastOffset, long maxTimestamp) {
    }

    static LogSummary scan(Path file) throws IOException {
        List<BatchSummary> batches = new ArrayList<>();
        try (TolerantLogReader reader = new TolerantLogReader(file, Integer.MAX_VALUE, false)) {
            ByteBuffer header;
            while ((header = reader.next()) != null) {
                long base = header.getLong(RecordBatch.BASE_OFFSET_OFFSET);
                long last = base + header.getInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET);
                batches.add(new BatchSummary(reader.position(), base, last,
                        header.getLong(RecordBatch.MAX_TIMESTAMP_OFFSET)));
                reader.advance();
            }
            return new LogSummary(batches, reader.position(), reader.problem());
        }
    }

    BatchSummary batchAt(int position) {
        int lo = 0;
        int hi = batches.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int p = batches.get(mid).position();
            if (p == position) {
                return batches.get(mid);
            } else if (p < position) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return null;
    }

    long lastOffset() {
        return batches.get(batches.size() - 1).lastOffset();
    }

    /** Largest max timestamp among batches that start at or below {@code offset}. */
    long maxTimestampUpTo(long offset) {
        long max = RecordBatch.NO_TIMESTAMP;
        for (BatchSummary b : batches) {
            if (b.baseOffset() > offset) {
                break;
            }
            max = Math.max(max, b.maxTimestamp());
        }
        return max;
    }
}
