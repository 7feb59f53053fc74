package io.tideline.client;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.tideline.common.errors.Errors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/** Unary gRPC calls as futures, and the one place transport failures become {@link TransportException}. */
final class Rpc {
    private Rpc() {
    }

    /** Starts {@code method(request)}; the future fails with a {@link TransportException} naming {@code target}. */
    static <Q, A> CompletableFuture<A> call(String target, BiConsumer<Q, StreamObserver<A>> method, Q request) {
        CompletableFuture<A> result = new CompletableFuture<>();
        try {
            method.accept(request, new StreamObserver<>() {
                @Override
                public void onNext(A value) {
                    result.complete(value);
                }

                @Override
                public void onError(Throwable t) {
                    result.completeExceptionally(transportError(target, t));
                }

                @Override
                public void onCompleted() {
                    if (!result.isDone()) {
                        result.completeExceptionally(new TidelineClientException(Errors.UNKNOWN_SERVER_ERROR,
                                target + ": the call completed without an answer"));
                    }
                }
            });
        } catch (RuntimeException e) {
            result.completeExceptionally(transportError(target, e));
        }
        return result;
    }

    static TidelineClientException transportError(String target, Throwable t) {
        if (t instanceof TidelineClientException e) {
            return e;
        }
        if (t instanceof StatusRuntimeException sre) {
            return new TransportException(target, sre);
        }
        if (t instanceof IllegalStateException) {
            // BrokerChannels refuses new calls once the client is closed.
            return new TidelineClientException(Errors.BROKER_NOT_AVAILABLE, target + ": " + t.getMessage(), t);
        }
        return new TidelineClientException(Errors.UNKNOWN_SERVER_ERROR, target + ": " + t, t);
    }

    /** Whether a failure of a whole call may succeed when retried, possibly elsewhere. */
    static boolean retriable(Throwable t) {
        Throwable cause = unwrap(t);
        if (cause instanceof BootstrapException) {
            return false;
        }
        if (cause instanceof TransportException te) {
            return te.retriable();
        }
        return cause instanceof TidelineClientException ce && ce.error().retriable();
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Waits for {@code future}; the call's own gRPC deadline normally ends it first, the local bound is a
     * guard against a call that never completes.
     */
    static <A> A await(CompletableFuture<A> future, long timeoutMs, String target) {
        try {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            throw new TidelineClientException(Errors.REQUEST_TIMED_OUT, target + ": interrupted", e);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new TidelineClientException(Errors.REQUEST_TIMED_OUT, target + ": no answer within " + timeoutMs
                    + " ms", e);
        } catch (ExecutionException e) {
            throw transportError(target, unwrap(e));
        }
    }
}
