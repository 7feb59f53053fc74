package io.tideline.tools.cli;

import io.tideline.client.BootstrapException;
import io.tideline.client.TidelineClientException;
import io.tideline.client.TransportException;
import io.tideline.common.config.ConfigException;
import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * What the client commands share: exit codes, the picocli set-up and the rule that every failure ends
 * as one line on stderr, never a stack trace.
 *
 * <p>Exit codes: {@link #EXIT_OK} when everything asked for was done; {@link #EXIT_FAILED} when the
 * cluster refused or failed part of it (a partition's error, a record not acknowledged, an offset out of
 * range with {@code --reset none}, no broker reachable); {@link #EXIT_USAGE} for bad arguments or input
 * files, before anything was sent.
 */
public final class Cli {
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;

    /** The logback file that keeps the client's INFO lines (config dumps, retries) off the tools' stdout. */
    static final String LOGGING_CONFIG = "tideline-cli-logback.xml";
    private static final String LOGBACK_CONFIG_PROPERTY = "logback.configurationFile";
    /**
     * gRPC logs through java.util.logging, not logback: its WARNING for a host it cannot resolve is a stack
     * trace on stderr, though the failure reaches the user as the tool's one line anyway. Held here because
     * java.util.logging keeps its loggers (and so their levels) only weakly.
     */
    private static final java.util.logging.Logger GRPC_LOGGER = java.util.logging.Logger.getLogger("io.grpc");

    private Cli() {
    }

    /**
     * Runs {@code cmd} (commands bound to {@code io}) with {@code args} and returns the exit code: what
     * {@code main} passes to {@code System.exit} and what tests assert.
     */
    static int execute(String name, CommandLine cmd, CliIo io, String[] args) {
        cmd.setOut(new PrintWriter(io.out(), true));
        cmd.setErr(new PrintWriter(io.err(), true));
        cmd.setParameterExceptionHandler((e, a) -> {
            String unknown = unknownCommand(e);
            io.err().println(name + ": " + (unknown != null ? unknown : e.getMessage()) + " (see --help)");
            return EXIT_USAGE;
        });
        cmd.setExecutionExceptionHandler((e, c, p) -> {
            io.out().flush();
            io.err().println(name + ": " + describe(e));
            return exitCode(e);
        });
        int code = cmd.execute(args);
        io.out().flush();
        io.err().flush();
        return code;
    }

    /**
     * For a word where a command with subcommands expects one ({@code admin topicz}): the word and the commands
     * there are, in one line. Null for any other parameter error, whose picocli message is clear as it is.
     */
    static String unknownCommand(CommandLine.ParameterException e) {
        if (!(e instanceof CommandLine.UnmatchedArgumentException unmatched) || e.getCommandLine() == null
                || e.getCommandLine().getSubcommands().isEmpty() || unmatched.getUnmatched().isEmpty()) {
            return null;
        }
        String word = unmatched.getUnmatched().get(0);
        if (word.startsWith("-")) {
            return null;
        }
        return "unknown command '" + word + "'; the commands are: "
                + String.join(", ", e.getCommandLine().getSubcommands().keySet());
    }

    /**
     * Points logback at the tools' own configuration (WARN and above, to stderr, without stack traces)
     * unless the user chose one with {@code -Dlogback.configurationFile}, and keeps gRPC's own warnings
     * off stderr. Must run before the first logger is created, so only {@code main} calls it; tests keep
     * their logback-test.xml.
     */
    static void useToolLogging() {
        if (System.getProperty(LOGBACK_CONFIG_PROPERTY) == null) {
            System.setProperty(LOGBACK_CONFIG_PROPERTY, LOGGING_CONFIG);
        }
        GRPC_LOGGER.setLevel(java.util.logging.Level.SEVERE);
    }

    static int exitCode(Throwable e) {
        if (e instanceof CliException ce) {
            return ce.exitCode();
        }
        if (e instanceof ConfigException || e instanceof IllegalArgumentException) {
            return EXIT_USAGE;
        }
        return EXIT_FAILED;
    }

    /** One line for any failure: the error code and message, with what was being tried for transport errors. */
    static String describe(Throwable e) {
        if (e instanceof CliException) {
            return e.getMessage();
        }
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof TransportException te && te.wrongListener().isPresent()) {
                // A Kafka listener's address given as the bootstrap server: what the node said names the right one.
                return "wrong port: " + te.getMessage().substring(0, te.getMessage().indexOf(": ")) + ": "
                        + te.wrongListener().get();
            }
        }
        if (e instanceof TransportException || e instanceof BootstrapException) {
            TidelineClientException te = (TidelineClientException) e;
            return "no broker answered (" + te.error() + "): " + firstLine(te.getMessage());
        }
        if (e instanceof TidelineClientException tce) {
            return tce.error() + ": " + firstLine(tce.getMessage());
        }
        if (e instanceof ConfigException) {
            return firstLine(e.getMessage());
        }
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + firstLine(message));
    }

    static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }
}
