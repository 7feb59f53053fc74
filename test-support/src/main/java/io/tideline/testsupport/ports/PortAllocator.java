package io.tideline.testsupport.ports;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Hands out ports of {@code [lowest, highest]} that are free on a loopback address, each at most once per
 * allocator, reserved against every other process that uses the same lock file.
 *
 * <p>A port is claimed when three things hold: this allocator never handed it out, this process took an
 * exclusive lock on byte {@code port} of the lock file (an fcntl record lock: another JVM with an allocator
 * on the same file fails to take it until this process exits, and the kernel drops it when this process dies,
 * however it dies), and a probe socket bound it on the address. The probe is closed before the port is
 * returned, since the caller (Ratis, gRPC, a script) binds it by number; the gap between that close and the
 * caller's bind is what the rest guards: no other allocator user takes the port, and no kernel-chosen port
 * lands on it, because the range lies below the ephemeral range (where the cluster's own outgoing connections
 * take their ports). Only a process that binds fixed ports of this range without the allocator can still win
 * the gap.
 *
 * <p>Locks and the handed-out set are kept for the allocator's life (the process's, for {@link Ports}): a
 * test cluster keeps its ports across node restarts, so a port is never "returned". Thread-safe.
 */
final class PortAllocator {
    private final int lowest;
    private final int highest;
    private final RandomGenerator random;
    /** Null when the lock file cannot be opened: the allocator then reserves within this process only. */
    private final FileChannel locks;
    private final Set<Integer> handedOut = new HashSet<>();
    /** Held, never released: releasing would let another process take a port this one may still bind. */
    private final List<FileLock> held = new ArrayList<>();
    /** Where {@link #distinct} looks next, as an offset from {@code lowest}; negative until the first call. */
    private int cursor = -1;

    PortAllocator(Path lockFile, int lowest, int highest, RandomGenerator random) {
        if (lowest < 1 || highest > 65_535 || lowest > highest) {
            throw new IllegalArgumentException("bad port range [" + lowest + ", " + highest + "]");
        }
        this.lowest = lowest;
        this.highest = highest;
        this.random = random;
        this.locks = open(lockFile);
    }

    private static FileChannel open(Path lockFile) {
        try {
            return FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            System.err.println("test ports: no cross-process reservation (" + lockFile + ": " + e + ")");
            return null;
        }
    }

    /**
     * {@code n} distinct ports free on {@code address}. Single ports are taken in order from a cursor that starts
     * at a random port, so the ports a long test run hands out stay packed together and leave wide free stretches
     * for {@link #base}, whose ranges at a script's fixed offsets need many free ports at once.
     */
    synchronized int[] distinct(InetAddress address, int n) {
        requireLoopback(address);
        int size = highest - lowest + 1;
        if (cursor < 0) {
            cursor = random.nextInt(size);
        }
        int[] ports = new int[n];
        int found = 0;
        for (int scanned = 0; found < n; scanned++) {
            if (scanned >= size) {
                throw new IllegalStateException("no " + n + " free ports on " + address.getHostAddress() + " in ["
                        + lowest + ", " + highest + "]");
            }
            int candidate = lowest + cursor;
            cursor = (cursor + 1) % size;
            if (claim(address, candidate)) {
                ports[found++] = candidate;
            }
        }
        return ports;
    }

    /**
     * A base {@code b} such that for every offset {@code o}, ports {@code b+o+1 .. b+o+n} are all claimed (for
     * scripts that place their ports at fixed distances from one base, e.g. cluster.sh's {@code base + i}).
     */
    synchronized int base(InetAddress address, int n, int... offsets) {
        requireLoopback(address);
        int[] group = offsets.length == 0 ? new int[] {0} : offsets;
        int span = 0;
        for (int offset : group) {
            span = Math.max(span, offset + n);
        }
        if (n < 1 || highest - lowest < span) {
            throw new IllegalArgumentException("ranges of " + n + " at offsets " + Arrays.toString(group)
                    + " do not fit in [" + lowest + ", " + highest + "]");
        }
        // Every base is tried once, from a random one on: a base is refused only when none fits.
        int bases = highest - lowest + 1 - span + 1;
        int start = random.nextInt(bases);
        for (int tried = 0; tried < bases; tried++) {
            int base = lowest - 1 + (start + tried) % bases;
            int[] ports = new int[group.length * n];
            int i = 0;
            for (int offset : group) {
                for (int k = 1; k <= n; k++) {
                    ports[i++] = base + offset + k;
                }
            }
            if (claim(address, ports)) {
                return base;
            }
        }
        throw new IllegalStateException("no free ranges of " + n + " ports on " + address.getHostAddress());
    }

    /**
     * Claims all of {@code ports} or none: false if one was handed out before, is reserved by another process
     * or is bound on {@code address}.
     */
    synchronized boolean claim(InetAddress address, int... ports) {
        requireLoopback(address);
        List<FileLock> taken = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        for (int port : ports) {
            if (port < lowest || port > highest || handedOut.contains(port) || !seen.add(port)) {
                release(taken);
                return false;
            }
            FileLock lock = lock(port);
            if (locks != null && lock == null) {
                release(taken);
                return false;
            }
            if (lock != null) {
                taken.add(lock);
            }
            if (!bindable(address, port)) {
                release(taken);
                return false;
            }
        }
        held.addAll(taken);
        handedOut.addAll(seen);
        return true;
    }

    private FileLock lock(int port) {
        if (locks == null) {
            return null;
        }
        try {
            return locks.tryLock(port, 1, false);
        } catch (OverlappingFileLockException sameJvm) {
            return null; // another allocator of this JVM on the same file holds it
        } catch (IOException e) {
            return null;
        }
    }

    private static void release(List<FileLock> taken) {
        for (FileLock lock : taken) {
            try {
                lock.release();
            } catch (IOException ignored) {
                // the lock goes with the process at the latest
            }
        }
        taken.clear();
    }

    private static boolean bindable(InetAddress address, int port) {
        try (ServerSocket probe = new ServerSocket(port, 1, address)) {
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }

    private static void requireLoopback(InetAddress address) {
        if (!address.isLoopbackAddress()) {
            throw new IllegalArgumentException("test ports are on loopback only, not " + address);
        }
    }
}
