package io.tideline.node.testutil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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
    private static final Deque<Integer> recentOrder = new ArrayDeque<>();
    private static final Set<Integer> recent = new HashSet<>();

    private FreePorts() {
    }

    /** One free loopback port. */
    public static int one() {
        return distinct(1)[0];
    }

    /** {@code n} distinct free loopback ports, none handed out before by this JVM (as far as it remembers). */
    public static synchronized int[] distinct(int n) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            int found = 0;
            for (int attempt = 0; found < n; attempt++) {
                if (attempt > 100 * n) {
                    throw new IllegalStateException("no " + n + " free loopback ports found");
                }
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(s);
                if (!recent.contains(s.getLocalPort())) {
                    ports[found++] = s.getLocalPort();
                }
            }
            for (int port : ports) {
                remember(port);
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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

    private static void remember(int port) {
        recent.add(port);
        recentOrder.addLast(port);
        if (recentOrder.size() > REMEMBERED) {
            recent.remove(recentOrder.removeFirst());
        }
    }
}
