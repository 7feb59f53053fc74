package io.tideline.node.quorum;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.node.metadata.MetadataImage;
import io.tideline.node.metadata.TopicImage;
import io.tideline.proto.metadata.BrokerHeartbeat;
import io.tideline.proto.metadata.BrokerHeartbeatResponse;
import io.tideline.proto.metadata.BrokerLiveness;
import io.tideline.proto.metadata.BrokerRegistrationRecord;
import io.tideline.proto.metadata.ControlledShutdown;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.FenceBroker;
import io.tideline.proto.metadata.PartitionRecord;
import io.tideline.proto.metadata.UnfenceBroker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What only the active controller (the Raft leader) does: track broker heartbeats, fence brokers
 * whose session expired, unfence brokers that are back and caught up, and drive controlled shutdown.
 * The decisions become commands submitted through Ratis; the heartbeat times are leader-local soft
 * state that is never replicated.
 *
 * <p>Leases across failovers: a new leader does not know when brokers last heartbeated to the old
 * one, so when it becomes ready (every entry of earlier terms applied) it gives every unfenced broker
 * a fresh lease starting now. A broker that really is gone is then fenced one session timeout after
 * the failover, never early because of it. Losing leadership drops all soft state.
 *
 * <p>Thread-safety: heartbeats arrive on Ratis query threads, session checks on the scheduler and
 * leadership events on Ratis' apply thread; the soft state is guarded by this object's monitor, which
 * is never held while waiting for anything (submissions are asynchronous).
 */
