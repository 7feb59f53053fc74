package io.tideline.node.testutil;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for test clusters that must name their ports before they bind them (the Ratis voters of
 * controller.quorum.voters). The ports of one call are held open together while they are picked, so they
 * are distinct, and a port handed out recently in this JVM is not handed out again: probing one port at a
 * time gave the same port to two voters of one cluster, and Ratis exits the JVM when its bind fails.
 * A process outside this JVM may still take a port between the probe and the bind; that is rare, and the
 * test fails on the bind error.
 */
public final class FreePorts {
    /** How many handed-out ports are remembered: more than any test run of one JVM binds at once. */
    private static final int REMEMBERED = 4096;
    /** The lowest port handed out: above the well-known and most registered service ports. */
    private static final int LOWEST = 10_000;
    private static final Deque<Integer> recentOrder = new ArrayDeque<>();
    private static final Set<Integer> recent = new HashSet<>();

    private FreePorts() {
    }

    /** One free loopback port. */
    public static int one() {
        return distinct(1)[0];
    }

    /**
     * {@code n} distinct free loopback ports, none handed out before by this JVM (as far as it remembers), all
     * below the kernel's ephemeral range: ports probed inside it were taken by outgoing connections of the
     * cluster's own nodes before the node that was to listen there bound it.
     */
    public static synchronized int[] distinct(int n) {
        int highest = ephemeralLow() - 1;
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            int found = 0;
            for (int attempt = 0; found < n; attempt++) {
                if (attempt > 1000 * n) {
                    throw new IllegalStateException("no " + n + " free loopback ports in [" + LOWEST + ", " + highest + "]");
                }
                int candidate = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
                if (recent.contains(candidate)) {
                    continue;
                }
                try {
                    held.add(new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress()));
                } catch (IOException inUse) {
                    continue;
                }
                ports[found++] = candidate;
            }
            for (int port : ports) {
                remember(port);
            }
            return ports;
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // a probe socket that does not close is closed by the JVM at exit
                }
            }
        }
    }

    /** The first port of net.ipv4.ip_local_port_range; 32768 where it cannot be read. */
    public static int ephemeralLow() {
        try {
            String[] range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
            return Math.max(LOWEST + 1000, Integer.parseInt(range[0]));
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    private static void remember(int port) {
        recent.add(port);
        recentOrder.addLast(port);
        if (recentOrder.size() > REMEMBERED) {
            recent.remove(recentOrder.removeFirst());
        }
    }
}
