package io.tideline.testsupport.ports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PortAllocatorTest {
    @TempDir
    Path dir;

    @Test
    void portsAreDistinctBelowTheEphemeralRangeAndNeverHandedOutTwice() {
        Set<Integer> seen = new HashSet<>();
        for (int round = 0; round < 20; round++) {
            for (int port : Ports.distinct(10)) {
                assertTrue(port >= Ports.LOWEST && port < Ports.ephemeralLow(), "port " + port);
                assertTrue(seen.add(port), "port " + port + " handed out twice");
            }
        }
        assertTrue(seen.add(Ports.one()));
    }

    @Test
    void aSmallRangeRunsOutInsteadOfRepeatingAPort() {
        int base = Ports.base(3);
        PortAllocator allocator = new PortAllocator(dir.resolve("ports.lock"), base + 1, base + 3, new Random(1));
        int[] all = allocator.distinct(loopback(), 3);
        assertEquals(Set.of(base + 1, base + 2, base + 3), IntStream.of(all).boxed().collect(java.util.stream.Collectors.toSet()));
        assertThrows(IllegalStateException.class, () -> allocator.distinct(loopback(), 1));
    }

    @Test
    void aPortBoundOnTheAddressIsSkipped() throws IOException {
        int base = Ports.base(2);
        PortAllocator allocator = new PortAllocator(dir.resolve("ports.lock"), base + 1, base + 2, new Random(1));
        try (ServerSocket taken = new ServerSocket(base + 1, 1, loopback())) {
            assertFalse(allocator.claim(loopback(), base + 1));
            assertEquals(base + 2, allocator.distinct(loopback(), 1)[0]);
        }
    }

    @Test
    void anotherLoopbackAddressIsProbedOnItself() throws IOException {
        InetAddress other = Ports.loopback("127.0.0.11");
        int base = Ports.base(1);
        PortAllocator allocator = new PortAllocator(dir.resolve("ports.lock"), base + 1, base + 1, new Random(1));
        // Bound on 127.0.0.1 only: free on 127.0.0.11.
        try (ServerSocket onLocalhost = new ServerSocket(base + 1, 1, loopback())) {
            assertEquals(base + 1, allocator.distinct(other, 1)[0]);
        }
        assertThrows(IllegalArgumentException.class,
                () -> allocator.distinct(InetAddress.getByAddress(new byte[] {10, 0, 0, 1}), 1));
    }

    @Test
    void aClaimIsAllOrNone() throws IOException {
        int base = Ports.base(3);
        PortAllocator allocator = new PortAllocator(dir.resolve("ports.lock"), base + 1, base + 3, new Random(1));
        try (ServerSocket taken = new ServerSocket(base + 3, 1, loopback())) {
            assertFalse(allocator.claim(loopback(), base + 1, base + 2, base + 3));
        }
        // Nothing of the failed claim stayed reserved.
        assertTrue(allocator.claim(loopback(), base + 1, base + 2));
        assertFalse(allocator.claim(loopback(), base + 2), "handed out already");
    }

    @Test
    void rangesAtOffsetsFromOneBaseAreReservedTogether() {
        int base = Ports.base(3, 0, 100, 200);
        for (int offset : new int[] {0, 100, 200}) {
            for (int i = 1; i <= 3; i++) {
                assertFalse(Ports.claim(base + offset + i), "port " + (base + offset + i) + " is reserved already");
            }
        }
        assertTrue(base + 1 >= Ports.LOWEST && base + 203 < Ports.ephemeralLow());
    }

    @Test
    void theRangeEndsWhereTheKernelsEphemeralRangeBegins() throws IOException {
        String first = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim().split("\\s+")[0];
        assertEquals(Math.max(Ports.LOWEST + 1000, Integer.parseInt(first)), Ports.ephemeralLow());
    }

    @Test
    void manySinglePortsLeaveRoomForRangesAtOffsets() {
        // Half of a 1,000-port range handed out one by one, as a long test run does, must still leave a base whose
        // four ranges of four are all free: the free half is at most split in two, and a span of 154 fits either.
        int base = Ports.base(1000);
        PortAllocator allocator = new PortAllocator(dir.resolve("ports.lock"), base + 1, base + 1000, new Random(7));
        for (int i = 0; i < 500; i++) {
            allocator.distinct(loopback(), 1);
        }
        int found = allocator.base(loopback(), 4, 0, 50, 100, 150);
        assertTrue(found >= base && found + 154 <= base + 1000, "base " + found);
    }

    @Test
    void anotherProcessCannotTakeAPortThisOneReserved() throws Exception {
        int base = Ports.base(3);
        Path lockFile = dir.resolve("ports.lock");
        // Before this process reserves them, the other process can claim the ports (and frees them on exit)...
        assertEquals(List.of("claimed", "claimed", "claimed"), claimInAnotherProcess(lockFile, base + 1, base + 3));
        PortAllocator allocator = new PortAllocator(lockFile, base + 1, base + 3, new Random(1));
        assertTrue(allocator.claim(loopback(), base + 1, base + 2, base + 3));
        // ...and after, it cannot, although nothing is bound there.
        assertEquals(List.of("taken", "taken", "taken"), claimInAnotherProcess(lockFile, base + 1, base + 3));
    }

    private static List<String> claimInAnotherProcess(Path lockFile, int first, int last) throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ClaimInAnotherProcess.class.getName(),
                lockFile.toString(), String.valueOf(first), String.valueOf(last))
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the other process did not exit");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        return new ArrayList<>(out.strip().lines().toList());
    }

    private static InetAddress loopback() {
        return Ports.loopback("127.0.0.1");
    }

    /** Run in a child JVM: tries to claim each port of [first, last] on the lock file, prints the outcome. */
    static final class ClaimInAnotherProcess {
        public static void main(String[] args) {
            int first = Integer.parseInt(args[1]);
            int last = Integer.parseInt(args[2]);
            PortAllocator allocator = new PortAllocator(Path.of(args[0]), first, last, new Random(1));
            for (int port = first; port <= last; port++) {
                System.out.println(allocator.claim(Ports.loopback("127.0.0.1"), port) ? "claimed" : "taken");
            }
        }
    }
}
