package io.tideline.replication.rpc;

import com.google.protobuf.ByteOutput;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.replication.FetchPartition;
import io.tideline.proto.replication.FetchedPartition;
import io.tideline.replication.follower.DivergingEpoch;
import io.tideline.replication.follower.FetchResponseData;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.store.record.MemoryRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Optional;

/** Conversions between the replication wire messages and the replica manager's types. */
final class ReplicationProtos {
    private ReplicationProtos() {
    }

    static FetchPartition toProto(FollowerFetch fetch) {
        FetchPartition.Builder b = FetchPartition.newBuilder()
                .setTopic(fetch.topicPartition().topic())
                .setPartition(fetch.topicPartition().partition())
                .setCurrentLeaderEpoch(fetch.currentLeaderEpoch())
                .setFetchOffset(fetch.fetchOffset())
                .setLastFetchedEpoch(fetch.lastFetchedEpoch())
                .setLogStartOffset(fetch.logStartOffset())
                .setHighWatermark(fetch.highWatermark())
                .setPartitionMaxBytes(fetch.maxBytes());
        if (fetch.logEndOffset() != fetch.fetchOffset()) {
            b.setLogEndOffset(fetch.logEndOffset());
        }
        return b.build();
    }

    static FollowerFetch fromProto(FetchPartition p) {
        return new FollowerFetch(new TopicPartition(p.getTopic(), p.getPartition()), p.getCurrentLeaderEpoch(),
                p.getFetchOffset(), p.getLastFetchedEpoch(), p.getLogStartOffset(), p.getHighWatermark(),
                p.getPartitionMaxBytes(), p.hasLogEndOffset() ? p.getLogEndOffset() : p.getFetchOffset());
    }

    static FetchedPartition toProto(TopicPartition tp, FetchResponseData data) {
        FetchedPartition.Builder b = FetchedPartition.newBuilder()
                .setTopic(tp.topic())
                .setPartition(tp.partition())
                .setErrorCode(data.error().code())
                .setHighWatermark(data.leaderHighWatermark())
                .setLogStartOffset(data.leaderLogStartOffset())
                .setLogEndOffset(data.leaderLogEndOffset());
        data.divergingEpoch().ifPresent(d -> b.setDivergingEpoch(
                io.tideline.proto.replication.DivergingEpoch.newBuilder().setEpoch(d.epoch()).setEndOffset(d.endOffset())));
        if (data.records().sizeInBytes() > 0) {
            // The buffer is not touched again once handed over: wrap it instead of copying.
            b.setRecords(UnsafeByteOperations.unsafeWrap(data.records().buffer().duplicate()));
        }
        return b.build();
    }

    static FetchResponseData fromProto(FetchedPartition p) {
        Optional<DivergingEpoch> diverging = p.hasDivergingEpoch()
                ? Optional.of(new DivergingEpoch(p.getDivergingEpoch().getEpoch(), p.getDivergingEpoch().getEndOffset()))
                : Optional.empty();
        ByteString bytes = p.getRecords();
        // A view, not a copy: the follower's append only reads the batches (framing, CRC, the write), and
        // the bytes behind it (the received message, or in-process the leader's read) are not reused.
        MemoryRecords records = bytes.isEmpty() ? MemoryRecords.EMPTY : MemoryRecords.readableRecords(view(bytes));
        return new FetchResponseData(Errors.forCode(p.getErrorCode()), records, p.getHighWatermark(),
                p.getLogStartOffset(), p.getLogEndOffset(), diverging);
    }

    /**
     * The bytes as a buffer over the array they are in, when they are in one (what {@link FetchResponseMarshaller}
     * parses, and an in-process leader's read). ByteString's own read-only view hides the array, and CRC32C then
     * checksums a buffer by copying it out in 4 KiB pieces: 4% of a node's allocation under load
     * (docs/performance.md). Nothing writes into the view; the array stays the ByteString's. Bytes in several pieces
     * (not what either transport gives) get ByteString's read-only buffer.
     */
    static ByteBuffer view(ByteString bytes) {
        OnePiece output = new OnePiece();
        try {
            UnsafeByteOperations.unsafeWriteTo(bytes, output);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // OnePiece throws nothing
        }
        return output.whole != null && !output.split ? output.whole : bytes.asReadOnlyByteBuffer();
    }

    /** What a ByteString hands over of itself without copying: its one piece, unless it comes in several. */
    private static final class OnePiece extends ByteOutput {
        ByteBuffer whole;
        boolean split;

        @Override
        public void write(byte value) {
            split = true;
        }

        @Override
        public void write(byte[] value, int offset, int length) {
            writeLazy(value, offset, length);
        }

        @Override
        public void writeLazy(byte[] value, int offset, int length) {
            writeLazy(ByteBuffer.wrap(value, offset, length));
        }

        @Override
        public void write(ByteBuffer value) {
            writeLazy(value);
        }

        @Override
        public void writeLazy(ByteBuffer value) {
            split |= whole != null;
            whole = value.slice();
        }
    }

    static TopicPartition topicPartition(FetchedPartition p) {
        return new TopicPartition(p.getTopic(), p.getPartition());
    }
}
