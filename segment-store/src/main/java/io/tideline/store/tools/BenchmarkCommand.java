package io.tideline.store.tools;

import static io.tideline.store.tools.BenchmarkSupport.describe;
import static io.tideline.store.tools.BenchmarkSupport.prepareDirectory;
import static io.tideline.store.tools.BenchmarkSupport.quietLogging;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import picocli.CommandLine;

/**
 * The life of a benchmark command, the same for each: parse the options, check them, claim the scratch
 * directory, run, clean up. Exit codes: 0 ok, 1 the run failed, 2 bad arguments or an unusable directory;
 * every failure is one line on stderr, prefixed with the command's name. A subclass declares its picocli
 * options and says how to check them and what to run.
 */
public abstract class BenchmarkCommand {
    private final String name;

    /** @param name the command's name (bench-...), which prefixes its error lines */
    protected BenchmarkCommand(String name) {
        this.name = name;
    }

    /** The directory to work in (--dir). */
    protected abstract Path dir();

    /** Whether the directory stays for inspection (--keep). */
    protected abstract boolean keep();

    /** Null when the options make a run, else why they do not, in one line. */
    protected abstract String validate();

    /** The run itself, in {@link #dir()}, which is new or empty. */
    protected abstract void execute(PrintStream out) throws IOException, InterruptedException;

    /** What {@code main} does: quiet logging, run with the process's streams, exit with the code. */
    protected static void runAndExit(BenchmarkCommand command, String[] args) {
        quietLogging();
        System.exit(command.launch(args, System.out, System.err));
    }

    /** Parses {@code args} into this command, runs it and reports; returns the exit code. */
    protected final int launch(String[] args, PrintStream out, PrintStream err) {
        CommandLine cli = new CommandLine(this);
        try {
            cli.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            err.println(name + ": " + e.getMessage());
            return 2;
        }
        if (cli.isUsageHelpRequested()) {
            cli.usage(out);
            return 0;
        }
        if (cli.isVersionHelpRequested()) {
            out.println("tideline " + name);
            return 0;
        }
        String invalid = validate();
        if (invalid != null) {
            err.println(name + ": " + invalid);
            return 2;
        }
        boolean created;
        try {
            created = prepareDirectory(dir());
        } catch (IOException | RuntimeException e) {
            err.println(name + ": cannot use --dir " + dir() + ": " + describe(e));
            return 2;
        }
        try {
            execute(out);
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println(name + ": failed: " + describe(e));
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println(name + ": interrupted");
            return 1;
        } finally {
            if (!keep()) {
                cleanUp(created, err);
            } else {
                out.println("kept " + dir().toAbsolutePath());
            }
        }
    }

    private void cleanUp(boolean created, PrintStream err) {
        try {
            BenchmarkSupport.cleanUp(dir(), created);
        } catch (IOException | UncheckedIOException e) {
            err.println(name + ": could not remove " + dir() + ": " + describe(e));
        }
    }
}
