package io.tideline.node.controller.client;

import io.tideline.common.errors.Errors;
import io.tideline.common.time.Time;
import io.tideline.node.controller.CommandChecks;
import io.tideline.node.controller.ControllerSettings;
import io.tideline.node.quorum.QuorumIds;
import io.tideline.node.quorum.RatisErrors;
import io.tideline.node.quorum.RatisMessages;
import io.tideline.proto.metadata.AllocateProducerIds;
import io.tideline.proto.metadata.AlterBrokerConfigs;
import io.tideline.proto.metadata.AlterConfigs;
import io.tideline.proto.metadata.AlterPartition;
import io.tideline.proto.metadata.AlterReassignments;
import io.tideline.proto.metadata.BrokerHeartbeat;
import io.tideline.proto.metadata.BrokerHeartbeatResponse;
import io.tideline.proto.metadata.ControllerCommand;
import io.tideline.proto.metadata.ControllerQuery;
import io.tideline.proto.metadata.ControllerQueryResponse;
import io.tideline.proto.metadata.ControllerResponse;
import io.tideline.proto.metadata.CreatableTopic;
import io.tideline.proto.metadata.CreatePartitions;
import io.tideline.proto.metadata.CreatePartitionsItem;
import io.tideline.proto.metadata.CreateTopics;
import io.tideline.proto.metadata.DeleteTopics;
import io.tideline.proto.metadata.DescribeQuorum;
import io.tideline.proto.metadata.ElectLeaders;
import io.tideline.proto.metadata.Endpoint;
import io.tideline.proto.metadata.FailedReplica;
import io.tideline.proto.metadata.FetchImage;
import io.tideline.proto.metadata.IsrChangesQuery;
import io.tideline.proto.metadata.RegisterBroker;
import io.tideline.proto.metadata.ReportFailedReplicas;
import io.tideline.proto.metadata.TargetReassignment;
import io.tideline.proto.metadata.TopicPartitionRef;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.retry.ExponentialBackoffRetry;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way brokers and the admin API talk to the metadata quorum. Commands are submitted through Raft
 * (committed, then applied on every voter); queries (heartbeats, image fetches, ISR history) are
 * read-only requests answered by the leader. The underlying Ratis client finds the leader itself and
 * retries with exponential backoff when a voter answers "not leader" or is down, so a controller
 * failover costs a retry, not an error.
 *
 * <p>Every failure comes back as an error code in the response ({@link Errors#REQUEST_TIMED_OUT} after
 * the request timeout, {@link Errors#NOT_CONTROLLER} while no leader is known, ...); the futures never
 * complete exceptionally.
 *
 * <p>{@link #close()} first lets the requests still inside Ratis finish: Ratis cannot cancel a request
 * that sleeps between two attempts, and one that wakes after its client closed is logged at ERROR with a
 * stack trace (heartbeats to a quorum that already stopped did that on every clean cluster stop). From
 * the moment close begins, new requests are answered {@link Errors#BROKER_NOT_AVAILABLE} at once and a
 * failed attempt is not retried, so the wait is at most one attempt plus one backoff.
 *
 * <p>Thread-safe; one client can serve a whole broker.
 */
public final class ControllerClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControllerClient.class);

    /** A failover takes a second or two; give each request time to outlive a few. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private static final Duration BASE_BACKOFF = Duration.ofMillis(50);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(3);
    /** The longest a request can stay inside Ratis once retries stop: one attempt, one backoff, slack. */
    static final Duration CLOSE_DRAIN_TIMEOUT = ATTEMPT_TIMEOUT.plus(MAX_BACKOFF).plusSeconds(1);

    /** Commands: Ratis' ordered async path (one sliding window of sequence numbers per client). */
    private final RaftClient commands;
    /**
     * Queries, on a client of their own: when an unordered read is first to find a new leader, the
     * shared client would send the next command straight there without restarting its sliding window,
     * and the new leader holds it waiting for earlier sequence numbers until the attempt times out
     * (commands stalled about 6 s after every failover while heartbeats went on).
     */
    private final RaftClient queries;
    private final Time time;
    private final long requestTimeoutMs;
    private final CommandChecks checks;
    /**
     * Set when close begins. A sender counts itself in {@link #inFlight} before it reads this flag, and
     * close sets it before it reads the count, so every request that gets past the check is waited for.
     */
    private volatile boolean closing;
    /** Requests handed to Ratis whose Ratis future has not completed; monitor: itself. */
    private final AtomicInteger inFlight = new AtomicInteger();

    public ControllerClient(String clusterId, Map<Integer, InetSocketAddress> voters, Time time) {
        this(clusterId, voters, time, DEFAULT_REQUEST_TIMEOUT);
    }

    /**
     * @param voters         node id -> address of every voter of the metadata quorum
     * @param time           stamps commands (the controller never reads a clock while applying them)
     * @param requestTimeout how long a request may take, retries included, before it is answered with
     *                       {@link Errors#REQUEST_TIMED_OUT}
     */
    public ControllerClient(String clusterId, Map<Integer, InetSocketAddress> voters, Time time, Duration requestTimeout) {
        this(clusterId, voters, time, requestTimeout, ControllerSettings.DEFAULT);
    }

    /**
     * @param settings the controller's settings, for the checks every command passes before it is proposed
     *                 (the quorum's voters run the same checks again when they apply it)
     */
    public ControllerClient(String clusterId, Map<Integer, InetSocketAddress> voters, Time time, Duration requestTimeout,
                            ControllerSettings settings) {
        this.checks = new CommandChecks(settings);
        this.time = time;
        this.requestTimeoutMs = requestTimeout.toMillis();
        this.commands = newRaftClient(clusterId, voters, requestTimeoutMs, () -> closing);
        this.queries = newRaftClient(clusterId, voters, requestTimeoutMs, () -> closing);
    }

    private static RaftClient newRaftClient(String clusterId, Map<Integer, InetSocketAddress> voters, long requestTimeoutMs,
                                            BooleanSupplier closing) {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(ATTEMPT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        // Enough attempts to fill the request timeout at the longest backoff; the future's own timeout
        // answers the caller, the bound only stops Ratis from retrying long after nobody waits.
        int attempts = (int) Math.max(10, requestTimeoutMs / MAX_BACKOFF.toMillis() + 10);
        ExponentialBackoffRetry retry = ExponentialBackoffRetry.newBuilder()
                .setBaseSleepTime(TimeDuration.valueOf(BASE_BACKOFF.toMillis(), TimeUnit.MILLISECONDS))
                .setMaxSleepTime(TimeDuration.valueOf(MAX_BACKOFF.toMillis(), TimeUnit.MILLISECONDS))
                .setMaxAttempts(attempts)
                .build();
        RetryPolicy stopWhenClosing = event -> closing.getAsBoolean() ? RetryPolicy.NO_RETRY_ACTION
                : retry.handleAttemptFailure(event);
        return RaftClient.newBuilder()
                .setProperties(p)
                .setRaftGroup(QuorumIds.group(clusterId, voters))
                .setRetryPolicy(stopWhenClosing)
                .build();
    }

    /**
     * Submits a command through Raft; stamps {@code timestamp_ms} with this client's time when it is 0. A command
     * that fails the image-free checks is answered here and never proposed (docs/behaviours.md B103).
     */
    public CompletableFuture<ControllerResponse> submit(ControllerCommand command) {
        CommandChecks.Refusal refusal = checks.check(command);
        if (refusal != null) {
            return CompletableFuture.completedFuture(refusal.result().response());
        }
        ControllerCommand stamped = command.getTimestampMs() == 0
                ? command.toBuilder().setTimestampMs(time.milliseconds()).build() : command;
        CompletableFuture<ControllerResponse> f;
        try {
            if (!enter()) {
                return CompletableFuture.completedFuture(RatisErrors.response(closedError()));
            }
            f = tracked(() -> commands.async().send(RatisMessages.of(stamped))).thenApply(RatisMessages::commandResponse);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(RatisErrors.response(e));
        }
        return f.orTimeout(requestTimeoutMs, TimeUnit.MILLISECONDS).exceptionally(RatisErrors::response);
    }

    /**
     * A read-only query, answered by the Raft leader. Queries are unordered: a heartbeat must not
     * queue behind a command of the same client that waits for a commit during a failover. A caller
     * that needs its own write reflected waits for the write's response first.
     */
    public CompletableFuture<ControllerQueryResponse> query(ControllerQuery query) {
        CompletableFuture<ControllerQueryResponse> f;
        try {
            if (!enter()) {
                return CompletableFuture.completedFuture(RatisErrors.queryResponse(closedError()));
            }
            f = tracked(() -> queries.async().sendReadOnlyUnordered(RatisMessages.of(query)))
                    .thenApply(RatisMessages::queryResponse);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(RatisErrors.queryResponse(e));
        }
        return f.orTimeout(requestTimeoutMs, TimeUnit.MILLISECONDS).exceptionally(RatisErrors::queryResponse);
    }

    /** Counts a request in; false (and not counted) once close has begun. */
    private boolean enter() {
        inFlight.incrementAndGet();
        if (closing) {
            leave();
            return false;
        }
        return true;
    }

    private void leave() {
        if (inFlight.decrementAndGet() == 0) {
            synchronized (inFlight) {
                inFlight.notifyAll();
            }
        }
    }

    /** Sends through Ratis (the caller has entered) and leaves when Ratis is done with the request. */
    private <T> CompletableFuture<T> tracked(Supplier<CompletableFuture<T>> send) {
        CompletableFuture<T> f;
        try {
            f = send.get();
        } catch (RuntimeException e) {
            leave();
            throw e;
        }
        f.whenComplete((r, e) -> leave());
        return f;
    }

    private AlreadyClosedException closedError() {
        return new AlreadyClosedException("the controller client is closing");
    }

    /** Registers (or re-registers with a new incarnation); the response carries the broker epoch. */
    public CompletableFuture<ControllerResponse> registerBroker(int brokerId, String incarnationId, List<Endpoint> endpoints,
                                                                String rack) {
        return registerBroker(brokerId, incarnationId, endpoints, rack, "");
    }

    /** With the node's metrics endpoint ({@code http://host:port/metrics}, empty for none). */
    public CompletableFuture<ControllerResponse> registerBroker(int brokerId, String incarnationId, List<Endpoint> endpoints,
                                                                String rack, String metricsUrl) {
        return submit(ControllerCommand.newBuilder().setRegisterBroker(RegisterBroker.newBuilder()
                .setBrokerId(brokerId).setIncarnationId(incarnationId).addAllEndpoints(endpoints)
                .setRack(rack == null ? "" : rack).setMetricsUrl(metricsUrl == null ? "" : metricsUrl)).build());
    }

    /**
     * A heartbeat; a failure of the quorum itself (no leader, timeout) comes back as the response's
     * error code, like the controller's own refusals.
     */
    public CompletableFuture<BrokerHeartbeatResponse> heartbeat(int brokerId, long brokerEpoch, long metadataOffset,
                                                                boolean wantShutdown) {
        ControllerQuery q = ControllerQuery.newBuilder().setHeartbeat(BrokerHeartbeat.newBuilder().setBrokerId(brokerId)
                .setBrokerEpoch(brokerEpoch).setMetadataOffset(metadataOffset).setWantShutdown(wantShutdown)).build();
        return query(q).thenApply(r -> r.getErrorCode() != Errors.NONE.code() || !r.hasHeartbeat()
                ? BrokerHeartbeatResponse.newBuilder()
                        .setErrorCode(r.getErrorCode() != Errors.NONE.code() ? r.getErrorCode() : Errors.UNKNOWN_SERVER_ERROR.code())
                        .setErrorMessage(r.getErrorMessage().isEmpty() ? "no heartbeat answer" : r.getErrorMessage()).build()
                : r.getHeartbeat());
    }

    public CompletableFuture<ControllerResponse> alterPartition(AlterPartition request) {
        return submit(ControllerCommand.newBuilder().setAlterPartition(request).build());
    }

    /**
     * Creates topics; with {@code validateOnly} the leader answers what it would do from its image, as a query
     * that never enters the Raft log (docs/behaviours.md B105).
     */
    public CompletableFuture<ControllerResponse> createTopics(List<CreatableTopic> topics, boolean validateOnly) {
        ControllerCommand command = ControllerCommand.newBuilder().setCreateTopics(CreateTopics.newBuilder()
                .addAllTopics(topics)).build();
        if (!validateOnly) {
            return submit(command);
        }
        CommandChecks.Refusal refusal = checks.check(command);
        if (refusal != null) {
            return CompletableFuture.completedFuture(refusal.result().response());
        }
        return query(ControllerQuery.newBuilder().setValidate(command).build()).thenApply(r ->
                r.getErrorCode() != Errors.NONE.code() || !r.hasValidated()
                        ? ControllerResponse.newBuilder().setErrorCode(r.getErrorCode() != Errors.NONE.code()
                                ? r.getErrorCode() : Errors.UNKNOWN_SERVER_ERROR.code())
                                .setErrorMessage(r.getErrorMessage().isEmpty() ? "no dry-run answer" : r.getErrorMessage())
                                .build()
                        : r.getValidated());
    }

    /** Sets and deletes config overrides of one topic, validated as at create. */
    public CompletableFuture<ControllerResponse> alterConfigs(AlterConfigs request) {
        return submit(ControllerCommand.newBuilder().setAlterConfigs(request).build());
    }

    /** Sets and deletes dynamic configs of one broker, or of the cluster-wide default (broker id -1). */
    public CompletableFuture<ControllerResponse> alterBrokerConfigs(AlterBrokerConfigs request) {
        return submit(ControllerCommand.newBuilder().setAlterBrokerConfigs(request).build());
    }

    /** Raises the partition count of each topic to its {@code total_count}. */
    public CompletableFuture<ControllerResponse> createPartitions(List<CreatePartitionsItem> topics) {
        return submit(ControllerCommand.newBuilder().setCreatePartitions(CreatePartitions.newBuilder()
                .addAllTopics(topics)).build());
    }

    public CompletableFuture<ControllerResponse> deleteTopics(List<String> names) {
        return submit(ControllerCommand.newBuilder().setDeleteTopics(DeleteTopics.newBuilder().addAllNames(names)).build());
    }

    /** Starts, changes or (with empty replicas) cancels reassignments. */
    public CompletableFuture<ControllerResponse> alterReassignments(List<TargetReassignment> reassignments) {
        return submit(ControllerCommand.newBuilder().setAlterReassignments(AlterReassignments.newBuilder()
                .addAllReassignments(reassignments)).build());
    }

    /** Preferred leader election; an empty list means every partition. */
    public CompletableFuture<ControllerResponse> electLeaders(List<TopicPartitionRef> partitions) {
        return electLeaders(partitions, 0);
    }

    /** Kafka's ElectionType {@code electionType}: 0 preferred, 1 unclean; an empty list means every partition. */
    public CompletableFuture<ControllerResponse> electLeaders(List<TopicPartitionRef> partitions, int electionType) {
        return submit(ControllerCommand.newBuilder().setElectLeaders(ElectLeaders.newBuilder()
                .addAllPartitions(partitions).setElectionType(electionType)).build());
    }

    public CompletableFuture<ControllerResponse> reportFailedReplicas(int brokerId, long brokerEpoch, List<FailedReplica> replicas) {
        return submit(ControllerCommand.newBuilder().setReportFailedReplicas(ReportFailedReplicas.newBuilder()
                .setBrokerId(brokerId).setBrokerEpoch(brokerEpoch).addAllReplicas(replicas)).build());
    }

    /** A block of producer ids for this broker's InitProducerId answers ({@code producer_id_block} of the response). */
    public CompletableFuture<ControllerResponse> allocateProducerIds(int brokerId, long brokerEpoch) {
        return submit(ControllerCommand.newBuilder().setAllocateProducerIds(AllocateProducerIds.newBuilder()
                .setBrokerId(brokerId).setBrokerEpoch(brokerEpoch)).build());
    }

    /** The leader's image, or no image when the leader is still at {@code knownOffset}. */
    public CompletableFuture<ControllerQueryResponse> fetchImage(long knownOffset) {
        return query(ControllerQuery.newBuilder().setFetchImage(FetchImage.newBuilder().setKnownOffset(knownOffset)).build());
    }

    /** The last changes of one partition: why it is (or is not) under-replicated. */
    public CompletableFuture<ControllerQueryResponse> isrChanges(String topic, int partition) {
        return query(ControllerQuery.newBuilder().setIsrChanges(IsrChangesQuery.newBuilder()
                .setTopic(topic).setPartition(partition)).build());
    }

    /** The Raft leader's own view: leader id and term, commit index, brokers and their last heartbeats. */
    public CompletableFuture<ControllerQueryResponse> describeQuorum() {
        return query(ControllerQuery.newBuilder().setDescribeQuorum(DescribeQuorum.getDefaultInstance()).build());
    }

    /** Stops new requests and retries, waits up to {@link #CLOSE_DRAIN_TIMEOUT} for those in Ratis, then closes. */
    @Override
    public void close() {
        closing = true;
        long deadlineNs = System.nanoTime() + CLOSE_DRAIN_TIMEOUT.toNanos();
        synchronized (inFlight) {
            long leftNs;
            while (inFlight.get() > 0 && (leftNs = deadlineNs - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(inFlight, leftNs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (inFlight.get() > 0) {
            log.info("Closing the controller client with {} requests still in the quorum client after {} ms",
                    inFlight.get(), CLOSE_DRAIN_TIMEOUT.toMillis());
        }
        for (RaftClient c : List.of(commands, queries)) {
            try {
                c.close();
            } catch (IOException e) {
                log.warn("Closing the controller client failed", e);
            }
        }
    }
}
