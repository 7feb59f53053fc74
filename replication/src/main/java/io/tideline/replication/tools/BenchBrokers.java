package io.tideline.replication.tools;

import com.codahale.metrics.MetricRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.tideline.common.time.ThreadPoolScheduler;
import io.tideline.common.time.Time;
import io.tideline.replication.ReplicationConfig;
import io.tideline.replication.fetcher.LeaderEndpoint;
import io.tideline.replication.fetcher.LeaderEndpoints;
import io.tideline.replication.rpc.GrpcLeaderEndpoint;
import io.tideline.replication.rpc.ReplicaFetchGrpcService;
import io.tideline.replication.server.FailedReplicaReporter;
import io.tideline.replication.server.IsrChangeResult;
import io.tideline.replication.server.ReplicaManager;
import io.tideline.replication.tools.ReplicationBenchmark.Transport;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.manager.LogManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** bench-replication's two brokers in this JVM: the leader, and a follower fetching from it over gRPC. */
final class BenchBrokers {
    private BenchBrokers() {
    }

    /** One broker: its store, its replica manager. */
    static final class Broker implements AutoCloseable {
        final LogManager logManager;
        final ReplicaManager replicaManager;

        Broker(int id, Path dir, ReplicationConfig config, ThreadPoolScheduler scheduler, LeaderEndpoints endpoints)
                throws IOException {
            Map<String, Object> props = Map.of("log.dirs", dir.toString());
            this.logManager = new LogManager(StoreConfig.fromMap(props), "bench", id, Time.SYSTEM, scheduler,
                    new MetricRegistry(), new Random(id));
            logManager.startup();
            // The follower joins the ISR once caught up; the leader's proposal is simply committed.
            this.replicaManager = new ReplicaManager(id, config, logManager, Time.SYSTEM, scheduler,
                    (tp, topicId, epoch, proposal) -> CompletableFuture.completedFuture(
                            IsrChangeResult.committed(proposal.newIsr(), proposal.partitionEpoch() + 1)),
                    FailedReplicaReporter.NONE, endpoints, new MetricRegistry());
            replicaManager.startup();
        }

        @Override
        public void close() throws IOException {
            replicaManager.close();
            logManager.close();
        }
    }

    /** Broker 1, serving replica fetches over the chosen transport for the whole scenario. */
    static final class LeaderBroker implements AutoCloseable {
        final Broker broker;
        final Server server;
        final Transport transport;
        final String inProcessName = "bench-replication-" + UUID.randomUUID();
        /** A response holds up to replica.fetch.response.max.bytes plus one whole batch past it. */
        final int maxMessage;

        LeaderBroker(Path dir, ThreadPoolScheduler scheduler, ReplicationBenchmark options) throws IOException {
            ReplicationConfig config = options.replicationConfig();
            this.transport = options.transport;
            this.broker = new Broker(1, dir, config, scheduler, id -> Optional.empty());
            this.maxMessage = config.fetchResponseMaxBytes() + 2 * options.fetchMaxBytes
                    + options.recordSize * options.batchSize + 65_536;
            ReplicaFetchGrpcService service = new ReplicaFetchGrpcService(broker.replicaManager);
            this.server = transport == Transport.NETTY
                    ? NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service).build().start()
                    : InProcessServerBuilder.forName(inProcessName).addService(service).build().start();
        }

        ManagedChannel newChannel() {
            return transport == Transport.NETTY
                    ? NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
                            .maxInboundMessageSize(maxMessage).build()
                    : InProcessChannelBuilder.forName(inProcessName).maxInboundMessageSize(maxMessage).build();
        }

        @Override
        public void close() throws IOException {
            server.shutdownNow();
            try {
                server.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            broker.close();
        }
    }

    /** Broker 2, new for each round, fetching from the leader over a channel of its own. */
    static final class FollowerBroker implements AutoCloseable {
        final ManagedChannel channel;
        final Broker broker;

        FollowerBroker(Path dir, ThreadPoolScheduler scheduler, LeaderBroker leader, ReplicationConfig config)
                throws IOException {
            this.channel = leader.newChannel();
            LeaderEndpoint endpoint = new GrpcLeaderEndpoint(channel, 1L);
            Broker created;
            try {
                created = new Broker(2, dir, config, scheduler, id -> id == 1 ? Optional.of(endpoint) : Optional.empty());
            } catch (IOException | RuntimeException e) {
                channel.shutdownNow();
                throw e;
            }
            this.broker = created;
        }

        @Override
        public void close() throws IOException {
            try {
                broker.close();
            } finally {
                channel.shutdownNow();
            }
        }
    }
}
