package io.tideline.store.log;

import io.tideline.store.segment.RecordsSlice;

/**
 * The result of a read: whole batches from the one holding {@code fetchOffset}, and the log's bounds
 * when the read was made. Close it (or its records) once the bytes are sent.
 */
public record FetchDataInfo(long fetchOffset, RecordsSlice records, long logStartOffset, long highWatermark,
                            long logEndOffset) implements AutoCloseable {

    @Override
    public void close() {
        records.close();
    }
}
