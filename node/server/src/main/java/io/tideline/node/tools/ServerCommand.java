package io.tideline.node.tools;

import io.tideline.common.errors.TidelineException;
import io.tideline.node.server.ServerConfig;
import io.tideline.node.server.TidelineNode;
import io.tideline.store.log.Log;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tideline server --config node.properties [--override key=value ...]}: runs one node until SIGTERM.
 *
 * <p>The file is read, the overrides applied on top, and the result validated before anything starts: every
 * bad key is printed on its own line ({@code server: key: why}) and the process exits with 2, so an
 * operator fixes the file in one pass. Keys no definition knows are warned about (typos) and ignored, as
 * Kafka does. Then the node starts (see {@link TidelineNode}) and the process waits; SIGTERM stops it the
 * orderly way and exits 0 ({@link NodeShutdownHook}).
 *
 * <p>Exit codes: 0 after a clean stop; 1 when the node failed to start or to stop; 2 on bad usage or a
 * bad or unreadable config file. Errors are one line on stderr, no stack trace.
 */
@Command(name = "server", sortOptions = false, description = "Run a Tideline node until SIGTERM.")
public final class ServerCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(ServerCommand.class);
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;

    /** Runs a node from a valid config and returns the process's exit code; injectable for tests. */
    @FunctionalInterface
    public interface NodeRunner {
        int run(ServerConfig config, PrintStream err);
    }

    @Option(names = "--config", required = true, paramLabel = "FILE",
            description = "The node's properties file (node.id, process.roles, listeners, log.dirs, ...).")
    private Path configFile;

    @Option(names = "--override", paramLabel = "KEY=VALUE",
            description = "Replaces or adds one key of the file; repeatable.")
    private Map<String, String> overrides = new LinkedHashMap<>();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    private final PrintStream err;
    private final NodeRunner runner;

    private ServerCommand(PrintStream err, NodeRunner runner) {
        this.err = err;
        this.runner = runner;
    }

    public static void main(String[] args) {
        // Only failures get here: a node that served leaves through its shutdown hook.
        System.exit(run(args, System.out, System.err, ServerCommand::runUntilStopped));
    }

    /** Parses the arguments and config, then hands a valid config to {@code runner}; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err, NodeRunner runner) {
        CommandLine cmd = new CommandLine(new ServerCommand(err, runner));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        cmd.setParameterExceptionHandler((e, a) -> {
            err.println("server: " + e.getMessage() + " (see --help)");
            return EXIT_USAGE;
        });
        cmd.setExecutionExceptionHandler((e, c, p) -> {
            err.println("server: " + oneLine(e));
            return EXIT_FAILED;
        });
        return cmd.execute(args);
    }

    @Override
    public Integer call() {
        Map<String, Object> props;
        try {
            props = ServerConfig.readProperties(configFile, overrides);
        } catch (NoSuchFileException e) {
            err.println("server: no such config file: " + configFile);
            return EXIT_USAGE;
        } catch (IOException | IllegalArgumentException e) {
            // IllegalArgumentException: a malformed unicode escape in the properties file.
            err.println("server: cannot read config file " + configFile + ": " + oneLine(e));
            return EXIT_USAGE;
        }
        List<String> problems = ServerConfig.validate(props);
        if (!problems.isEmpty()) {
            problems.forEach(p -> err.println("server: " + p));
            return EXIT_USAGE;
        }
        for (String unknown : ServerConfig.unknownKeys(props)) {
            err.println("server: warning: unknown configuration key '" + unknown + "' is ignored");
        }
        return runner.run(ServerConfig.fromMap(props), err);
    }

    /**
     * The production runner: bridges java.util.logging into slf4j, installs the SIGTERM hook, starts the node,
     * reports what start-up recovered, then parks this thread; the hook ends the process after stopping the node.
     */
    static int runUntilStopped(ServerConfig config, PrintStream err) {
        // Before anything starts gRPC or Netty: their java.util.logging lines in the node's format too.
        JulBridge.install();
        long stopBoundMs = config.controlledShutdownTimeoutMs() + NodeShutdownHook.CLOSE_GRACE_MS;
        NodeShutdownHook hook = new NodeShutdownHook(Thread.currentThread(), stopBoundMs, Runtime.getRuntime()::halt);
        // Installed before the start so that a SIGTERM during start-up still closes the logs cleanly.
        hook.install();
        OutOfMemoryPolicy.apply(config, log);
        TidelineNode node;
        try {
            node = TidelineNode.start(config);
        } catch (InterruptedException e) {
            hook.startupFailed();
            err.println("server: start-up of node " + config.node().nodeId() + " interrupted by a stop request");
            return EXIT_FAILED;
        } catch (IOException | RuntimeException e) {
            hook.startupFailed();
            if (!(e instanceof IOException || e instanceof TidelineException)) {
                // Not a condition an operator can fix from one line (a locked or unreadable log dir is): a bug.
                log.error("Node {} failed to start", config.node().nodeId(), e);
            }
            err.println("server: node " + config.node().nodeId() + " failed to start: " + oneLine(e));
            return EXIT_FAILED;
        }
        hook.started(node);
        reportRecovery(node);
        parkForever();
        return EXIT_OK;
    }

    /**
     * One line an operator (and the lifecycle tests) read to tell a clean start from a recovery: after a
     * clean shutdown no segment is recovered; after a crash at least the active segment of each log is.
     */
    private static void reportRecovery(TidelineNode node) {
        Collection<Log> logs = node.logManager().allLogs();
        int recovered = logs.stream().mapToInt(Log::recoveredSegmentsOnLoad).sum();
        long recoveredLogs = logs.stream().filter(l -> l.recoveredSegmentsOnLoad() > 0).count();
        log.info("Node {} start-up recovered {} segments in {} of {} logs", node.nodeId(), recovered, recoveredLogs,
                logs.size());
    }

    private static void parkForever() {
        CountDownLatch never = new CountDownLatch(1);
        while (true) {
            try {
                never.await();
            } catch (InterruptedException e) {
                // The hook may interrupt this thread when a stop races the end of start-up; keep waiting
                // for it to end the process.
            }
        }
    }

    private static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return message.replace('\n', ' ');
    }
}
