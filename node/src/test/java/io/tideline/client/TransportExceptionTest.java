package io.tideline.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.tideline.common.errors.Errors;
import org.junit.jupiter.api.Test;

class TransportExceptionTest {

    @Test
    void aCallTheStoppingBrokerCancelledIsRetriedLikeALostConnection() {
        TransportException e = new TransportException("Produce to 127.0.0.1:9092",
                Status.CANCELLED.withDescription("RST_STREAM closed stream. HTTP/2 error code: CANCEL").asRuntimeException());
        assertTrue(e.retriable());
        assertTrue(Rpc.retriable(e));
        assertEquals(Errors.BROKER_NOT_AVAILABLE, e.error());
        assertEquals(Status.Code.CANCELLED, e.status());
    }

    @Test
    void statusesThatNoRetryCanFixAreNotRetried() {
        for (Status status : new Status[] {Status.INVALID_ARGUMENT, Status.UNIMPLEMENTED, Status.INTERNAL}) {
            TransportException e = new TransportException("Produce", status.asRuntimeException());
            assertFalse(e.retriable(), status.toString());
            assertEquals(Errors.UNKNOWN_SERVER_ERROR, e.error());
        }
    }
}
