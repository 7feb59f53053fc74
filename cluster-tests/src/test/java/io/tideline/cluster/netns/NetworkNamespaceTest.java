package io.tideline.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The namespace's life: its loopback, the PIDs of what runs inside, and a cleanup that leaves nothing. */
class NetworkNamespaceTest {
    @Test
    void closeKillsEveryProcessByPidAndDeletesTheNamespace() throws Exception {
        NetworkNamespace ns = NetworkNamespace.create(List.of("127.0.0.11", "127.0.0.12"));
        String name = ns.name();
        Process sleeper;
        try {
            assertTrue(NetworkNamespace.exists(name));
            String addresses = ns.exec("ip", "-4", "addr", "show", "dev", "lo");
            assertTrue(addresses.contains("inet 127.0.0.11/8") && addresses.contains("inet 127.0.0.12/8")
                    && addresses.contains("UP"), addresses);
            sleeper = ns.start(new ProcessBuilder("sleep", "600"));
            // ip netns exec execs in place: the process's PID is the command's, the one ip netns pids lists.
            long pid = sleeper.pid();
            Awaitility.await("sleep runs inside").atMost(Duration.ofSeconds(10))
                    .until(() -> ns.pids().contains(pid)
                            && ProcessHandle.of(pid).flatMap(h -> h.info().command()).orElse("").endsWith("sleep"));
            assertEquals(List.of(pid), ns.pids());
        } finally {
            ns.close();
        }
        assertFalse(sleeper.isAlive(), "the process inside was killed");
        assertFalse(NetworkNamespace.exists(name), "namespace deleted");
        assertFalse(NetworkNamespace.run(List.of("ip", "netns", "list")).contains(name));
        assertThrows(IllegalStateException.class, () -> ns.start(new ProcessBuilder("true")));
    }

    @Test
    void withoutRootItFailsWithAClearMessageInsteadOfSkipping() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> NetworkNamespace.requireRoot(1000));
        assertEquals("the network-namespace suite needs root (ip netns add, iptables), but it runs as uid 1000;"
                + " run it as root (CI is root), see docs/testing.md", e.getMessage());
    }
}
