package io.tideline.store.checkpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code leader-epoch-checkpoint} file in a partition directory, in Kafka's format: which leader
 * epoch started at which offset, used to truncate a follower to the point where it diverged from the
 * leader.
 *
 * <pre>
 * line 1     0                        version, always 0
 * line 2     &lt;count&gt;                  number of entry lines that follow
 * line 3..   &lt;epoch&gt; &lt;start offset&gt;   one per epoch, single space, decimal numbers
 *
 * e.g.       0\n2\n0 0\n3 1500\n
 * </pre>
 *
 * UTF-8 text, every line ends in {@code \n}, written atomically (tmp file, fsync, rename, directory
 * fsync). Entries are written and read back in list order. This class checks the structure only
 * (version, count, two non-negative numbers per line); ordering invariants (epochs increasing, start
 * offsets non-decreasing) belong to the epoch cache that owns the list. Errors are reported as
 * {@link CorruptCheckpointException} with the file and line; a missing file reads as an empty list.
 *
 * <p>Thread-safety: safe for concurrent use; writes are serialized, reads never block.
 */
public final class LeaderEpochCheckpointFile {

    /** The file name inside a partition directory. */
    public static final String FILE_NAME = io.tideline.store.segment.LogFileNames.LEADER_EPOCH_CHECKPOINT;

    private static final CheckpointFile.EntryFormat<EpochEntry> FORMAT = new CheckpointFile.EntryFormat<>() {
        @Override
        public String layout() {
            return "<epoch> <start offset>";
        }

        @Override
        public int fieldCount() {
            return 2;
        }

        @Override
        public List<String> fields(EpochEntry e) {
            return List.of(Integer.toString(e.epoch()), Long.toString(e.startOffset()));
        }

        @Override
        public EpochEntry parse(String[] f) {
            return new EpochEntry(CheckpointFile.parseUnsignedInt(f[0]), CheckpointFile.parseUnsigned(f[1]));
        }
    };

    private final CheckpointFile<EpochEntry> file;

    public LeaderEpochCheckpointFile(Path file) {
        this.file = new CheckpointFile<>(file, FORMAT);
    }

    public Path file() {
        return file.file();
    }

    /** Replaces the checkpoint with {@code entries}, in the given order, durably. */
    public void write(List<EpochEntry> entries) throws IOException {
        file.write(List.copyOf(entries));
    }

    /** The checkpointed entries in file order; empty if the file does not exist. */
    public List<EpochEntry> read() throws IOException {
        return List.copyOf(file.read());
    }

    @Override
    public String toString() {
        return "LeaderEpochCheckpointFile(" + file.file() + ")";
    }
}
