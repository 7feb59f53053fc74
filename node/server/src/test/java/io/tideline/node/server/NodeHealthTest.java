package io.tideline.node.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The gRPC health status follows the node's own health check, fencing included, and ends NOT_SERVING. */
class NodeHealthTest {

    @Test
    void theHealthServiceAnswersWhatTheNodeHealthCheckSaysAtEachRefresh() throws Exception {
        AtomicBoolean healthy = new AtomicBoolean(false);
        NodeHealth health = new NodeHealth(healthy::get);
        String name = InProcessServerBuilder.generateName();
        Server server = InProcessServerBuilder.forName(name).addService(health.service()).build().start();
        ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
        try {
            HealthGrpc.HealthBlockingStub stub = HealthGrpc.newBlockingStub(channel);
            assertEquals(ServingStatus.NOT_SERVING, check(stub), "before the node serves");

            healthy.set(true);
            assertEquals(ServingStatus.NOT_SERVING, check(stub), "only a refresh publishes");
            health.refresh();
            assertEquals(ServingStatus.SERVING, check(stub));

            healthy.set(false);   // fenced by the controller
            health.refresh();
            assertEquals(ServingStatus.NOT_SERVING, check(stub));

            healthy.set(true);    // unfenced again
            health.refresh();
            assertEquals(ServingStatus.SERVING, check(stub));

            health.stop();
            health.refresh();
            assertEquals(ServingStatus.NOT_SERVING, check(stub), "stopping is final");
            assertEquals(ServingStatus.NOT_SERVING, health.status());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static ServingStatus check(HealthGrpc.HealthBlockingStub stub) {
        return stub.withDeadlineAfter(5, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance()).getStatus();
    }
}
