package io.tideline.store.dir;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.nio.file.Path;

/** The log dir's {@code .lock} is held by another process, or already by this one. */
public class LogDirInUseException extends TidelineException {
    private final Path logDir;

    public LogDirInUseException(Path logDir, Path lockFile) {
        super(Errors.KAFKA_STORAGE_ERROR, "Log directory " + logDir
                + " is in use by another process or LogManager (lock file " + lockFile + ")");
        this.logDir = logDir;
    }

    public Path logDir() {
        return logDir;
    }
}
