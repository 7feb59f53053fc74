package io.tideline.replication.cluster;

import com.codahale.metrics.MetricRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.Scheduler;
import io.tideline.common.time.Time;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.fetcher.LeaderEndpoint;
import io.tideline.replication.follower.FailureReason;
import io.tideline.replication.follower.FollowerFetch;
import io.tideline.replication.rpc.GrpcLeaderEndpoint;
import io.tideline.replication.rpc.ReplicaFetchGrpcService;
import io.tideline.replication.server.IsrChannel;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import io.tideline.testsupport.link.RequestLink;
import io.tideline.testsupport.link.RequestLinks;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One broker of the in-JVM replication cluster: a LogManager over its own directory, a ReplicaManager,
 * and an in-process gRPC server with the replica fetch service. Its fetches to each leader go over the
 * cluster's {@link RequestLink} {@code id->leader}, which a test cuts one at a time ({@link #cutLinkTo}): with
 * a partition's semantics, the fetch in flight is lost and the next ones fail until the heal.
 */
final class TestBroker implements AutoCloseable {
    final int id;
    final String serverName;
    final LogManager logManager;
    final ReplicaManager replicaManager;
    final MetricRegistry metrics = new MetricRegistry();
    final Map<TopicPartition, Optional<FailureReason>> reportedFailures = new ConcurrentHashMap<>();
    private final Server server;
    private final Map<Integer, ManagedChannel> channels = new ConcurrentHashMap<>();
    private final Map<Integer, GrpcLeaderEndpoint> endpoints = new ConcurrentHashMap<>();
    private final RequestLinks links;
    /** Every partition fetch sent to each leader over a healthy link, in sending order. */
    private final Map<Integer, List<FollowerFetch>> sentPartitionFetches = new ConcurrentHashMap<>();

    TestBroker(int id, String clusterTag, Path dir, Map<String, ?> storeProps, Map<String, ?> replicationProps,
               Time time, Scheduler scheduler, IsrChannel controller, RequestLinks links) throws IOException {
        this.id = id;
        this.links = links;
        this.serverName = "tideline-" + clusterTag + "-broker-" + id;
        Map<String, Object> props = new HashMap<>(storeProps);
        props.put("log.dirs", dir.toString());
        props.putIfAbsent("log.flush.offset.checkpoint.interval.ms", 0);
        props.putIfAbsent("log.flush.start.offset.checkpoint.interval.ms", 0);
        props.putIfAbsent("log.retention.check.interval.ms", Long.MAX_VALUE / 4);
        this.logManager = new LogManager(StoreConfig.fromMap(props), "test-cluster", id, time, scheduler, metrics,
                new Random(id));
        logManager.startup();
        this.replicaManager = new ReplicaManager(id, ReplicationConfig.fromMap(replicationProps), logManager, time,
                scheduler, controller, reportedFailures::put, this::endpointFor, metrics);
        replicaManager.startup();
        this.server = InProcessServerBuilder.forName(serverName).directExecutor()
                .addService(new ReplicaFetchGrpcService(replicaManager)).build().start();
    }

    private Optional<LeaderEndpoint> endpointFor(int leaderId) {
        ManagedChannel channel = channels.computeIfAbsent(leaderId, l -> InProcessChannelBuilder
                .forName(serverName.replace("broker-" + id, "broker-" + l)).directExecutor().build());
        // One endpoint per leader, as the node keeps it: each holds its fetch stream.
        GrpcLeaderEndpoint grpc = endpoints.computeIfAbsent(leaderId, l -> new GrpcLeaderEndpoint(channel, 1L));
        RequestLink link = links.link(id, leaderId);
        return Optional.of((replicaId, partitions, minBytes, maxBytes, maxWaitMs) -> link.send(() -> {
            sentPartitionFetches.computeIfAbsent(leaderId, l -> new CopyOnWriteArrayList<>()).addAll(partitions);
            return grpc.fetch(replicaId, partitions, minBytes, maxBytes, maxWaitMs);
        }));
    }

    /** This broker's fetch link to {@code leaderId} (the cluster's {@code id->leaderId} link). */
    RequestLink linkTo(int leaderId) {
        return links.link(id, leaderId);
    }

    /**
     * Fetches to {@code leaderId} fail from now on, and the one in flight (parked at the leader) is
     * lost too, so once this returns no answer from that leader reaches this broker.
     */
    void cutLinkTo(int leaderId) {
        linkTo(leaderId).cut();
    }

    void healLinkTo(int leaderId) {
        linkTo(leaderId).heal();
    }

    /**
     * Fetches to {@code leaderId} the cut link refused so far. A fetcher has one fetch in flight, so a
     * refusal seen after {@link #cutLinkTo} means no fetch sent before the cut is still parked at the leader.
     */
    long refusedFetches(int leaderId) {
        return linkTo(leaderId).refused();
    }

    /** Fetches sent to {@code leaderId} over a healthy link so far. */
    long sentFetches(int leaderId) {
        return linkTo(leaderId).sent();
    }

    /**
     * The fetches of {@code tp} sent to {@code leaderId} over a healthy link so far: their fetch offsets say
     * where this follower's log ended each time, so where it truncated to.
     */
    List<FollowerFetch> sentFetches(int leaderId, TopicPartition tp) {
        return sentPartitionFetches.getOrDefault(leaderId, List.of()).stream()
                .filter(f -> f.topicPartition().equals(tp)).toList();
    }

    Log log(TopicPartition tp) {
        return replicaManager.log(tp).orElseThrow(() -> new IllegalStateException(id + " does not host " + tp));
    }

    @Override
    public void close() throws IOException {
        replicaManager.close();
        server.shutdownNow();
        for (ManagedChannel channel : channels.values()) {
            channel.shutdownNow();
        }
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        logManager.close();
    }
}
