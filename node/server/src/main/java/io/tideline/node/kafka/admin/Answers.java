package io.tideline.node.kafka.admin;

import io.tideline.node.kafka.ErrorMessages;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/** Small conversions between the admin services' results and Kafka's response data. Stateless. */
final class Answers {
    private Answers() {
    }

    /**
     * The operation's future, or a failed one when it throws instead of answering: each API then answers
     * UNKNOWN_SERVER_ERROR for what it asked, as for any other failure of the operation.
     */
    static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> operation) {
        try {
            return operation.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Kafka's code for one of ours: the numbers are the same (ErrorsMatchKafkaTest pins them). */
    static short code(int ours) {
        return Errors.forCode((short) ours).code();
    }

    /** Kafka's responses carry null, not "", when there is no message. */
    static String message(String ours) {
        return ours == null || ours.isEmpty() ? null : ErrorMessages.bounded(ours);
    }

    /** The message of an error answer: ours when there is one, else Kafka's default for the code. */
    static String messageOrDefault(int code, String ours) {
        return code == 0 ? null : ours == null || ours.isEmpty() ? Errors.forCode((short) code).message()
                : ErrorMessages.bounded(ours);
    }

    /** Our topic ids are Kafka's Uuid strings (URL-safe base64 of 16 bytes); an empty one is the zero id. */
    static Uuid uuid(String topicId) {
        if (topicId == null || topicId.isEmpty()) {
            return Uuid.ZERO_UUID;
        }
        try {
            return Uuid.fromString(topicId);
        } catch (IllegalArgumentException e) {
            return Uuid.ZERO_UUID;
        }
    }

    static String message(Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause.getMessage() == null ? cause.getClass().getSimpleName()
                : ErrorMessages.bounded(cause.getMessage());
    }
}
