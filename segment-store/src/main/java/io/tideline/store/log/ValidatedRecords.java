package io.tideline.store.log;

import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import java.util.List;

/**
 * A leader append's records after {@link Log#validateForLeader}: framed, CRC-checked and walked record by record,
 * all without the log's lock or the partition's (B122). Only {@link Log#appendAsLeader(ValidatedRecords, int)}
 * uses them, once; it rewrites the batches in place. Not thread-safe.
 */
public final class ValidatedRecords {
    final MemoryRecords records;
    final List<RecordBatch> batches;
    final List<LogValidator.RecordChecks> walked;

    ValidatedRecords(MemoryRecords records, List<RecordBatch> batches, List<LogValidator.RecordChecks> walked) {
        this.records = records;
        this.batches = batches;
        this.walked = walked;
    }
}
