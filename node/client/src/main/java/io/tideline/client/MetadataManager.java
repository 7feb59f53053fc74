package io.tideline.client;

import io.tideline.client.internals.BrokerAddress;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.proto.client.ClientServiceGrpc;
import io.tideline.proto.client.LeaderHint;
import io.tideline.proto.client.MetadataRequest;
import io.tideline.proto.client.MetadataResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's view of the cluster, refreshed by Metadata requests to any broker that answers: first
 * the brokers the last answer listed, then the bootstrap addresses (so a client outlives the broker it
 * bootstrapped from and recovers when every known broker changed). Until some broker has answered, a
 * pass in which no bootstrap address could be connected to ends in a {@link BootstrapException}
 * ({@link #bootstrapFailure}). Thread-safe: snapshots are immutable and swapped atomically; concurrent
 * refreshes are harmless.
 */
final class MetadataManager {
    private static final Logger log = LoggerFactory.getLogger(MetadataManager.class);

    private final List<BrokerAddress> bootstrap;
    private final BrokerChannels channels;
    private final long requestTimeoutMs;
    private final AtomicReference<ClusterSnapshot> current = new AtomicReference<>(ClusterSnapshot.EMPTY);
    private final AtomicBoolean updateRequested = new AtomicBoolean();
    // Rotates the first broker asked, so one slow broker does not take every refresh's first attempt.
    private final AtomicInteger rotation = new AtomicInteger();
    private volatile boolean brokerAnswered;

    MetadataManager(List<BrokerAddress> bootstrap, BrokerChannels channels, long requestTimeoutMs) {
        this.bootstrap = List.copyOf(bootstrap);
        this.channels = channels;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    ClusterSnapshot current() {
        return current.get();
    }

    /** Marks the view stale (a leader moved, a topic appeared); the owner refreshes on its next turn. */
    void requestUpdate() {
        updateRequested.set(true);
    }

    boolean updateRequested() {
        return updateRequested.get();
    }

    /** Uses the leader a NOT_LEADER_OR_FOLLOWER answer named, until the next refresh says otherwise. */
    void applyLeaderHint(TopicPartition tp, LeaderHint hint) {
        if (hint != null && hint.getLeaderId() >= 0) {
            current.updateAndGet(s -> s.withLeader(tp, hint.getLeaderId(), hint.getLeaderEpoch()));
        }
    }

    /**
     * Asks one broker after another for the metadata of {@code topics} (empty: every topic) and merges
     * the first answer.
     *
     * @throws BootstrapException no broker has answered this client yet and no bootstrap address could be
     *                             connected to
     * @throws TidelineClientException the last transport failure when no broker answered
     */
    ClusterSnapshot refresh(Collection<String> topics) {
        updateRequested.set(false);
        MetadataRequest request = MetadataRequest.newBuilder().addAllTopics(new LinkedHashSet<>(topics)).build();
        Map<BrokerAddress, TidelineClientException> failures = new LinkedHashMap<>();
        TidelineClientException last = null;
        for (BrokerAddress address : candidates()) {
            String target = "Metadata to " + address;
            try {
                ClientServiceGrpc.ClientServiceStub stub = channels.client(address, requestTimeoutMs);
                MetadataResponse response = Rpc.await(Rpc.call(target, stub::metadata, request),
                        requestTimeoutMs + 1_000, target);
                brokerAnswered();
                return current.updateAndGet(s -> s.merge(response));
            } catch (TidelineClientException e) {
                log.debug("metadata request failed: {}", e.getMessage());
                failures.put(address, e);
                last = e;
            }
        }
        updateRequested.set(true);
        BootstrapException unreachable = bootstrapFailure(failures);
        if (unreachable != null) {
            throw unreachable;
        }
        throw last != null ? last : new TidelineClientException(Errors.BROKER_NOT_AVAILABLE, "no broker to ask");
    }

    /** Notes that a broker answered this client: from now on no pass ends in a {@link BootstrapException}. */
    void brokerAnswered() {
        brokerAnswered = true;
    }

    /**
     * What one pass over {@link #candidates()} that failed with {@code failures} (address to its failure)
     * amounts to: a {@link BootstrapException} when no broker has answered this client yet and every
     * bootstrap address failed to connect (refused, timed out, unresolved), else null (retry as usual). A
     * client that has reached the cluster once keeps retrying through a restart of every broker; one that
     * never has is most likely pointed at the wrong address, and waiting does not mend that.
     */
    BootstrapException bootstrapFailure(Map<BrokerAddress, TidelineClientException> failures) {
        if (brokerAnswered) {
            return null;
        }
        Map<String, String> reasons = new LinkedHashMap<>();
        for (BrokerAddress address : bootstrap) {
            if (!(failures.get(address) instanceof TransportException te) || te.connectFailure().isEmpty()) {
                return null;
            }
            reasons.put(address.toString(), te.connectFailure().get());
        }
        return new BootstrapException(reasons);
    }

    /** Brokers to send a cluster-wide request to, in the order to try them (known brokers, then bootstrap). */
    List<BrokerAddress> candidates() {
        List<BrokerAddress> known = new ArrayList<>(current.get().brokers().values());
        known.sort((a, b) -> a.toString().compareTo(b.toString()));
        if (!known.isEmpty()) {
            int start = Math.floorMod(rotation.getAndIncrement(), known.size());
            List<BrokerAddress> rotated = new ArrayList<>(known.subList(start, known.size()));
            rotated.addAll(known.subList(0, start));
            known = rotated;
        }
        Set<BrokerAddress> ordered = new LinkedHashSet<>(known);
        ordered.addAll(bootstrap);
        return List.copyOf(ordered);
    }
}
