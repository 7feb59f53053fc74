package io.tideline.node.server;

import io.grpc.BindableService;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.util.function.BooleanSupplier;

/**
 * The node's grpc.health.v1 status (what {@code tideline health} and the containers' health checks ask),
 * kept equal to the node's own health check, the one /health answers: SERVING while the node is registered,
 * unfenced and not stopping. Refreshed on a schedule, because fencing happens on the controller's side: a
 * node whose heartbeats stop reaching the quorum learns it is fenced from its next heartbeat answer, and a
 * health check that kept saying SERVING would keep a fenced container "healthy".
 */
final class NodeHealth {
    private final HealthStatusManager manager = new HealthStatusManager();
    private final BooleanSupplier healthy;
    private ServingStatus published;
    private boolean stopped;

    NodeHealth(BooleanSupplier healthy) {
        this.healthy = healthy;
        publish(ServingStatus.NOT_SERVING);
    }

    BindableService service() {
        return manager.getHealthService();
    }

    /** Publishes the node's health check now; cheap when nothing changed. */
    synchronized void refresh() {
        if (stopped) {
            return;
        }
        publish(healthy.getAsBoolean() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
    }

    /** Stopping: every watcher is told NOT_SERVING and later changes are ignored. */
    synchronized void stop() {
        stopped = true;
        manager.enterTerminalState();
        published = ServingStatus.NOT_SERVING;
    }

    synchronized ServingStatus status() {
        return published;
    }

    private void publish(ServingStatus status) {
        if (status != published) {
            manager.setStatus("", status);
            published = status;
        }
    }
}
