package io.tideline.store.tools;

import io.tideline.store.segment.LogFileNames;
import java.nio.file.Path;

/** The segment files dump-log reads, told apart by their suffix; a {@code .deleted} suffix is looked through. */
enum SegmentFileKind {
    LOG(LogFileNames.LOG_SUFFIX),
    OFFSET_INDEX(LogFileNames.INDEX_SUFFIX),
    TIME_INDEX(LogFileNames.TIME_INDEX_SUFFIX),
    TXN_INDEX(LogFileNames.TXN_INDEX_SUFFIX);

    private final String suffix;

    SegmentFileKind(String suffix) {
        this.suffix = suffix;
    }

    static SegmentFileKind of(Path file) {
        String name = file.getFileName().toString();
        if (name.endsWith(LogFileNames.DELETED_SUFFIX)) {
            name = name.substring(0, name.length() - LogFileNames.DELETED_SUFFIX.length());
        }
        for (SegmentFileKind kind : values()) {
            if (name.endsWith(kind.suffix)) {
                return kind;
            }
        }
        return null;
    }

    /** The base offset a file's name gives, or -1 when the name is not the 20-digit base offset. */
    static long baseOffsetOf(Path file) {
        String name = file.getFileName().toString();
        int dot = name.indexOf('.');
        String digits = dot < 0 ? name : name.substring(0, dot);
        if (digits.length() != 20 || !digits.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        try {
            return LogFileNames.offsetFromFileName(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
