package io.tideline.node.tools;

import io.tideline.node.testutil.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Port ranges for the script tests, whose scripts bind ports of their own choosing (cluster.sh: base + i):
 * probed free on the loopback interface just before use. A process started since may still take one, so a
 * test that loses that race fails on a bind error, never on someone else's node.
 */
final class LoopbackPorts {
    private LoopbackPorts() {
    }

    /** A base b such that b+1 .. b+n are free on the loopback interface. */
    static int freeRange(int n) {
        return freeRanges(n, 0);
    }

    /**
     * A base b such that, for every offset o of {@code offsets}, b+o+1 .. b+o+n are free (scripts that put
     * their client, quorum and metrics ports at fixed distances from one base).
     */
    static int freeRanges(int n, int... offsets) {
        for (int attempt = 0; attempt < 100; attempt++) {
            // Below the ephemeral range, where the nodes' own outgoing connections take no port.
            int base = ThreadLocalRandom.current().nextInt(10_000, FreePorts.ephemeralLow() - 400);
            boolean free = true;
            for (int offset : offsets) {
                free &= allFree(base + offset + 1, n);
            }
            if (free) {
                return base;
            }
        }
        throw new AssertionError("no free range of " + n + " ports found on the loopback interface");
    }

    private static boolean allFree(int first, int n) {
        for (int port = first; port < first + n; port++) {
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
