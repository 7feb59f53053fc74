package io.tideline.cluster.harness;

import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.Record;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one replica's own log, from its log start offset up to its high watermark, as the (offset, value)
 * pairs the history checker's replica check compares with the leader's final read. It reads the local
 * {@link Log} directly, not through a fetch, since a consumer fetch always goes to the leader.
 */
public final class ReplicaLogReader {
    private static final int READ_BYTES = 1024 * 1024;

    private ReplicaLogReader() {
    }

    /** A replica's bounds when it was read and its records between them, values decoded as UTF-8. */
    public record Snapshot(long logStartOffset, long highWatermark, List<LogEntry> entries) {
    }

    public static Snapshot read(Log log) {
        long start = log.logStartOffset();
        long hw = log.highWatermark();
        List<LogEntry> entries = new ArrayList<>();
        long next = start;
        while (next < hw) {
            List<Record> records;
            try (FetchDataInfo info = log.read(next, READ_BYTES, hw, true)) {
                records = info.records().toMemoryRecords().records();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            long before = next;
            for (Record r : records) {
                // A read starts at the batch holding `next`, so skip the batch's records below it.
                if (r.offset() >= next && r.offset() < hw) {
                    if (r.value() == null) {
                        throw new IllegalStateException("a null value at offset " + r.offset() + " of "
                                + log.topicPartition() + ": the scenarios write a unique value per record");
                    }
                    entries.add(new LogEntry(r.offset(), new String(r.value(), StandardCharsets.UTF_8)));
                    next = r.offset() + 1;
                }
            }
            if (next == before) {
                break;
            }
        }
        return new Snapshot(start, hw, entries);
    }
}
