package io.tideline.store.dir;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A file under a log dir that has been unlinked but is still held by this process, so its disk space
 * is not yet free.
 *
 * @param path   where the file was, as the kernel reports it (without the " (deleted)" suffix)
 * @param bytes  the space it holds: the file size for an open descriptor, the mapped length for a
 *               mapping (page-rounded, may exceed the file size), the larger of the two if both
 * @param holder {@value #FD}, {@value #MMAP} or {@value #FD_AND_MMAP}
 */
public record DeletedOpenFile(Path path, long bytes, String holder) {

    public static final String FD = "fd";
    public static final String MMAP = "mmap";
    public static final String FD_AND_MMAP = "fd+mmap";

    public DeletedOpenFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(holder, "holder");
    }
}
