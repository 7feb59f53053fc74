package io.tideline.cluster.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Loopback ports a cluster must name before it binds them: the Ratis voters of controller.quorum.voters and
 * the client listeners the replication proxies forward to, which must stay the same across a restart. All
 * ports of one cluster are probed in one call with every probe socket held open until the last is found, so
 * they are distinct; ports this JVM handed out before are skipped, since a probe of one cluster must not
 * return a port another cluster of the same JVM is about to bind (Ratis exits the JVM on a failed bind).
 */
final class HarnessPorts {
    private static final Set<Integer> handedOut = new HashSet<>();

    private HarnessPorts() {
    }

    static synchronized int[] distinct(int n) {
        List<ServerSocket> probes = new ArrayList<>();
        try {
            int[] ports = new int[n];
            int found = 0;
            while (found < n) {
                if (probes.size() > 100 * n) {
                    throw new IllegalStateException("no " + n + " free loopback ports");
                }
                ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                probes.add(probe);
                if (handedOut.add(probe.getLocalPort())) {
                    ports[found++] = probe.getLocalPort();
                }
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
}