public final class ControllerDuties implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControllerDuties.class);

    private final Time time;
    private final Scheduler scheduler;
    private final long heartbeatIntervalMs;
    private final long sessionTimeoutMs;
    private final Supplier<MetadataImage> images;
    private final BooleanSupplier isLeader;
    private final Function<ControllerCommand, CompletableFuture<ControllerResponse>> submitter;
    private final AtomicInteger inFlight = new AtomicInteger();

    /** Soft state of one leadership; null while this node is not the ready leader. */
    private LeaderSession session;
    private Scheduler.Cancellable sessionCheck;

    /**
     * @param submitter submits a command to the local Raft leader (no forwarding: a deposed leader's
     *                  decisions must fail rather than reach the new leader)
     */
    public ControllerDuties(Time time, Scheduler scheduler, long heartbeatIntervalMs, long sessionTimeoutMs,
                            Supplier<MetadataImage> images, BooleanSupplier isLeader,
                            Function<ControllerCommand, CompletableFuture<ControllerResponse>> submitter) {
        if (heartbeatIntervalMs <= 0 || sessionTimeoutMs <= heartbeatIntervalMs) {
            throw new IllegalArgumentException("need 0 < broker.heartbeat.interval.ms (" + heartbeatIntervalMs
                    + ") < broker.session.timeout.ms (" + sessionTimeoutMs + ")");
        }
        this.time = time;
        this.scheduler = scheduler;
        this.heartbeatIntervalMs = heartbeatIntervalMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.images = images;
        this.isLeader = isLeader;
        this.submitter = submitter;
    }

    /** Starts the periodic session check (it does nothing while this node is not the leader). */
    public synchronized void start() {
        if (sessionCheck == null) {
            // Half the heartbeat interval: an expired session is noticed at most that late.
            long period = Math.max(1, heartbeatIntervalMs / 2);
            sessionCheck = scheduler.schedule("controller-session-check", this::checkSessions, period, period);
        }
    }

    /** Leadership moved (to this node, elsewhere, or nowhere): the old soft state is void. */
    public synchronized void onLeaderChanged(boolean thisNode) {
        if (session != null) {
            log.info("Controller duties stop: leadership changed (this node leads: {})", thisNode);
        }
        session = null;
    }

    /** This node is the ready leader: fresh leases for every unfenced broker. */
    public synchronized void onLeaderReady() {
        long now = time.milliseconds();
        LeaderSession s = new LeaderSession();
        for (BrokerRegistrationRecord b : images.get().brokers().values()) {
            if (!b.getFenced()) {
                s.lastHeartbeatMs.put(b.getBrokerId(), now);
            }
        }
        session = s;
        log.info("Controller duties start: fresh leases for unfenced brokers {}", s.lastHeartbeatMs.keySet());
    }

    /** True while this node performs the duties. */
    public synchronized boolean active() {
        return session != null;
    }

    /**
     * The last heartbeat of each broker that heartbeated to this leadership, sorted by broker id; empty
     * while this node is not the ready leader. A lease granted at failover is not a heartbeat.
     */
    public synchronized List<BrokerLiveness> liveness() {
        return session == null ? List.of() : List.copyOf(new TreeMap<>(session.lastHeartbeat).values());
    }

    /** The clock of the heartbeat times ({@link #liveness}), for other leader-local answers to share. */
    public long nowMs() {
        return time.milliseconds();
    }

    /** Commands submitted by the duties and not answered yet (tests wait for zero). */
    public int inFlightCommands() {
        return inFlight.get();
    }

    /**
     * A broker's heartbeat, on the leader: renews its lease, and asks for unfencing or controlled
     * shutdown when due. Never blocks: the commands it submits take effect in a later heartbeat's answer.
     */
    public BrokerHeartbeatResponse heartbeat(BrokerHeartbeat hb) {
        BrokerHeartbeatResponse.Builder resp = BrokerHeartbeatResponse.newBuilder().setLeaseMs(sessionTimeoutMs);
        List<ControllerCommand> toSubmit = new ArrayList<>();
        LeaderSession s;
        synchronized (this) {
            s = session;
            if (s == null || !isLeader.getAsBoolean()) {
                return resp.setErrorCode(Errors.NOT_CONTROLLER.code()).setErrorMessage("this node is not the active controller").build();
            }
            MetadataImage image = images.get();
            BrokerRegistrationRecord b = image.brokers().get(hb.getBrokerId());
            if (b == null) {
                return resp.setErrorCode(Errors.BROKER_NOT_AVAILABLE.code())
                        .setErrorMessage("broker " + hb.getBrokerId() + " is not registered").setFenced(true).build();
            }
            if (b.getBrokerEpoch() != hb.getBrokerEpoch()) {
                return resp.setErrorCode(Errors.STALE_BROKER_EPOCH.code()).setErrorMessage("broker " + hb.getBrokerId()
                        + " is registered with epoch " + b.getBrokerEpoch() + ", not " + hb.getBrokerEpoch()).setFenced(true).build();
            }
            long now = time.milliseconds();
            s.lastHeartbeatMs.put(b.getBrokerId(), now);
            s.lastHeartbeat.put(b.getBrokerId(), BrokerLiveness.newBuilder().setBrokerId(b.getBrokerId())
                    .setMetadataOffset(hb.getMetadataOffset()).setLastHeartbeatMs(now).build());
            resp.setFenced(b.getFenced());
            if (hb.getWantShutdown()) {
                boolean movable = leadsMovablePartition(image, b.getBrokerId());
                boolean committed = b.getInControlledShutdown() || b.getFenced();
                // Again while it still leads something another broker could take: eligibility changes.
                if ((!committed || movable) && !b.getFenced() && s.shutdownInFlight.add(b.getBrokerId())) {
                    toSubmit.add(command(now).setControlledShutdown(ControlledShutdown.newBuilder()
                            .setBrokerId(b.getBrokerId()).setBrokerEpoch(b.getBrokerEpoch())).build());
                }
                resp.setShutdownReady(committed && !movable);
            } else if ((b.getFenced() || b.getInControlledShutdown()) && hb.getMetadataOffset() >= b.getBrokerEpoch()
                    && s.unfenceInFlight.add(b.getBrokerId())) {
                // Caught up with its own registration: its view of the cluster is recent enough to lead.
                toSubmit.add(command(now).setUnfenceBroker(UnfenceBroker.newBuilder()
                        .setBrokerId(b.getBrokerId()).setBrokerEpoch(b.getBrokerEpoch())).build());
            }
        }
        for (ControllerCommand c : toSubmit) {
            submit(s, c);
        }
        return resp.build();
    }

    /** Fences every unfenced broker whose last heartbeat is a session timeout old. */
    public void checkSessions() {
        List<ControllerCommand> toSubmit = new ArrayList<>();
        LeaderSession s;
        synchronized (this) {
            s = session;
            if (s == null || !isLeader.getAsBoolean()) {
                return;
            }
            long now = time.milliseconds();
            for (BrokerRegistrationRecord b : images.get().brokers().values()) {
                if (b.getFenced()) {
                    continue;
                }
                Long last = s.lastHeartbeatMs.get(b.getBrokerId());
                if (last == null) {
                    // Unfenced by an entry this leader has not seen at its start: lease from first sight.
                    s.lastHeartbeatMs.put(b.getBrokerId(), now);
                } else if (now - last >= sessionTimeoutMs && s.fenceInFlight.add(b.getBrokerId())) {
                    log.info("Fencing broker {} (epoch {}): no heartbeat for {} ms (broker.session.timeout.ms {})",
                            b.getBrokerId(), b.getBrokerEpoch(), now - last, sessionTimeoutMs);
                    toSubmit.add(command(now).setFenceBroker(FenceBroker.newBuilder()
                            .setBrokerId(b.getBrokerId()).setBrokerEpoch(b.getBrokerEpoch())).build());
                }
            }
        }
        for (ControllerCommand c : toSubmit) {
            submit(s, c);
        }
    }

    private void submit(LeaderSession s, ControllerCommand c) {
        inFlight.incrementAndGet();
        CompletableFuture<ControllerResponse> f;
        try {
            f = submitter.apply(c);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((resp, err) -> {
            try {
                if (err != null) {
                    log.info("Controller command {} failed: {}", c.getCommandCase(), RatisErrors.message(err));
                } else if (resp.getErrorCode() != Errors.NONE.code()) {
                    log.info("Controller command {} refused: {} {}", c.getCommandCase(),
                            Errors.forCode(resp.getErrorCode()), resp.getErrorMessage());
                }
                s.done(c);
            } finally {
                inFlight.decrementAndGet();
            }
        });
    }

    /** Leads a partition that another eligible ISR member could lead instead. */
    static boolean leadsMovablePartition(MetadataImage image, int brokerId) {
        for (TopicImage t : image.topics().values()) {
            for (PartitionRecord p : t.partitions().values()) {
                if (p.getLeader() != brokerId) {
                    continue;
                }
                for (int r : p.getIsrList()) {
                    BrokerRegistrationRecord other = image.brokers().get(r);
                    if (r != brokerId && other != null && !other.getFenced() && !other.getInControlledShutdown()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private ControllerCommand.Builder command(long now) {
        return ControllerCommand.newBuilder().setTimestampMs(now);
    }

    @Override
    public synchronized void close() {
        if (sessionCheck != null) {
            sessionCheck.cancel();
            sessionCheck = null;
        }
        session = null;
    }

    /** One leadership's soft state; answers of its commands only touch their own session. */
    private final class LeaderSession {
        final Map<Integer, Long> lastHeartbeatMs = new HashMap<>();
        final Map<Integer, BrokerLiveness> lastHeartbeat = new HashMap<>();
        final Set<Integer> fenceInFlight = new HashSet<>();
        final Set<Integer> unfenceInFlight = new HashSet<>();
        final Set<Integer> shutdownInFlight = new HashSet<>();

        void done(ControllerCommand c) {
            synchronized (ControllerDuties.this) {
                switch (c.getCommandCase()) {
                    case FENCE_BROKER -> fenceInFlight.remove(c.getFenceBroker().getBrokerId());
                    case UNFENCE_BROKER -> unfenceInFlight.remove(c.getUnfenceBroker().getBrokerId());
                    case CONTROLLED_SHUTDOWN -> shutdownInFlight.remove(c.getControlledShutdown().getBrokerId());
                    default -> {
                    }
                }
            }
        }
    }
}
