package io.tideline.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.tideline.testsupport.ports.Ports;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code tideline health} against a real gRPC health service on a loopback port, as the container probe uses it. */
class HealthCheckCommandTest {
    private final HealthStatusManager health = new HealthStatusManager();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private Server server;

    @BeforeEach
    void startHealthService() throws IOException {
        server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                .addService(health.getHealthService()).build().start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    private String address() {
        return "127.0.0.1:" + ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    }

    private int run(String... args) {
        out.reset();
        err.reset();
        return HealthCheckCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private List<String> errLines() {
        return err.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void servingExitsZeroAndEverythingElseOne() {
        health.setStatus("", ServingStatus.NOT_SERVING);
        assertEquals(HealthCheckCommand.EXIT_NOT_SERVING, run("--server", address()));
        assertEquals("NOT_SERVING", out.toString(StandardCharsets.UTF_8).strip());

        health.setStatus("", ServingStatus.SERVING);
        assertEquals(HealthCheckCommand.EXIT_SERVING, run("--server", address()), err.toString(StandardCharsets.UTF_8));
        assertEquals("SERVING", out.toString(StandardCharsets.UTF_8).strip());
        assertEquals(List.of(), errLines());

        // What a node does when it stops (TidelineNode.close).
        health.enterTerminalState();
        assertEquals(HealthCheckCommand.EXIT_NOT_SERVING, run("--server", address()));
        assertEquals("NOT_SERVING", out.toString(StandardCharsets.UTF_8).strip());
    }

    @Test
    void anUnknownServiceIsNotServing() {
        health.setStatus("", ServingStatus.SERVING);
        assertEquals(HealthCheckCommand.EXIT_NOT_SERVING, run("--server", address(), "--service", "no.such.Service"));
        assertEquals(List.of("health: " + address() + ": NOT_FOUND: unknown service no.such.Service"), errLines());
    }

    @Test
    void nothingListeningIsOneLineAndExitOne() throws IOException {
        int port = Ports.one(); // reserved for this JVM, which binds nothing there: connects are refused
        long start = System.nanoTime();
        assertEquals(HealthCheckCommand.EXIT_NOT_SERVING, run("--server", "127.0.0.1:" + port, "--timeout-ms", "3000"));
        List<String> lines = errLines();
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("health: 127.0.0.1:" + port + ": UNAVAILABLE"), lines.get(0));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3), "fails fast, not at the deadline");
    }

    @Test
    void badArgumentsExitTwo() {
        assertEquals(HealthCheckCommand.EXIT_USAGE, run("--timeout-ms", "0", "--server", address()));
        assertEquals(List.of("health: --timeout-ms must be positive, got 0"), errLines());
        assertEquals(HealthCheckCommand.EXIT_USAGE, run("--frobnicate"));
        assertEquals(1, errLines().size(), errLines().toString());
        assertTrue(errLines().get(0).startsWith("health: ") && errLines().get(0).endsWith("(see --help)"), errLines().toString());
    }
}
