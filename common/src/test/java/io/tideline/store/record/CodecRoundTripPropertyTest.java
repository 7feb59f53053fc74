package io.tideline.store.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;

/**
 * Every codec Kafka's clients send, both ways (docs/storage.md, Compression): batches our builder compresses read
 * back the same through our walk and through kafka-clients 4.4's own reader, and batches kafka-clients'
 * MemoryRecordsBuilder compresses read back the same through ours, with the leader's bound. Records are random:
 * null and empty keys and values, headers, timestamps either side of the first.
 */
class CodecRoundTripPropertyTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long BOUND = 1_048_588 - RecordBatch.RECORDS_OFFSET;

    record Input(long timestamp, byte[] key, byte[] value, List<Header> headers) {
    }

    @Provide
    Arbitrary<List<Input>> records() {
        Arbitrary<byte[]> bytes = Arbitraries.oneOf(Arbitraries.just((byte[]) null),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300),
                // Repetitive values, so that the codecs' back references are exercised too.
                Arbitraries.strings().withChars("ab").ofMaxLength(2000).map(String::getBytes));
        Arbitrary<Header> header = Combinators.combine(Arbitraries.strings().alpha().ofMaxLength(8),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(20).injectNull(0.2)).as(Header::new);
        Arbitrary<Input> input = Combinators.combine(Arbitraries.longs().between(-5_000, 5_000), bytes, bytes,
                header.list().ofMaxSize(3)).as((ts, k, v, h) -> new Input(T0 + ts, k, v, h));
        return input.list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 60)
    void ourBatchesReadBackTheSameThroughOurWalkAndKafkasReader(@ForAll("records") List<Input> inputs,
                                                                @ForAll CompressionType type) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0, type);
        List<Record> expected = new ArrayList<>();
        for (Input in : inputs) {
            builder.append(in.timestamp(), in.key(), in.value(), in.headers());
            expected.add(new Record(expected.size(), in.timestamp(), in.key(), in.value(), in.headers()));
        }
        RecordBatch batch = builder.build();
        batch.ensureValid();
        assertEquals(type, batch.compressionType());
        assertEquals(expected, batch.records());
        List<Long> walked = new ArrayList<>();
        batch.forEachRecord(BOUND, (delta, ts) -> walked.add(ts));
        assertEquals(expected.stream().map(Record::timestamp).toList(), walked);

        org.apache.kafka.common.record.internal.MemoryRecords kafka =
                org.apache.kafka.common.record.internal.MemoryRecords.readableRecords(batch.buffer());
        List<Record> seenByKafka = new ArrayList<>();
        for (org.apache.kafka.common.record.internal.RecordBatch b : kafka.batches()) {
            b.ensureValid();
            assertEquals(type.id, b.compressionType().id);
            for (org.apache.kafka.common.record.internal.Record r : b) {
                seenByKafka.add(fromKafka(r));
            }
        }
        assertEquals(expected, seenByKafka);
    }

    @Property(tries = 60)
    void kafkasBatchesReadBackTheSameThroughOurWalk(@ForAll("records") List<Input> inputs,
                                                    @ForAll CompressionType type) {
        MemoryRecordsBuilder builder = org.apache.kafka.common.record.internal.MemoryRecords.builder(
                ByteBuffer.allocate(1024), org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                kafkaCompression(type), TimestampType.CREATE_TIME, 0L);
        List<Record> expected = new ArrayList<>();
        for (Input in : inputs) {
            org.apache.kafka.common.header.Header[] headers = in.headers().stream()
                    .map(h -> new RecordHeader(h.key(), h.value())).toArray(org.apache.kafka.common.header.Header[]::new);
            builder.append(in.timestamp(), in.key(), in.value(), headers);
            expected.add(new Record(expected.size(), in.timestamp(), in.key(), in.value(), in.headers()));
        }
        ByteBuffer built = builder.build().buffer();
        RecordBatch ours = RecordBatch.wrap(built);
        ours.ensureValid();
        assertEquals(type, ours.compressionType());
        assertEquals(expected, ours.records());
        int[] count = {0};
        ours.forEachRecord(BOUND, (delta, ts) -> assertEquals(count[0]++, delta));
        assertEquals(inputs.size(), count[0]);
    }

    @Property(tries = 20)
    void theSameRecordsBuiltByKafkaAndByUsDecodeAlike(@ForAll @Size(min = 1, max = 20) List<@net.jqwik.api.constraints.AlphaChars String> values,
                                                     @ForAll CompressionType type) {
        RecordBatchBuilder ours = new RecordBatchBuilder(0, type);
        MemoryRecordsBuilder kafka = org.apache.kafka.common.record.internal.MemoryRecords.builder(
                ByteBuffer.allocate(1024), org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                kafkaCompression(type), TimestampType.CREATE_TIME, 0L);
        for (int i = 0; i < values.size(); i++) {
            ours.append(T0 + i, null, values.get(i).getBytes());
            kafka.append(T0 + i, null, values.get(i).getBytes());
        }
        RecordBatch fromKafka = RecordBatch.wrap(kafka.build().buffer());
        RecordBatch fromUs = ours.build();
        assertEquals(fromUs.records(), fromKafka.records());
        if (type == CompressionType.NONE) {
            assertArrayEquals(bytes(fromUs.buffer()), bytes(fromKafka.buffer()));
        }
    }

    private static Compression kafkaCompression(CompressionType type) {
        return switch (type) {
            case NONE -> Compression.NONE;
            case GZIP -> Compression.gzip().build();
            case SNAPPY -> Compression.snappy().build();
            case LZ4 -> Compression.lz4().build();
            case ZSTD -> Compression.zstd().build();
        };
    }

    private static Record fromKafka(org.apache.kafka.common.record.internal.Record r) {
        List<Header> headers = new ArrayList<>();
        for (org.apache.kafka.common.header.Header h : r.headers()) {
            headers.add(new Header(h.key(), h.value()));
        }
        return new Record(r.offset(), r.timestamp(), r.hasKey() ? bytes(r.key()) : null,
                r.hasValue() ? bytes(r.value()) : null, headers);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
