package io.tideline.node.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * Produce requests whose records field is hostile, for the hostile-frame table: the request itself is well formed
 * (kafka-clients writes it), only the record batch bytes are bad. Batch layout (magic 2): base offset 8, length 4,
 * leader epoch 4, magic 1, CRC 4 (CRC-32C of everything after it), attributes 2, last offset delta 4, base and max
 * timestamps 8 + 8, producer id 8, epoch 2, base sequence 4, record count 4 = 61 bytes of header.
 */
final class RecordBatchFrames {
    static final short PRODUCE_VERSION = 12;
    static final int LENGTH_OFFSET = 8;
    static final int MAGIC_OFFSET = 16;
    static final int CRC_OFFSET = 17;
    static final int ATTRIBUTES_OFFSET = 21;
    static final int RECORD_COUNT_OFFSET = 57;

    private RecordBatchFrames() {
    }

    static ProduceRequest produce(String topic, int partition, ByteBuffer records) {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5_000);
        ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData().setName(topic);
        t.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(partition)
                .setRecords(MemoryRecords.readableRecords(records)));
        data.topicData().add(t);
        return new ProduceRequest(data, PRODUCE_VERSION);
    }

    static ByteBuffer validBatch() {
        return copy(MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(1_000L, bytes("k"), bytes("v")), new SimpleRecord(1_001L, bytes("k2"), bytes("v2")))
                .buffer());
    }

    static ByteBuffer badCrc() {
        ByteBuffer b = validBatch();
        b.putInt(CRC_OFFSET, b.getInt(CRC_OFFSET) ^ 0x5A5A5A5A);
        return b;
    }

    /** A negative record count under a CRC that matches: only the count is wrong. */
    static ByteBuffer negativeRecordCount() {
        ByteBuffer b = validBatch();
        b.putInt(RECORD_COUNT_OFFSET, -3);
        return recomputeCrc(b);
    }

    /** The batch's length field says more bytes than the records field holds. */
    static ByteBuffer lengthBeyondRecordsField() {
        ByteBuffer b = validBatch();
        b.putInt(LENGTH_OFFSET, b.getInt(LENGTH_OFFSET) + 100);
        return b;
    }

    /** Fewer bytes than one batch header. */
    static ByteBuffer shorterThanABatchHeader() {
        ByteBuffer b = validBatch();
        b.limit(30);
        return copy(b);
    }

    static ByteBuffer legacy(byte magic) {
        return copy(MemoryRecords.withRecords(magic, 0L, Compression.NONE,
                new SimpleRecord(1_000L, bytes("k"), bytes("v"))).buffer());
    }

    /** An end-of-transaction marker: a control batch, which only a transaction coordinator may write. */
    static ByteBuffer controlBatch() {
        return copy(MemoryRecords.withEndTransactionMarker(0L, 1_000L, 0, 7L, (short) 0,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0)).buffer());
    }

    static ByteBuffer empty() {
        return ByteBuffer.allocate(0);
    }

    private static ByteBuffer recomputeCrc(ByteBuffer b) {
        CRC32C crc = new CRC32C();
        ByteBuffer covered = b.duplicate();
        covered.position(ATTRIBUTES_OFFSET);
        crc.update(covered);
        b.putInt(CRC_OFFSET, (int) crc.getValue());
        return b;
    }

    private static ByteBuffer copy(ByteBuffer source) {
        ByteBuffer out = ByteBuffer.allocate(source.remaining());
        out.put(source.duplicate());
        out.flip();
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
