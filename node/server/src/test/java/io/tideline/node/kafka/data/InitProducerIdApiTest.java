package io.tideline.node.kafka.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.node.kafka.KafkaApis;
import io.tideline.node.kafka.KafkaRequest;
import io.tideline.node.producer.ProducerIdInitializer;
import io.tideline.node.producer.ProducerIdManager;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.ProducerIdBlock;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

class InitProducerIdApiTest {
    private final ArrayDeque<CompletableFuture<ControllerResponse>> asked = new ArrayDeque<>();
    private final InitProducerIdApi api = new InitProducerIdApi(new ProducerIdInitializer(new ProducerIdManager(() -> {
        CompletableFuture<ControllerResponse> f = new CompletableFuture<>();
        asked.add(f);
        return f;
    })));

    private static ControllerResponse block(long first) {
        return ControllerResponse.newBuilder().setProducerIdBlock(ProducerIdBlock.newBuilder()
                .setFirstProducerId(first).setLength(1000)).build();
    }

    private CompletableFuture<InitProducerIdResponseData> call(short version, InitProducerIdRequestData body) {
        RequestHeader header = new RequestHeader(ApiKeys.INIT_PRODUCER_ID, version, "producer-1", 7);
        return api.handle(new KafkaRequest(header, body, new InetSocketAddress("127.0.0.1", 5000)));
    }

    private static InitProducerIdRequestData idempotent() {
        return new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(Integer.MAX_VALUE);
    }

    private static InitProducerIdResponseData done(CompletableFuture<InitProducerIdResponseData> f) {
        assertTrue(f.isDone(), "answered without waiting");
        return f.join();
    }

    @Test
    void anIdempotentProducerGetsANewIdWithEpochZeroAnsweredWhenTheBlockArrives() {
        CompletableFuture<InitProducerIdResponseData> first = call((short) 5, idempotent());
        assertFalse(first.isDone(), "no block yet: the answer waits for the controller, the thread does not");
        asked.poll().complete(block(4000));
        InitProducerIdResponseData r = first.join();
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(4000, r.producerId());
        assertEquals(0, r.producerEpoch());
        InitProducerIdResponseData second = done(call((short) 0, idempotent()));
        assertEquals(4001, second.producerId(), "two producers get different ids");
    }

    @Test
    void theProducersOwnIdAndEpochBumpTheEpochAndTheLastEpochGetsANewId() {
        InitProducerIdResponseData bumped = done(call((short) 4, idempotent().setProducerId(17).setProducerEpoch((short) 3)));
        assertEquals(Errors.NONE.code(), bumped.errorCode());
        assertEquals(17, bumped.producerId());
        assertEquals(4, bumped.producerEpoch());
        assertTrue(asked.isEmpty(), "a bump needs no new id");

        CompletableFuture<InitProducerIdResponseData> overflow = call((short) 4,
                idempotent().setProducerId(17).setProducerEpoch(Short.MAX_VALUE));
        asked.poll().complete(block(0));
        assertEquals(0, overflow.join().producerId(), "epoch 32767 cannot be bumped: a new id");
        assertEquals(0, overflow.join().producerEpoch());
    }

    @Test
    void transactionsAreRefusedWithTransactionalIdAuthorizationFailed() {
        InitProducerIdResponseData r = done(call((short) 5, idempotent().setTransactionalId("payments-1")));
        assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code(), r.errorCode());
        assertEquals(-1, r.producerId());
        assertEquals(-1, r.producerEpoch());
        InitProducerIdResponseData twoPhase = done(call((short) 6, idempotent().setEnable2Pc(true)));
        assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code(), twoPhase.errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), done(call((short) 5, idempotent().setTransactionalId(""))).errorCode(),
                "an empty transactional id, as Kafka");
        assertTrue(asked.isEmpty(), "nothing asked of the controller");
    }

    @Test
    void halfAProducerIdOrANegativeEpochIsAnInvalidRequest() {
        assertEquals(Errors.INVALID_REQUEST.code(), done(call((short) 5, idempotent().setProducerId(5))).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(),
                done(call((short) 5, idempotent().setProducerId(-1).setProducerEpoch((short) 2))).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(),
                done(call((short) 5, idempotent().setProducerId(5).setProducerEpoch((short) -7))).errorCode());
    }

    @Test
    void noBlockFromTheControllerIsTheRetriableCoordinatorLoadInProgress() {
        CompletableFuture<InitProducerIdResponseData> f = call((short) 5, idempotent());
        asked.poll().complete(ControllerResponse.newBuilder().setErrorCode(41).build());
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS.code(), f.join().errorCode());
        assertTrue(Errors.COORDINATOR_LOAD_IN_PROGRESS.exception() instanceof org.apache.kafka.common.errors.RetriableException);
    }

    @Test
    void everyVersionKafkaClientsKnowsIsServedAndAdvertised() {
        KafkaApis apis = new KafkaApis().register(api);
        for (short v = ApiKeys.INIT_PRODUCER_ID.oldestVersion(); v <= ApiKeys.INIT_PRODUCER_ID.latestVersion(); v++) {
            assertTrue(apis.serves(ApiKeys.INIT_PRODUCER_ID, v), "v" + v);
        }
        assertEquals(6, ApiKeys.INIT_PRODUCER_ID.latestVersion(), "kafka-clients 4.4's newest; a newer one needs a look");
    }
}
