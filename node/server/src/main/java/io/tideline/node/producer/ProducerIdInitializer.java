package io.tideline.node.producer;

import io.tideline.common.errors.Errors;
import java.util.concurrent.CompletableFuture;

/**
 * InitProducerId's rules, shared by the Kafka listener and the gRPC client API (docs/kafka-protocol.md,
 * "Producer ids"):
 * <ul>
 *   <li>no transactional id, no producer id (-1/-1): a new producer id with epoch 0;</li>
 *   <li>no transactional id, the producer's id and epoch (KIP-360): the same id with the epoch one higher, so
 *       partition leaders fence the old epoch and the producer restarts its sequences at 0; a new id with
 *       epoch 0 when the epoch is Short.MAX_VALUE already;</li>
 *   <li>a transactional id: TRANSACTIONAL_ID_AUTHORIZATION_FAILED, since transactions are not served; an empty
 *       one INVALID_REQUEST, as in Kafka;</li>
 *   <li>only one of producer id and epoch set, or a negative one other than -1/-1: INVALID_REQUEST.</li>
 * </ul>
 * There is no transaction coordinator, so no per-producer state lives here: the partition leaders keep it.
 *
 * <p>Thread-safe.
 */
public final class ProducerIdInitializer {
    private final ProducerIdManager ids;

    public ProducerIdInitializer(ProducerIdManager ids) {
        this.ids = ids;
    }

    /**
     * @param transactionalId null for an idempotent producer
     * @param producerId      -1, or the id to bump the epoch of
     * @param producerEpoch   -1, or that id's current epoch
     */
    public CompletableFuture<InitProducerIdResult> init(String transactionalId, long producerId, short producerEpoch) {
        if (transactionalId != null) {
            return done(InitProducerIdResult.error(transactionalId.isEmpty() ? Errors.INVALID_REQUEST
                    : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
        }
        boolean noId = producerId == -1 && producerEpoch == -1;
        if (noId) {
            return fresh();
        }
        if (producerId < 0 || producerEpoch < 0) {
            return done(InitProducerIdResult.error(Errors.INVALID_REQUEST));
        }
        if (producerEpoch == Short.MAX_VALUE) {
            return fresh();
        }
        return done(new InitProducerIdResult(producerId, (short) (producerEpoch + 1), Errors.NONE));
    }

    private CompletableFuture<InitProducerIdResult> fresh() {
        return ids.generate().thenApply(r -> r.error() == Errors.NONE
                ? new InitProducerIdResult(r.producerId(), (short) 0, Errors.NONE)
                : InitProducerIdResult.error(r.error()));
    }

    private static CompletableFuture<InitProducerIdResult> done(InitProducerIdResult result) {
        return CompletableFuture.completedFuture(result);
    }
}
