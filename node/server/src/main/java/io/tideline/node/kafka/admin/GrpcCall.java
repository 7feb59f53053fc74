package io.tideline.node.kafka.admin;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Calls a method of the node's gRPC admin service in-process and hands its single answer back as a future,
 * so the Kafka admin APIs run exactly the code the gRPC clients run (one place for each admin rule).
 */
final class GrpcCall {
    private GrpcCall() {
    }

    static <Q, R> CompletableFuture<R> call(BiConsumer<Q, StreamObserver<R>> method, Q request) {
        CompletableFuture<R> answer = new CompletableFuture<>();
        try {
            method.accept(request, new StreamObserver<>() {
                @Override
                public void onNext(R value) {
                    answer.complete(value);
                }

                @Override
                public void onError(Throwable t) {
                    answer.completeExceptionally(t);
                }

                @Override
                public void onCompleted() {
                    if (!answer.isDone()) {
                        answer.completeExceptionally(new IllegalStateException("the admin service answered nothing"));
                    }
                }
            });
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
        }
        return answer;
    }
}
