package io.tideline.cluster.harness;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports a cluster must name before it binds them: the Ratis voters of controller.quorum.voters and
 * the client listeners the replication proxies forward to, which must stay the same across a restart. All
 * ports of one cluster are probed in one call with every probe socket held open until the last is found, so
 * they are distinct; ports this JVM handed out before are skipped, since a probe of one cluster must not
 * return a port another cluster of the same JVM is about to bind (Ratis exits the JVM on a failed bind). They
 * are picked below the ephemeral range ({@link #ephemeralLow}).
 */
final class HarnessPorts {
    /** Below the kernel's ephemeral range, where no outgoing connection takes a port between probe and bind. */
    private static final int LOWEST = 10_000;
    private static final Set<Integer> handedOut = new HashSet<>();

    private HarnessPorts() {
    }

    static synchronized int[] distinct(int n) {
        int highest = ephemeralLow() - 1;
        List<ServerSocket> probes = new ArrayList<>();
        try {
            int[] ports = new int[n];
            int found = 0;
            for (int attempt = 0; found < n; attempt++) {
                if (attempt > 1000 * n) {
                    throw new IllegalStateException("no " + n + " free loopback ports in [" + LOWEST + ", " + highest + "]");
                }
                int candidate = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
                if (handedOut.contains(candidate)) {
                    continue;
                }
                ServerSocket probe;
                try {
                    probe = new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress());
                } catch (IOException inUse) {
                    continue;
                }
                probes.add(probe);
                handedOut.add(candidate);
                ports[found++] = candidate;
            }
            return ports;
        } finally {
            for (ServerSocket probe : probes) {
                try {
                    probe.close();
                } catch (IOException ignored) {
                    // the JVM closes it at exit; the port is still ours to bind
                }
            }
        }
    }

    /**
     * The first port of the kernel's ephemeral range (net.ipv4.ip_local_port_range), 32768 where it cannot be
     * read. Ports probed inside that range were taken by outgoing connections of the cluster's own nodes
     * before the node that was to listen there bound it.
     */
    static int ephemeralLow() {
        try {
            String[] range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
            return Math.max(LOWEST + 1000, Integer.parseInt(range[0]));
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
