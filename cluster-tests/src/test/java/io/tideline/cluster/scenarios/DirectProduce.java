package io.tideline.cluster.scenarios;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.tideline.cluster.history.History;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.node.server.TidelineNode;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.ProducePartition;
import io.tideline.proto.client.ProducePartitionResponse;
import io.tideline.proto.client.ProduceRequest;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One acks=all produce sent to one broker at its own listener port, bypassing its client proxy and the client's
 * routing: what a client on the broker's side of a partition, or one with stale metadata, would send. The
 * attempt and its outcome go into the {@link History} like the produce loop's, so the checker holds the broker
 * to whatever it answered.
 */
final class DirectProduce {
    private DirectProduce() {
    }

    /** Sends {@code value} to broker at {@code port}, waiting up to {@code timeoutMs} for acks=all; the error. */
    static Errors send(int port, TopicPartition tp, String value, int timeoutMs, History history) {
        History.ProduceAttempt attempt = history.produceInvoked(tp, value);
        MemoryRecords records = MemoryRecords.of(new RecordBatchBuilder(0L)
                .append(System.currentTimeMillis(), (byte[]) null, value.getBytes(StandardCharsets.UTF_8)).build());
        ManagedChannel channel = TidelineNode.ChannelFactory.PLAINTEXT.open(-1, "127.0.0.1", port);
        try {
            ProducePartitionResponse answer = ClientServiceGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(timeoutMs + 5_000L, TimeUnit.MILLISECONDS)
                    .produce(ProduceRequest.newBuilder().setAcks(-1).setTimeoutMs(timeoutMs)
                            .addPartitions(ProducePartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
                                    .setRecords(ByteString.copyFrom(records.buffer())))
                            .build())
                    .getPartitions(0);
            Errors error = Errors.forCode(answer.getErrorCode());
            switch (error) {
                case NONE -> attempt.ok(answer.getBaseOffset());
                // Refused before any append: nothing can land.
                case NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, UNKNOWN_TOPIC_OR_PARTITION -> attempt.failed(error.name());
                // Appended locally, perhaps, and not acknowledged: it may land or be truncated.
                default -> attempt.unknown();
            }
            return error;
        } catch (StatusRuntimeException e) {
            // No answer at all (deadline, lost connection): as a client sees a timeout.
            attempt.unknown();
            return Errors.REQUEST_TIMED_OUT;
        } finally {
            channel.shutdownNow();
        }
    }
}
