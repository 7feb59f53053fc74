package io.tideline.common.config;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * The command line of every generated configuration document: without an argument the Markdown goes
 * to standard output, with one it is written to that file. Each module's generator supplies only the
 * content, so a drift test can compare the checked-in file with the same supplier.
 */
public final class DocsWriter {
    private DocsWriter() {
    }

    /** Returns the exit code: 0 written, 1 the file could not be written, 2 bad usage. */
    public static int run(String program, String[] args, Supplier<String> markdown, PrintStream out, PrintStream err) {
        if (args.length > 1) {
            err.println("usage: " + program + " [output-file]");
            return 2;
        }
        String content = markdown.get();
        if (args.length == 0) {
            out.print(content);
            out.flush();
            return 0;
        }
        try {
            Files.writeString(Path.of(args[0]), content, StandardCharsets.UTF_8);
            return 0;
        } catch (IOException e) {
            err.println("cannot write " + args[0] + ": " + e.getMessage());
            return 1;
        }
    }
}
