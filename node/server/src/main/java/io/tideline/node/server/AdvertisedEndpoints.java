package io.tideline.node.server;

import io.tideline.proto.metadata.Endpoint;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/** What a node tells other brokers and clients about its listeners, from its config and the ports it bound. */
final class AdvertisedEndpoints {
    private AdvertisedEndpoints() {
    }

    /**
     * What the registration advertises: the gRPC listener first (replication and the Tideline clients read the
     * first endpoint), then the Kafka listener's when there is one, which Kafka Metadata answers give clients.
     * {@code kafkaBoundPort} is only asked when the node has a Kafka listener.
     */
    static List<Endpoint> registration(ServerConfig config, int grpcBoundPort, IntSupplier kafkaBoundPort) {
        List<Endpoint> endpoints = new ArrayList<>();
        endpoints.add(Endpoint.newBuilder().setName(config.advertisedListener().name())
                .setHost(config.advertisedListener().host()).setPort(grpcPort(config, grpcBoundPort)).build());
        config.kafkaListener().ifPresent(k -> endpoints.add(Endpoint.newBuilder().setName(k.advertised().name())
                .setHost(k.advertised().host()).setPort(kafkaPort(k, kafkaBoundPort.getAsInt())).build()));
        return endpoints;
    }

    /**
     * The port other brokers and clients are told: advertised.listeners' own port when it names one (the node
     * may be behind a NAT or a proxy, reachable only there), else the bound port, so listeners on port 0
     * (tests) advertise the port actually picked.
     */
    static int grpcPort(ServerConfig config, int boundPort) {
        Listener advertised = config.advertisedListener();
        return advertised.equals(config.listener()) || advertised.port() == 0 ? boundPort : advertised.port();
    }

    /** As {@link #grpcPort}, for the Kafka listener. */
    private static int kafkaPort(KafkaListeners listeners, int boundPort) {
        Listener advertised = listeners.advertised();
        return advertised.equals(listeners.bind()) || advertised.port() == 0 ? boundPort : advertised.port();
    }

    /** The gRPC listener as clients are told it, host:port (what the Kafka listener names to a gRPC client). */
    static String grpcAddress(ServerConfig config, int boundPort) {
        return hostPort(config.advertisedListener().host(), grpcPort(config, boundPort));
    }

    /**
     * Where the gRPC listener relays a Kafka client (docs/behaviours.md B231): the Kafka listener's bound
     * address (loopback when it binds the wildcard), named to the client as advertised.
     */
    static KafkaClientSniffer.Target kafkaRelayTarget(KafkaListeners listeners, int boundPort) {
        String bindHost = listeners.bind().bindHost();
        boolean wildcard = bindHost.isEmpty() || bindHost.equals("0.0.0.0") || bindHost.equals("::");
        return new KafkaClientSniffer.Target(
                new InetSocketAddress(wildcard ? InetAddress.getLoopbackAddress().getHostAddress() : bindHost,
                        boundPort),
                hostPort(listeners.advertised().host(), kafkaPort(listeners, boundPort)));
    }

    /** The metrics endpoint's URL; the bound port, so metrics.http.port=0 (tests) shows the real one. */
    static String metricsUrl(ServerConfig config, int metricsPort) {
        String host = config.metricsHttpHost();
        // A wildcard bind is reachable wherever the clients' listener is advertised.
        if (host.isEmpty() || host.equals("0.0.0.0") || host.equals("::")) {
            host = config.advertisedListener().host();
        }
        return "http://" + hostPort(host, metricsPort) + "/metrics";
    }

    /** host:port, an IPv6 host in brackets. */
    private static String hostPort(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
