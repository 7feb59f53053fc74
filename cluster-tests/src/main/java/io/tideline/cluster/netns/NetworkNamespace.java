package io.tideline.cluster.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A private network namespace ({@code ip netns add tideline-<pid>-<n>}) with its loopback up and extra loopback
 * addresses, and every process started in it through {@link #start}. Nothing inside reaches the host's network
 * or is reachable from it, so fixed ports cannot collide with anything else on the machine.
 *
 * <p>{@link #close()} (also run by a shutdown hook, so an aborted test JVM cleans up too) kills every process
 * it started by PID, then every PID {@code ip netns pids} still lists (all of them were started here: nothing
 * else can enter a namespace created under a name holding this JVM's pid), checks that none is left, and
 * deletes the namespace.
 *
 * <p>Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) and the {@code ip} command of iproute2: {@link #create}
 * fails with a message saying so instead of letting a test pass or skip.
 *
 * <p>Thread-safe: processes may be started from any thread; close is synchronized and runs once.
 */
public final class NetworkNamespace implements AutoCloseable {
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private final String name;
    private final List<Process> started = new CopyOnWriteArrayList<>();
    private final Thread shutdownHook;
    private volatile boolean closed;

    private NetworkNamespace(String name) {
        this.name = name;
        this.shutdownHook = new Thread(this::closeQuietly, "netns-cleanup-" + name);
    }

    /**
     * Creates the namespace, brings up its loopback and adds {@code addresses} (e.g. 127.0.0.11) to it.
     *
     * @throws IllegalStateException when not root or {@code ip} is missing, with the reason
     */
    public static NetworkNamespace create(List<String> addresses) {
        requireRoot();
        String name = "tideline-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
        run(List.of("ip", "netns", "add", name));
        NetworkNamespace ns = new NetworkNamespace(name);
        Runtime.getRuntime().addShutdownHook(ns.shutdownHook);
        try {
            ns.exec("ip", "link", "set", "lo", "up");
            for (String address : addresses) {
                ns.exec("ip", "addr", "add", address + "/8", "dev", "lo");
            }
        } catch (RuntimeException e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    /** The suite creates namespaces and firewall rules: without root it cannot, and it must fail, not skip. */
    static void requireRoot() {
        requireRoot(currentUid());
    }

    static void requireRoot(long uid) {
        if (uid != 0) {
            throw new IllegalStateException("the network-namespace suite needs root (ip netns add, iptables), but it"
                    + " runs as uid " + uid + "; run it as root (CI is root), see docs/testing.md");
        }
        for (String tool : List.of("ip", "iptables", "setpriv")) {
            if (!onPath(tool)) {
                throw new IllegalStateException("the network-namespace suite needs '" + tool + "' (packages iproute2,"
                        + " iptables, util-linux; .ci/run installs them); it is not on the PATH");
            }
        }
    }

    private static long currentUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("Uid:")) {
                    return Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no Uid line in /proc/self/status");
    }

    private static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    public String name() {
        return name;
    }

    /** {@code ip netns exec <name> <command...>}, as a list to hand to a ProcessBuilder. */
    public List<String> inside(List<String> command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", name));
        full.addAll(command);
        return full;
    }

    /**
     * Starts {@code command} inside the namespace and keeps it for {@link #close()}. {@code ip netns exec}
     * execs the command in place, so the returned process's PID is the command's own.
     */
    public Process start(ProcessBuilder builder) throws IOException {
        if (closed) {
            throw new IllegalStateException("namespace " + name + " is closed");
        }
        builder.command(inside(builder.command()));
        Process p = builder.start();
        started.add(p);
        return p;
    }

    /** Runs a short command inside the namespace and returns its output; fails on a non-zero exit. */
    public String exec(String... command) {
        return run(inside(List.of(command)));
    }

    /** The PIDs of the processes inside the namespace right now. */
    public List<Long> pids() {
        String out = run(List.of("ip", "netns", "pids", name));
        List<Long> pids = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.isBlank()) {
                pids.add(Long.parseLong(line.trim()));
            }
        }
        return pids;
    }

    static String run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in 30 s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue() + ": "
                        + out.strip());
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command, e);
        }
    }

    /**
     * Kills what it started and whatever else is inside, by PID, waits until {@code ip netns pids} lists none,
     * and deletes the namespace. Throws if a process or the namespace is left (after trying everything).
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // Called from the hook itself: nothing to remove.
        }
        for (Process p : started) {
            p.destroyForcibly();
        }
        for (Process p : started) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<Long> left = List.of();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        do {
            left = pidsOrEmpty();
            // Processes a test started inside without start() (none should be): killed by their PID too.
            left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            if (left.isEmpty()) {
                break;
            }
            sleepQuietly(100);
        } while (System.nanoTime() < deadline);
        String deleted = "";
        try {
            run(List.of("ip", "netns", "del", name));
        } catch (RuntimeException e) {
            deleted = "; and the namespace was not deleted: " + e.getMessage();
        }
        if (!left.isEmpty() || !deleted.isEmpty()) {
            throw new IllegalStateException("namespace " + name + " cleanup incomplete: processes left " + left
                    + deleted);
        }
    }

    private List<Long> pidsOrEmpty() {
        try {
            return pids();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /** Whether the namespace still exists (for tests of the cleanup). */
    public static boolean exists(String name) {
        return Files.exists(Path.of("/run/netns", name));
    }

    private void closeQuietly() {
        try {
            close();
        } catch (RuntimeException e) {
            System.err.println("netns cleanup: " + e.getMessage());
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            // Between polls of `ip netns pids` while killed processes exit: not a wait for a test condition.
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
