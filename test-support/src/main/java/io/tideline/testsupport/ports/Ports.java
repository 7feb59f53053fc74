package io.tideline.testsupport.ports;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * The one source of ports for tests that must name a port before something binds it: the Ratis voters of
 * {@code controller.quorum.voters}, node listeners kept across restarts, a script's port base, a port that
 * nothing listens on. A port handed out here is:
 * <ul>
 *   <li>below the kernel's ephemeral range ({@link #ephemeralLow}), so no outgoing connection takes it between
 *       the probe and the bind (the cluster's own connections take ports of that range all the time);
 *   <li>distinct within a call and never handed out twice in this JVM, so two clusters of one JVM never race for
 *       one (Ratis exits the JVM when its bind fails);
 *   <li>reserved against every other JVM on this machine that allocates here (the file lock of
 *       {@link PortAllocator}), so parallel test runs do not pick the same port either;
 *   <li>free when probed on the given loopback address ({@code 127.0.0.1} unless one is passed, e.g.
 *       {@code 127.0.0.11} for a node of its own address).
 * </ul>
 * Ports are not given back: a test cluster keeps its ports for its life, restarts included.
 */
public final class Ports {
    /** Above the well-known and most registered service ports. */
    static final int LOWEST = 10_000;
    private static final InetAddress LOCALHOST = loopback("127.0.0.1");
    private static final PortAllocator ALLOCATOR = new PortAllocator(
            Path.of(System.getProperty("java.io.tmpdir"), "tideline-test-ports.lock"), LOWEST, ephemeralLow() - 1,
            new Random());

    private Ports() {
    }

    /** One port on 127.0.0.1; also a port that refuses connections, since nothing else will bind it. */
    public static int one() {
        return distinct(1)[0];
    }

    /** {@code n} distinct ports on 127.0.0.1. */
    public static int[] distinct(int n) {
        return distinct(LOCALHOST, n);
    }

    /** {@code n} distinct ports free on {@code address}, a loopback address (127.x.y.z or ::1). */
    public static int[] distinct(InetAddress address, int n) {
        return ALLOCATOR.distinct(address, n);
    }

    /**
     * A base {@code b} such that, for every offset {@code o} (none: just 0), ports {@code b+o+1 .. b+o+n} are
     * reserved on 127.0.0.1: for scripts that put node i's ports at fixed distances from one base
     * ({@code cluster.sh}: client {@code b+i}, quorum {@code b+100+i}, ...).
     */
    public static int base(int n, int... offsets) {
        return ALLOCATOR.base(LOCALHOST, n, offsets);
    }

    /** Reserves exactly {@code ports} on 127.0.0.1, all or none; false if one is taken or was handed out. */
    public static boolean claim(int... ports) {
        return ALLOCATOR.claim(LOCALHOST, ports);
    }

    /** The first port of net.ipv4.ip_local_port_range; 32768 where it cannot be read. */
    public static int ephemeralLow() {
        try {
            // Read by lines: on JDK 17, Files.readString of this sysctl file returns its first byte only.
            String[] range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim()
                    .split("\\s+");
            return Math.max(LOWEST + 1000, Integer.parseInt(range[0]));
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    static InetAddress loopback(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }
}
