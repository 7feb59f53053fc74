package io.tideline.store.segment;

import java.nio.file.Path;

/**
 * The names of a partition directory's files and of a log dir's checkpoints (meta.properties, the .lock file and
 * producer .snapshot files are named by MetaProperties, LogDirLock and ProducerSnapshotFile). Segment files are
 * named by their base offset zero-padded to 20 digits so that {@code ls} sorts them in offset order, as in Kafka.
 */
public final class LogFileNames {
    public static final String LOG_SUFFIX = ".log";
    public static final String INDEX_SUFFIX = ".index";
    public static final String TIME_INDEX_SUFFIX = ".timeindex";
    public static final String TXN_INDEX_SUFFIX = ".txnindex";
    /** Appended to every file of a segment chosen for deletion; unlinked after file.delete.delay.ms. */
    public static final String DELETED_SUFFIX = ".deleted";
    public static final String TMP_SUFFIX = ".tmp";
    /** A segment the log cleaner is writing; removed on open (docs/storage.md "Compaction"). */
    public static final String CLEANED_SUFFIX = ".cleaned";
    /** A cleaned segment committed to replace the segments it covers; completed on open. */
    public static final String SWAP_SUFFIX = ".swap";
    /** The first dirty offset of every compacted log of a log dir (Kafka's name and format). */
    public static final String CLEANER_OFFSET_CHECKPOINT = "cleaner-offset-checkpoint";
    public static final String LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint";
    /** The topic id of a partition directory's log (Kafka's name and format). */
    public static final String PARTITION_METADATA = "partition.metadata";
    public static final String CLEAN_SHUTDOWN_MARKER = ".kafka_cleanshutdown";
    public static final String LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";
    public static final String RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
    public static final String REPLICATION_OFFSET_CHECKPOINT = "replication-offset-checkpoint";

    private LogFileNames() {
    }

    public static String filenamePrefixFromOffset(long offset) {
        return String.format("%020d", offset);
    }

    public static Path logFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefixFromOffset(baseOffset) + LOG_SUFFIX);
    }

    public static Path offsetIndexFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefixFromOffset(baseOffset) + INDEX_SUFFIX);
    }

    public static Path timeIndexFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefixFromOffset(baseOffset) + TIME_INDEX_SUFFIX);
    }

    public static Path txnIndexFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefixFromOffset(baseOffset) + TXN_INDEX_SUFFIX);
    }

    /** The base offset encoded in a segment file name such as {@code 00000000000000000500.index}. */
    public static long offsetFromFileName(String name) {
        int dot = name.indexOf('.');
        return Long.parseLong(dot < 0 ? name : name.substring(0, dot));
    }

    public static boolean isSegmentFileName(String name, String suffix) {
        return name.endsWith(suffix) && name.length() == 20 + suffix.length() && name.chars().limit(20).allMatch(Character::isDigit);
    }

    /** Same path with the suffix swapped at its end ({@code "" -> ".deleted"} when deleting). */
    public static Path withSuffix(Path file, String oldSuffix, String newSuffix) {
        String name = file.getFileName().toString();
        if (!name.endsWith(oldSuffix)) {
            throw new IllegalArgumentException(file + " does not end with '" + oldSuffix + "'");
        }
        return file.resolveSibling(name.substring(0, name.length() - oldSuffix.length()) + newSuffix);
    }
}
