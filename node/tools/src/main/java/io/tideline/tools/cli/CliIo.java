package io.tideline.tools.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.util.Objects;

/**
 * The streams a command reads and writes: {@code System.in/out/err} from {@code main}, captured ones in
 * tests. Results go to {@code out}; errors, warnings and summaries to {@code err}, so that {@code out}
 * can be piped into another program.
 */
public record CliIo(InputStream in, PrintStream out, PrintStream err) {

    public CliIo {
        Objects.requireNonNull(in, "in");
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(err, "err");
    }

    public static CliIo system() {
        return new CliIo(System.in, System.out, System.err);
    }
}
