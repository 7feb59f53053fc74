package io.tideline.replication.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.KnownLength;
import io.grpc.StatusRuntimeException;
import io.tideline.common.TopicPartition;
import io.tideline.proto.replication.FetchedPartition;
import io.tideline.proto.replication.ReplicaFetchResponse;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FetchResponseMarshallerTest {

    /** What the Netty transport hands a marshaller: the received bytes, of known length, not a message object. */
    private static class ReceivedBytes extends ByteArrayInputStream implements KnownLength {
        ReceivedBytes(byte[] bytes) {
            super(bytes);
        }
    }

    private static MemoryRecords records() {
        RecordBatchBuilder builder = new RecordBatchBuilder(7L);
        for (int i = 0; i < 50; i++) {
            builder.append(1_000L + i, "k" + i, "value-" + i);
        }
        return MemoryRecords.of(builder.build());
    }

    @Test
    void bytesInSeveralPiecesAreStillReadWhole() {
        MemoryRecords sent = records();
        ByteString whole = ByteString.copyFrom(sent.buffer().duplicate());
        int half = whole.size() / 2;
        ByteString pieces = whole.substring(0, half).concat(whole.substring(half));
        ByteBuffer view = ReplicationProtos.view(pieces);
        assertEquals(whole, ByteString.copyFrom(view));
        assertEquals(sent.records(), MemoryRecords.readableRecords(ReplicationProtos.view(whole)).records());
    }

    private static ReplicaFetchResponse response(MemoryRecords records) {
        return ReplicaFetchResponse.newBuilder()
                .addPartitions(ReplicationProtos.toProto(new TopicPartition("orders", 3),
                        FetchResponseData.records(records, 40L, 0L, 57L)))
                .addPartitions(FetchedPartition.newBuilder().setTopic("idle").setPartition(0).setHighWatermark(5))
                .build();
    }

    @Test
    void receivedBytesParseToTheSameResponseWithRecordsTheFollowerCanAppendFromTheReceivedArray() {
        MemoryRecords sent = records();
        byte[] received = response(sent).toByteArray();
        ReplicaFetchResponse parsed = FetchResponseMarshaller.INSTANCE.parse(new ReceivedBytes(received));
        assertEquals(response(sent), parsed);
        FetchResponseData data = ReplicationProtos.fromProto(parsed.getPartitions(0));
        ByteBuffer view = data.records().buffer();
        assertTrue(view.hasArray(), "a buffer over an array, which CRC32C reads in place");
        assertEquals(received.length, view.array().length, "the whole received message's array, not a copy of the records");
        assertEquals(sent.records(), data.records().records());
        assertEquals(7L, data.records().batches().get(0).baseOffset());
        data.records().batches().forEach(b -> assertTrue(b.isValid(), "the CRC checks out on the view"));
        assertEquals(57L, data.leaderLogEndOffset());
        assertEquals(0, ReplicationProtos.fromProto(parsed.getPartitions(1)).records().sizeInBytes());
    }

    @Test
    void aMessageStillInMemoryIsHandedOverAsItIs() {
        ReplicaFetchResponse sent = response(records());
        InputStream inProcess = FetchResponseMarshaller.INSTANCE.stream(sent);
        assertSame(sent, FetchResponseMarshaller.INSTANCE.parse(inProcess));
    }

    @Test
    void anEmptyMessageIsTheDefaultResponse() {
        assertEquals(ReplicaFetchResponse.getDefaultInstance(),
                FetchResponseMarshaller.INSTANCE.parse(new ReceivedBytes(new byte[0])));
    }

    @Test
    void aTruncatedMessageIsAnInternalErrorNotAShorterAnswer() {
        byte[] whole = response(records()).toByteArray();
        byte[] cut = Arrays.copyOf(whole, whole.length - 3);
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> FetchResponseMarshaller.INSTANCE.parse(new ReceivedBytes(cut)));
        assertEquals(io.grpc.Status.Code.INTERNAL, e.getStatus().getCode());
        // A stream that ends before the length it announced is refused the same way.
        StatusRuntimeException shortStream = assertThrows(StatusRuntimeException.class,
                () -> FetchResponseMarshaller.INSTANCE.parse(new ReceivedBytes(cut) {
                    @Override
                    public synchronized int available() {
                        return whole.length;
                    }
                }));
        assertEquals(io.grpc.Status.Code.INTERNAL, shortStream.getStatus().getCode());
    }

    @Test
    void recordsAreNotCopiedOutOfTheReceivedMessage() {
        MemoryRecords sent = records();
        byte[] wire = response(sent).toByteArray();
        ByteString records = FetchResponseMarshaller.INSTANCE.parse(new ReceivedBytes(wire)).getPartitions(0).getRecords();
        // An aliased ByteString is a view at an offset inside the message; a copy would start at 0.
        assertTrue(records.asReadOnlyByteBuffer().position() > 0, "records start inside the received message");
    }
}
