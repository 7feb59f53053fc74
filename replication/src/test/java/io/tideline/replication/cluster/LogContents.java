package io.tideline.replication.cluster;

import io.tideline.store.log.FetchDataInfo;
import io.tideline.store.log.Log;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** What a replica's log holds, read back through {@link Log#read} for comparisons between replicas. */
final class LogContents {
    private static final int READ_BYTES = 256 * 1024;

    private LogContents() {
    }

    /** Every batch of [logStartOffset, logEndOffset), byte for byte, in offset order. */
    static byte[] batchBytes(Log log) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (RecordBatch batch : batches(log)) {
            ByteBuffer buffer = batch.buffer();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }

    static List<RecordBatch> batches(Log log) {
        List<RecordBatch> all = new ArrayList<>();
        long offset = log.logStartOffset();
        long end = log.logEndOffset();
        while (offset < end) {
            MemoryRecords records;
            try (FetchDataInfo info = log.read(offset, READ_BYTES, end, true)) {
                records = info.records().toMemoryRecords();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            List<RecordBatch> batches = records.batches();
            if (batches.isEmpty()) {
                throw new AssertionError("read at " + offset + " of " + log + " returned nothing below " + end);
            }
            all.addAll(batches);
            offset = batches.get(batches.size() - 1).nextOffset();
        }
        return all;
    }

    /** The record values as strings, in offset order. */
    static List<String> values(Log log) {
        List<String> values = new ArrayList<>();
        for (RecordBatch batch : batches(log)) {
            for (Record r : batch.records()) {
                values.add(new String(r.value(), StandardCharsets.UTF_8));
            }
        }
        return values;
    }
}
