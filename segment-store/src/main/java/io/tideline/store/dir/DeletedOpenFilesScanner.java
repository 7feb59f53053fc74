package io.tideline.store.dir;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds files under the log dirs that this process has deleted but still holds, through an open
 * descriptor or a memory mapping: the "ghost disk" leak, where retention deleted segments but the
 * space never came back because a reader, a channel or an index mapping was not closed. This is what
 * {@code lsof +L1} shows, made available as data for a metric or a log line.
 *
 * <p>Linux only: it reads {@code /proc/self/fd} (each entry is a link to the open file, whose target
 * ends in {@code " (deleted)"} once unlinked) and {@code /proc/self/maps} (mapped files, same suffix).
 * Where there is no procfs it returns an empty list. Descriptors come and go while it runs; one that
 * closes between listing and reading is skipped, never an error. The scan is a snapshot: cheap (one
 * readlink and one stat per descriptor), not atomic. Entries are keyed by path, so two deleted files
 * that had the same name show as one.
 *
 * <p>Thread-safety: stateless, safe for concurrent use.
 */
public final class DeletedOpenFilesScanner {

    static final String DELETED_SUFFIX = " (deleted)";

    /** {@code start-end perms offset dev inode pathname}; the path may contain spaces. */
    private static final Pattern MAPS_LINE =
            Pattern.compile("^([0-9a-f]+)-([0-9a-f]+)\\s+\\S+\\s+([0-9a-f]+)\\s+\\S+\\s+\\d+\\s+(/.*)$");

    private final Path procSelf;

    public DeletedOpenFilesScanner() {
        this(Path.of("/proc/self"));
    }

    /** Reads {@code fd/} and {@code maps} under {@code procSelf} instead of /proc/self (tests). */
    DeletedOpenFilesScanner(Path procSelf) {
        this.procSelf = procSelf;
    }

    /** Count and total size of a scan result. */
    public record Summary(int count, long totalBytes) {
    }

    public static Summary summarize(Collection<DeletedOpenFile> files) {
        long total = 0;
        for (DeletedOpenFile f : files) {
            total += f.bytes();
        }
        return new Summary(files.size(), total);
    }

    /** Deleted-but-held files under any of {@code logDirs}, largest first. */
    public List<DeletedOpenFile> scan(Collection<Path> logDirs) {
        List<Path> roots = roots(logDirs);
        if (roots.isEmpty() || !Files.isDirectory(procSelf)) {
            return List.of();
        }
        Map<Path, Long> fdBytes = scanFds(roots);
        Map<Path, Long> mmapBytes = scanMaps(roots);

        Map<Path, DeletedOpenFile> result = new LinkedHashMap<>();
        fdBytes.forEach((path, bytes) -> result.put(path, new DeletedOpenFile(path, bytes, DeletedOpenFile.FD)));
        mmapBytes.forEach((path, bytes) -> result.merge(path, new DeletedOpenFile(path, bytes, DeletedOpenFile.MMAP),
                (fd, mmap) -> new DeletedOpenFile(path, Math.max(fd.bytes(), mmap.bytes()), DeletedOpenFile.FD_AND_MMAP)));
        List<DeletedOpenFile> files = new ArrayList<>(result.values());
        files.sort(Comparator.comparingLong(DeletedOpenFile::bytes).reversed()
                .thenComparing(f -> f.path().toString()));
        return files;
    }

    /**
     * Each dir as given (absolute, normalized) and, if it exists, its real path too: the kernel reports
     * resolved paths, so a log dir configured through a symlink would otherwise never match.
     */
    private static List<Path> roots(Collection<Path> logDirs) {
        List<Path> roots = new ArrayList<>();
        for (Path dir : logDirs) {
            Path abs = dir.toAbsolutePath().normalize();
            roots.add(abs);
            try {
                Path real = abs.toRealPath();
                if (!real.equals(abs)) {
                    roots.add(real);
                }
            } catch (IOException e) {
                // missing dir: only the configured path can match
            }
        }
        return roots;
    }

    private Map<Path, Long> scanFds(List<Path> roots) {
        Map<Path, Long> found = new LinkedHashMap<>();
        Path fdDir = procSelf.resolve("fd");
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(fdDir)) {
            for (Path link : fds) {
                try {
                    String target = Files.readSymbolicLink(link).toString();
                    Path deleted = deletedPath(target, roots);
                    if (deleted == null) {
                        continue;
                    }
                    // stat through the procfs link reaches the open file even though its name is gone.
                    long size = Files.size(link);
                    if (!Files.readSymbolicLink(link).toString().equals(target)) {
                        continue; // the descriptor number was reused for another file meanwhile
                    }
                    if (stillLinked(link)) {
                        continue; // a live file really named "... (deleted)", or reachable via another link
                    }
                    found.merge(deleted, size, Math::max);
                } catch (IOException | RuntimeException e) {
                    // closed between listing and reading, or not a file: nothing to report
                }
            }
        } catch (IOException | RuntimeException e) {
            // no procfs (or fd listing not readable): nothing to report
        }
        return found;
    }

    /**
     * Link count of the open file, as {@code lsof +L1} checks it; unknown counts as unlinked, since the
     * kernel's " (deleted)" suffix is then the best evidence there is.
     */
    private static boolean stillLinked(Path link) {
        try {
            Object nlink = Files.getAttribute(link, "unix:nlink");
            return nlink instanceof Integer n && n > 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    private Map<Path, Long> scanMaps(List<Path> roots) {
        Map<Path, Long> found = new LinkedHashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(procSelf.resolve("maps"));
        } catch (IOException | RuntimeException e) {
            return found;
        }
        for (String line : lines) {
            Matcher m = MAPS_LINE.matcher(line);
            if (!m.matches()) {
                continue; // anonymous mapping, [heap], [stack], ...
            }
            Path deleted = deletedPath(m.group(4), roots);
            if (deleted == null || Files.exists(Path.of(m.group(4)))) {
                continue; // not ours, or a live file whose name really ends in " (deleted)"
            }
            try {
                long start = Long.parseUnsignedLong(m.group(1), 16);
                long end = Long.parseUnsignedLong(m.group(2), 16);
                long offset = Long.parseUnsignedLong(m.group(3), 16);
                // A file can be mapped as several regions; the furthest file position mapped is the
                // best measure of what the mappings pin.
                found.merge(deleted, offset + (end - start), Math::max);
            } catch (NumberFormatException e) {
                // not a line we understand
            }
        }
        return found;
    }

    /** The original path if {@code target} is a deleted file under one of {@code roots}, else null. */
    static Path deletedPath(String target, List<Path> roots) {
        if (!target.startsWith("/") || !target.endsWith(DELETED_SUFFIX)) {
            return null;
        }
        Path path;
        try {
            path = Path.of(target.substring(0, target.length() - DELETED_SUFFIX.length())).normalize();
        } catch (RuntimeException e) {
            return null;
        }
        for (Path root : roots) {
            if (path.startsWith(root) && !path.equals(root)) {
                return path;
            }
        }
        return null;
    }
}
