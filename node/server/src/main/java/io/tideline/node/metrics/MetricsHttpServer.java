package io.tideline.node.metrics;

import com.codahale.metrics.MetricRegistry;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's HTTP endpoint for monitoring (keys in {@link MetricsHttpConfig}):
 * <ul>
 *   <li>{@code GET /metrics}: the registry in the Prometheus text format (OpenMetrics or protobuf when the
 *       scraper asks for it in {@code Accept}), served by the Prometheus library's own handler over
 *       {@link RegistryCollector}, with the JVM's garbage collections ({@link JvmGcCollector}) and any collectors
 *       the node adds; {@code ?name[]=...} selects families.</li>
 *   <li>{@code GET /health}: {@code 200 ok} while the health check answers true, {@code 503 unhealthy} otherwise
 *       (and when the check throws), for load balancers and orchestrators.</li>
 * </ul>
 * Other paths answer 404. Requests run on two daemon threads of this server's own, so a slow health check cannot
 * hold up a scrape. Thread-safe; {@link #close} stops it.
 */
public final class MetricsHttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetricsHttpServer.class);
    private static final int THREADS = 2;

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsHttpServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Binds {@code host:port} (port 0: any free port, see {@link #port()}) and starts serving.
     *
     * @param host    an address of this machine to listen on; {@code 0.0.0.0} for all interfaces
     * @param healthy the health check behind {@code /health}; called on every request, so it must be cheap
     * @throws IOException when the address cannot be bound (in use, not local); the message names it
     */
    public static MetricsHttpServer start(String host, int port, MetricRegistry registry, BooleanSupplier healthy)
            throws IOException {
        return start(host, port, registry, healthy, List.of());
    }

    /**
     * As {@link #start(String, int, MetricRegistry, BooleanSupplier)}, also serving {@code collectors}: families
     * whose labels come and go with the data (which the Dropwizard registry cannot hold), e.g. the FAILED replicas.
     */
    public static MetricsHttpServer start(String host, int port, MetricRegistry registry, BooleanSupplier healthy,
                                          List<Collector> collectors) throws IOException {
        PrometheusRegistry prometheus = new PrometheusRegistry();
        prometheus.register(new RegistryCollector(registry));
        prometheus.register(new JvmGcCollector());
        collectors.forEach(prometheus::register);
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 0);
        } catch (IOException e) {
            throw new IOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        ExecutorService executor = Executors.newFixedThreadPool(THREADS, daemonThreads());
        server.setExecutor(executor);
        server.createContext("/metrics", new MetricsHandler(prometheus));
        server.createContext("/health", exchange -> health(exchange, healthy));
        server.createContext("/", exchange -> respond(exchange, 404, "not found"));
        server.start();
        log.info("Serving /metrics and /health on {}:{}", host, server.getAddress().getPort());
        return new MetricsHttpServer(server, executor);
    }

    /** The bound port: the configured one, or the one picked for port 0. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private static void health(HttpExchange exchange, BooleanSupplier healthy) throws IOException {
        // Contexts match by prefix; /health is exact, so /healthz is not this endpoint.
        if (!exchange.getRequestURI().getPath().equals("/health")) {
            respond(exchange, 404, "not found");
            return;
        }
        boolean ok;
        try {
            ok = healthy.getAsBoolean();
        } catch (RuntimeException e) {
            log.warn("Health check failed; answering 503", e);
            ok = false;
        }
        respond(exchange, ok ? 200 : 503, ok ? "ok" : "unhealthy");
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        try (exchange) {
            byte[] bytes = (body + "\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "metrics-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
