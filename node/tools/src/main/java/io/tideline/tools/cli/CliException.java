package io.tideline.tools.cli;

/**
 * A failure a command reports as one line on stderr with the given exit code: bad arguments or input
 * ({@link Cli#EXIT_USAGE}), or something the cluster refused ({@link Cli#EXIT_FAILED}). The message is
 * the whole line after the command's name, so it must say what was wrong and where.
 */
final class CliException extends RuntimeException {
    private final int exitCode;

    CliException(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    static CliException usage(String message) {
        return new CliException(Cli.EXIT_USAGE, message);
    }

    static CliException failed(String message) {
        return new CliException(Cli.EXIT_FAILED, message);
    }

    int exitCode() {
        return exitCode;
    }
}
