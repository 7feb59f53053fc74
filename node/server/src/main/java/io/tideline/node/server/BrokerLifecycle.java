package io.tideline.node.server;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.controller.client.ControllerClient;
import io.tideline.proto.metadata.BrokerHeartbeatResponse;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.Endpoint;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's standing with the controller: registers with a fresh incarnation (the answer is its broker
 * epoch), heartbeats every broker.heartbeat.interval.ms with the metadata offset it has applied (the
 * controller unfences it once that reaches its registration), and on shutdown asks for a controlled
 * shutdown and waits until its leaderships have moved.
 */
final class BrokerLifecycle implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BrokerLifecycle.class);

    private final int brokerId;
    private final ControllerClient client;
    private final Scheduler scheduler;
    private final Time time;
    private final long heartbeatIntervalMs;
    private final LongSupplier appliedMetadataOffset;
    private volatile long brokerEpoch = -1;
    private volatile long registrationOffset = Long.MAX_VALUE;
    private volatile boolean fenced = true;
    private volatile boolean wantShutdown;
    private volatile boolean shutdownReady;
    private volatile Scheduler.Cancellable heartbeats;
    private volatile boolean closed;

    BrokerLifecycle(int brokerId, ControllerClient client, Scheduler scheduler, Time time, long heartbeatIntervalMs,
                    LongSupplier appliedMetadataOffset) {
        this.brokerId = brokerId;
        this.client = Objects.requireNonNull(client, "client");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.time = Objects.requireNonNull(time, "time");
        this.heartbeatIntervalMs = heartbeatIntervalMs;
        this.appliedMetadataOffset = Objects.requireNonNull(appliedMetadataOffset, "appliedMetadataOffset");
    }

    /**
     * Registers (retrying while the quorum has no leader) and starts heartbeating.
     *
     * @throws IllegalStateException when the controller refuses the registration or none answers in time
     */
    void register(List<Endpoint> endpoints, String rack, String metricsUrl, long timeoutMs) throws InterruptedException {
        String incarnation = UUID.randomUUID().toString();
        long deadline = time.milliseconds() + timeoutMs;
        ControllerResponse response = null;
        while (time.milliseconds() < deadline) {
            try {
                response = client.registerBroker(brokerId, incarnation, endpoints, rack, metricsUrl)
                        .get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                response = null;
            }
            if (response != null && response.getErrorCode() == Errors.NONE.code()) {
                break;
            }
            Errors error = response == null ? Errors.REQUEST_TIMED_OUT : Errors.forCode(response.getErrorCode());
            if (!error.retriable() && error != Errors.NOT_CONTROLLER) {
                throw new IllegalStateException("The controller refused to register broker " + brokerId + ": " + error
                        + " " + response.getErrorMessage());
            }
            log.info("Registering broker {} failed ({}); retrying", brokerId, error);
            Thread.sleep(Math.min(500, heartbeatIntervalMs));
        }
        if (response == null || response.getErrorCode() != Errors.NONE.code()) {
            throw new IllegalStateException("Broker " + brokerId + " could not register within " + timeoutMs + " ms");
        }
        brokerEpoch = response.getBrokerEpoch();
        registrationOffset = response.getOffset();
        log.info("Broker {} registered with epoch {} (incarnation {})", brokerId, brokerEpoch, incarnation);
        heartbeats = scheduler.schedule("broker-heartbeat", this::heartbeat, 0, heartbeatIntervalMs);
    }

    private void heartbeat() {
        if (closed) {
            return;
        }
        long epoch = brokerEpoch;
        client.heartbeat(brokerId, epoch, appliedMetadataOffset.getAsLong(), wantShutdown).whenComplete((r, e) -> {
            if (closed) {
                return;
            }
            if (e != null) {
                log.warn("Heartbeat of broker {} failed: {}", brokerId, e.toString());
                return;
            }
            onHeartbeatResponse(r);
        });
    }

    private void onHeartbeatResponse(BrokerHeartbeatResponse r) {
        if (r.getErrorCode() != Errors.NONE.code()) {
            log.warn("Heartbeat of broker {} refused: {} {}", brokerId, Errors.forCode(r.getErrorCode()),
                    r.getErrorMessage());
            return;
        }
        if (fenced != r.getFenced()) {
            log.info("Broker {} is now {}", brokerId, r.getFenced() ? "fenced" : "unfenced");
        }
        fenced = r.getFenced();
        if (wantShutdown && r.getShutdownReady()) {
            shutdownReady = true;
        }
    }

    long brokerEpoch() {
        return brokerEpoch;
    }

    /** The metadata offset of this incarnation's registration; {@code Long.MAX_VALUE} until registered. */
    long registrationOffset() {
        return registrationOffset;
    }

    boolean isFenced() {
        return fenced;
    }

    /** Waits until the controller unfenced this broker. */
    boolean awaitUnfenced(long timeoutMs) throws InterruptedException {
        return awaitCondition(() -> !fenced, timeoutMs);
    }

    /**
     * Asks the controller to move this broker's leaderships away and waits until it says they have (or
     * the timeout passes).
     *
     * @return whether the controller confirmed
     */
    boolean controlledShutdown(long timeoutMs) throws InterruptedException {
        if (brokerEpoch < 0) {
            return true;
        }
        wantShutdown = true;
        heartbeat();
        boolean ready = awaitCondition(() -> shutdownReady, timeoutMs);
        log.info("Controlled shutdown of broker {} {}", brokerId, ready ? "confirmed by the controller"
                : "not confirmed within " + timeoutMs + " ms; stopping anyway");
        return ready;
    }

    // A wait for a state another thread sets; not a time rule, so it polls the real clock.
    private static boolean awaitCondition(java.util.function.BooleanSupplier condition, long timeoutMs)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    @Override
    public void close() {
        closed = true;
        Scheduler.Cancellable h = heartbeats;
        if (h != null) {
            h.cancel();
        }
    }
}
