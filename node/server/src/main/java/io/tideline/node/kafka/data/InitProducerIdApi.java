package io.tideline.node.kafka.data;

import io.tideline.node.kafka.AbstractKafkaApi;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.producer.ProducerIdInitializer;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId (key 22) v0-v6: what every idempotent Kafka producer sends before its first Produce. Versions
 * 0-2 carry no producer id, so they always get a new one; 3+ may ask for an epoch bump. v6's two-phase commit
 * (KIP-939) belongs to transactions and is refused with them (docs/kafka-protocol.md, "Producer ids").
 */
public final class InitProducerIdApi extends AbstractKafkaApi {
    private final ProducerIdInitializer initializer;

    public InitProducerIdApi(ProducerIdInitializer initializer) {
        super(ApiKeys.INIT_PRODUCER_ID, 0, 6);
        this.initializer = initializer;
    }

    @Override
    public CompletableFuture<InitProducerIdResponseData> handle(KafkaRequest request) {
        InitProducerIdRequestData body = request.body(InitProducerIdRequestData.class);
        if (body.enable2Pc() || body.keepPreparedTxn()) {
            return CompletableFuture.completedFuture(new InitProducerIdResponseData()
                    .setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()).setProducerId(-1).setProducerEpoch((short) -1));
        }
        return initializer.init(body.transactionalId(), body.producerId(), body.producerEpoch())
                .thenApply(r -> new InitProducerIdResponseData().setErrorCode(r.error().code())
                        .setProducerId(r.producerId()).setProducerEpoch(r.producerEpoch()));
    }
}
