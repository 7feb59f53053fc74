package io.tideline.store.dir;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.nio.file.Path;

/**
 * A log dir's {@code meta.properties} belongs to another cluster or another node: the dir was moved,
 * mounted on the wrong host, or the configuration changed. Starting anyway would serve another
 * broker's data as our own, so the dir is refused.
 */
public class InconsistentMetaPropertiesException extends TidelineException {
    private final Path logDir;

    public InconsistentMetaPropertiesException(Path logDir, String property, String expected, String found) {
        super(Errors.KAFKA_STORAGE_ERROR, "Log directory " + logDir + " has " + property + "=" + found
                + " in " + MetaProperties.FILE_NAME + " but this broker expects " + property + "=" + expected);
        this.logDir = logDir;
    }

    public Path logDir() {
        return logDir;
    }
}
