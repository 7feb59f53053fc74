package io.tideline.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.tideline.common.errors.Errors;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.Optional;
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

    @Test
    void aFailedConnectSaysWhyInOneShortPhrase() {
        // The shapes gRPC's Netty transport produces: the annotated exception wraps the socket's own one.
        ConnectException socket = new ConnectException("finishConnect(..) failed with error(-111): Connection refused");
        ConnectException annotated = new ConnectException(socket.getMessage() + ": /127.0.0.1:1");
        annotated.initCause(socket);
        TransportException refused = new TransportException("ListTopics to 127.0.0.1:1",
                Status.UNAVAILABLE.withDescription("io exception").withCause(annotated).asRuntimeException());
        assertEquals(Optional.of("Connection refused"), refused.connectFailure());
        assertEquals("ListTopics to 127.0.0.1:1: UNAVAILABLE (Connection refused)", refused.getMessage());

        TransportException timedOut = new TransportException("Metadata to h:9092", Status.UNAVAILABLE
                .withDescription("io exception")
                .withCause(new ConnectException("connection timed out after 300 ms: h/10.0.0.1:9092")).asRuntimeException());
        assertEquals(Optional.of("connection timed out after 300 ms"), timedOut.connectFailure());

        TransportException unknownHost = new TransportException("Metadata to nowhere:9092", Status.UNAVAILABLE
                .withDescription("Unable to resolve host nowhere")
                .withCause(new UnknownHostException("nowhere: Name or service not known")).asRuntimeException());
        assertEquals(Optional.of("Unable to resolve host nowhere"), unknownHost.connectFailure());
    }

    @Test
    void aFailureAfterConnectingIsNoConnectFailure() {
        assertEquals(Optional.empty(), new TransportException("Produce", Status.DEADLINE_EXCEEDED
                .withCause(new ConnectException("Connection refused")).asRuntimeException()).connectFailure());
        TransportException lost = new TransportException("Produce", Status.UNAVAILABLE
                .withDescription("Network closed for unknown reason").asRuntimeException());
        assertEquals(Optional.empty(), lost.connectFailure());
        assertEquals("Produce: UNAVAILABLE (Network closed for unknown reason)", lost.getMessage());
    }

    @Test
    void aKafkaListenersGoAwayIsNotRetriedAndKeepsWhatTheNodeSaid() {
        String said = "this is Tideline's Kafka listener (Apache Kafka's protocol); the gRPC API (tideline CLI, "
                + "Tideline clients) is on 127.0.0.1:9392";
        // The shapes grpc-java gives a call ended by GOAWAY: with the stream processed (UNAVAILABLE or INTERNAL
        // from PROTOCOL_ERROR), and after a transparent retry.
        for (Status status : new Status[] {
                Status.INTERNAL.withDescription("GOAWAY shut down transport. HTTP/2 error code: PROTOCOL_ERROR, "
                        + "debug data: " + said),
                Status.UNAVAILABLE.withDescription("Abrupt GOAWAY closed unsent stream. HTTP/2 error code: "
                        + "PROTOCOL_ERROR, debug data: " + said + "\nmore")}) {
            TransportException e = new TransportException("ListTopics to 127.0.0.1:9092", status.asRuntimeException());
            assertEquals(Optional.of(said), e.wrongListener(), status.toString());
            assertFalse(e.retriable(), "the same address cannot answer otherwise");
            assertFalse(Rpc.retriable(e));
        }
    }

    @Test
    void anotherGoAwayIsNoWrongListener() {
        TransportException e = new TransportException("Produce to h:9392", Status.UNAVAILABLE.withDescription(
                "GOAWAY shut down transport. HTTP/2 error code: NO_ERROR, debug data: max_age").asRuntimeException());
        assertEquals(Optional.empty(), e.wrongListener());
        assertTrue(e.retriable());
    }
}
