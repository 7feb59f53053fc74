package io.tideline.store.checkpoint;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A checkpoint file exists but does not parse. The message names the file and the 1-based line, so an
 * operator can open it and see what is wrong; the caller decides whether to fail the log dir or to fall
 * back to recovery from the segments.
 */
public class CorruptCheckpointException extends IOException {
    private final Path file;
    private final int lineNumber;

    public CorruptCheckpointException(Path file, int lineNumber, String reason) {
        super("Corrupt checkpoint file " + file + " at line " + lineNumber + ": " + reason);
        this.file = file;
        this.lineNumber = lineNumber;
    }

    public Path file() {
        return file;
    }

    /** 1-based line number of the offending line (or of the line that is missing). */
    public int lineNumber() {
        return lineNumber;
    }
}
