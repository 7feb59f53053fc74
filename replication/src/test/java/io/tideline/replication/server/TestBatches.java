package io.tideline.replication.server;

import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;

/** Batches for tests that drive a {@link ReplicaManager} directly, and what a follower counts of an answer. */
final class TestBatches {
    private TestBatches() {
    }

    /** One batch of {@code count} small records stamped {@code timestampMs}. */
    static MemoryRecords of(int count, long timestampMs) {
        RecordBatchBuilder b = new RecordBatchBuilder(0L);
        for (int i = 0; i < count; i++) {
            b.append(timestampMs, "k", "v".repeat(100));
        }
        return MemoryRecords.of(b.build());
    }

    /** The offsets {@code records} spans, batch by batch (what a follower's log end moves by). */
    static long countRecords(MemoryRecords records) {
        long n = 0;
        for (var batch : records.batches()) {
            n += batch.lastOffset() - batch.baseOffset() + 1;
        }
        return n;
    }
}
