package io.tideline.node.controller.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.node.testutil.LogCapture;
import io.tideline.proto.metadata.BrokerHeartbeatResponse;
import io.tideline.testsupport.ports.Ports;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ControllerClientCloseTest {

    /** A reserved port nothing binds: connects are refused. */
    private static InetSocketAddress deadAddress() {
        return new InetSocketAddress("127.0.0.1", Ports.one());
    }

    /**
     * The last nodes of a cluster going down heartbeat a quorum that is already gone: their requests sit in
     * Ratis between retries when the client closes. Ratis logged each one that woke after the close at
     * ERROR, with a stack trace ("client-... is already CLOSED").
     */
    @Test
    void closingWhileRequestsRetryAgainstAStoppedQuorumLogsNoError() throws Exception {
        Map<Integer, InetSocketAddress> voters = Map.of(1, deadAddress(), 2, deadAddress(), 3, deadAddress());
        try (LogCapture logs = new LogCapture()) {
            // The request timeout is far away: the futures complete when Ratis lets go of the requests.
            ControllerClient client = new ControllerClient("cluster-close-test", voters, Time.SYSTEM, Duration.ofSeconds(60));
            List<CompletableFuture<BrokerHeartbeatResponse>> heartbeats = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                heartbeats.add(client.heartbeat(1, 1, 0, true));
            }
            CompletableFuture<?> command = client.registerBroker(1, "incarnation", List.of(), null);
            // Let the first attempts fail (connection refused) so that the requests wait between retries.
            Thread.sleep(300);

            long startNs = System.nanoTime();
            client.close();
            long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);

            for (CompletableFuture<BrokerHeartbeatResponse> f : heartbeats) {
                assertTrue(f.get(30, TimeUnit.SECONDS).getErrorCode() != Errors.NONE.code());
            }
            command.get(30, TimeUnit.SECONDS);
            assertTrue(closeMs < ControllerClient.CLOSE_DRAIN_TIMEOUT.toMillis(), "close took " + closeMs + " ms");
            assertEquals(List.of(), logs.errorsAndStackTraces());
        }
    }

    @Test
    void requestsAfterCloseAreAnsweredBrokerNotAvailableWithoutRatis() throws Exception {
        ControllerClient client = new ControllerClient("cluster-close-test", Map.of(1, deadAddress()), Time.SYSTEM);
        client.close();
        assertEquals(Errors.BROKER_NOT_AVAILABLE.code(), client.heartbeat(1, 1, 0, false).get(1, TimeUnit.SECONDS).getErrorCode());
        assertEquals(Errors.BROKER_NOT_AVAILABLE.code(), client.fetchImage(0).get(1, TimeUnit.SECONDS).getErrorCode());
    }
}
