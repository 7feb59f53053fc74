package io.tideline.node.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The Docker engine a container test talks to: the one that answers already (DOCKER_HOST, or the default socket),
 * or else a {@code dockerd} this class starts and {@link #close()} stops again, by its pid. The daemon's command is
 * docs/containers.md's ({@link ComposeDocCommands#dockerdCommand}), so the page's way to start an engine is the one
 * that runs here.
 *
 * <p>DECISION: a started daemon keeps its state under one fixed directory, {@link #DEFAULT_STATE_DIR} (or
 * {@code TIDELINE_TEST_DOCKER_DIR}): data root, exec root, pid file, socket and log. So the debootstrapped base
 * image (about 35 s to make) stays cached on disk from one run to the next while no daemon is left running between
 * them. An exclusive lock on the directory makes concurrent runs (several worktrees, CI) take turns instead of
 * sharing one data root. The daemon makes no networks of its own: no default bridge, no iptables rules, no
 * forwarding; the tests run their containers on the host network and talk to 127.0.0.1 only.
 *
 * <p>Not thread-safe; one test uses one instance.
 */
final class DockerEngine implements AutoCloseable {
    static final Path DEFAULT_STATE_DIR = Path.of("/var/tmp/tideline-docker");
    private static final Path DEFAULT_SOCKET = Path.of("/var/run/docker.sock");
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final Commands commands;
    private final Map<String, String> env;
    private final Process daemon;
    private final Path stateDir;
    private final FileChannel lockFile;
    private final Thread shutdownHook;

    private DockerEngine(Commands commands, Map<String, String> env, Process daemon, Path stateDir,
            FileChannel lockFile) {
        this.commands = commands;
        this.env = env;
        this.daemon = daemon;
        this.stateDir = stateDir;
        this.lockFile = lockFile;
        // A test JVM ended from outside (a build timeout, Ctrl-C) still stops the daemon it started.
        this.shutdownHook = daemon == null ? null : new Thread(this::stopDaemon, "docker-engine-stop");
        if (shutdownHook != null) {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /**
     * The engine that answers, or a new daemon of ours. Fails (never skips) with what is missing when there is
     * neither: the container tests must not pass on a machine that cannot run them.
     */
    static DockerEngine acquire(Commands commands, Duration lockWait, ComposeDocCommands doc)
            throws IOException, InterruptedException {
        require(commands, List.of("docker", "--version"), "the docker command is not installed");
        require(commands, List.of("docker-compose", "--version"), "the docker-compose command is not installed");

        String dockerHost = System.getenv("DOCKER_HOST");
        if (dockerHost != null && !dockerHost.isBlank() || Files.exists(DEFAULT_SOCKET)) {
            Commands.Result info = info(commands, Map.of());
            if (info.exitCode() == 0) {
                return new DockerEngine(commands, Map.of(), null, null, null);
            }
            if (dockerHost != null && !dockerHost.isBlank()) {
                throw new AssertionError("DOCKER_HOST=" + dockerHost + " does not answer:\n" + info.output());
            }
        }

        require(commands, List.of("dockerd", "--version"), "no Docker engine answers and dockerd is not installed");
        if (new com.sun.security.auth.module.UnixSystem().getUid() != 0) {
            throw new AssertionError("no Docker engine answers, and starting dockerd needs root; run as root or "
                    + "point DOCKER_HOST at an engine");
        }
        Path stateDir = Optional.ofNullable(System.getenv("TIDELINE_TEST_DOCKER_DIR")).map(Path::of)
                .orElse(DEFAULT_STATE_DIR);
        Files.createDirectories(stateDir);
        FileChannel lock = FileChannel.open(stateDir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            awaitLock(lock, stateDir, lockWait);
            stopLeftOverDaemon(stateDir);
            Map<String, String> env = Map.of("DOCKER_HOST", dockerHost(doc, stateDir));
            Process daemon = startDaemon(stateDir, doc.dockerdCommand(stateDir));
            DockerEngine engine = new DockerEngine(commands, env, daemon, stateDir, lock);
            try {
                engine.awaitAnswer();
            } catch (RuntimeException | Error e) {
                engine.close();
                throw e;
            }
            return engine;
        } catch (RuntimeException | Error | InterruptedException e) {
            lock.close();
            throw e;
        }
    }

    /** What every docker and docker-compose call needs in its environment to reach this engine. */
    Map<String, String> env() {
        return env;
    }

    boolean startedByUs() {
        return daemon != null;
    }

    /** Where the daemon we started keeps its state (empty for an engine found running). */
    Optional<Path> stateDir() {
        return Optional.ofNullable(stateDir);
    }

    private static void require(Commands commands, List<String> command, String missing) throws InterruptedException {
        try {
            if (commands.run(Map.of(), ANSWER_TIMEOUT, command).exitCode() == 0) {
                return;
            }
        } catch (IOException e) {
            // not installed: the message below
        }
        throw new AssertionError(missing + " (apt-get install docker.io docker-compose debootstrap, as .ci/run does)");
    }

    private static Commands.Result info(Commands commands, Map<String, String> env)
            throws IOException, InterruptedException {
        return commands.run(env, ANSWER_TIMEOUT, List.of("docker", "info", "--format", "{{.ServerVersion}}"));
    }

    private static void awaitLock(FileChannel lock, Path stateDir, Duration wait) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            FileLock held = lock.tryLock();
            if (held != null) {
                return; // released when the channel closes
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("another test run holds " + stateDir.resolve("lock") + " (its own dockerd) for more than "
                        + wait + "; wait for it, or set TIDELINE_TEST_DOCKER_DIR to another directory");
            }
            Thread.sleep(1000);
        }
    }

    /**
     * A daemon named by our pid file that still runs on our data root was started by an earlier run of these
     * tests whose JVM died before stopping it (we hold the lock, so no run uses it now): stop it before starting ours.
     */
    private static void stopLeftOverDaemon(Path stateDir) throws IOException {
        Path pidFile = stateDir.resolve("dockerd.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        String pid = Files.readString(pidFile, StandardCharsets.UTF_8).strip();
        if (!pid.matches("[0-9]+")) {
            return;
        }
        Optional<ProcessHandle> left = ProcessHandle.of(Long.parseLong(pid))
                .filter(p -> cmdline(p).contains("dockerd") && cmdline(p).contains(stateDir.resolve("data").toString()));
        if (left.isPresent()) {
            stop(left.get());
        }
    }

    /**
     * The page's {@code export DOCKER_HOST=...}, which must name the socket of the page's dockerd command in
     * {@code stateDir}; the daemon's data root and pid file must be there too, where a left-over daemon is looked for.
     */
    private static String dockerHost(ComposeDocCommands doc, Path stateDir) {
        String host = doc.block("engine").stream().map(ComposeDocCommands::export)
                .filter(e -> e != null && e.getKey().equals("DOCKER_HOST")).map(Map.Entry::getValue).findFirst()
                .orElseThrow(() -> new AssertionError("no export DOCKER_HOST=... in the ```sh engine block"))
                .replace("$D", stateDir.toString());
        List<String> command = doc.dockerdCommand(stateDir);
        for (List<String> flag : List.of(List.of("--host", host), List.of("--data-root", stateDir.resolve("data").toString()),
                List.of("--pidfile", stateDir.resolve("dockerd.pid").toString()))) {
            if (java.util.Collections.indexOfSubList(command, flag) < 0) {
                throw new AssertionError("the page's dockerd command lacks " + String.join(" ", flag) + ": " + command);
            }
        }
        return host;
    }

    /** No docker0 bridge, no iptables rules, no IP forwarding or masquerading: the page's flags, the host network only. */
    private static Process startDaemon(Path stateDir, List<String> command) throws IOException {
        for (String flag : List.of("--bridge=none", "--iptables=false", "--ip-forward=false", "--ip-masq=false")) {
            if (!command.contains(flag)) {
                throw new AssertionError("the page's dockerd command lacks " + flag + ", which keeps it off the machine's networks");
            }
        }
        Path log = stateDir.resolve("dockerd.log");
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
    }

    private void awaitAnswer() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            if (!daemon.isAlive()) {
                throw new AssertionError("dockerd exited with " + daemon.exitValue() + " during start-up:\n" + daemonLogTail());
            }
            try {
                Commands.Result info = info(commands, env);
                if (info.exitCode() == 0) {
                    return;
                }
                last = info.output();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(500);
        }
        throw new AssertionError("dockerd did not answer within " + START_TIMEOUT + ": " + last + "\n" + daemonLogTail());
    }

    String daemonLogTail() {
        if (stateDir == null) {
            return "";
        }
        try {
            List<String> lines = Files.readAllLines(stateDir.resolve("dockerd.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no dockerd log: " + e + ")";
        }
    }

    /** Stops the daemon we started (nothing for an engine found running) and releases the state directory. */
    @Override
    public void close() {
        if (daemon == null) {
            return;
        }
        try {
            stopDaemon();
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs (or ran) stopDaemon, which is idempotent
            }
        } finally {
            try {
                lockFile.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private synchronized void stopDaemon() {
        // containerd is the daemon's child; a container's shim is re-parented away from it, but its command line
        // names our exec root, so it is ours either way (left only if containers were still running).
        List<ProcessHandle> ours = new ArrayList<>(daemon.descendants().toList());
        stop(daemon.toHandle());
        String execRoot = stateDir.resolve("exec").toString();
        ProcessHandle.allProcesses().filter(p -> cmdline(p).contains(execRoot)).forEach(ours::add);
        for (ProcessHandle p : ours) {
            if (p.isAlive()) {
                stop(p);
            }
        }
        unmountUnder(execRoot);
    }

    /**
     * dockerd leaves the bind mount of its network namespace (exec root/netns/default) behind when it stops; it and
     * anything else still mounted under our exec root go, deepest first, so that no trace of the daemon is left.
     */
    private static void unmountUnder(String root) {
        List<String> mounts;
        try {
            mounts = Files.readAllLines(Path.of("/proc/self/mounts"), StandardCharsets.UTF_8).stream()
                    .map(l -> l.split(" ")[1]).filter(m -> m.startsWith(root + "/"))
                    .sorted(java.util.Comparator.reverseOrder()).toList();
        } catch (IOException e) {
            return;
        }
        for (String mount : mounts) {
            try {
                Process umount = new ProcessBuilder("umount", mount).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!umount.waitFor(10, TimeUnit.SECONDS)) {
                    umount.destroyForcibly();
                }
            } catch (IOException e) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** SIGTERM (dockerd stops its containers and containerd), then SIGKILL past the bound. */
    private static void stop(ProcessHandle p) {
        p.destroy();
        if (!awaitExit(p, STOP_TIMEOUT)) {
            p.destroyForcibly();
            // Bounded too: a process that is not our child exits only once init reaps it.
            awaitExit(p, Duration.ofSeconds(10));
        }
    }

    private static boolean awaitExit(ProcessHandle p, Duration atMost) {
        try {
            p.onExit().get(atMost.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        }
    }

    private static String cmdline(ProcessHandle p) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", String.valueOf(p.pid()), "cmdline")),
                    StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }
}
