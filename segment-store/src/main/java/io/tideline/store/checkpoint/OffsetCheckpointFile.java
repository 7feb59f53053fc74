package io.tideline.store.checkpoint;

import io.tideline.common.TopicPartition;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A per-log-dir map of partition to offset, in Kafka's text checkpoint format. Used for
 * {@code log-start-offset-checkpoint}, {@code recovery-point-offset-checkpoint} and
 * {@code replication-offset-checkpoint} (high watermarks); Kafka reads these files as-is and so do we.
 *
 * <pre>
 * line 1     0                            version, always 0
 * line 2     &lt;count&gt;                      number of entry lines that follow
 * line 3..   &lt;topic&gt; &lt;partition&gt; &lt;offset&gt;  one per partition, single spaces, decimal numbers
 *
 * e.g.       0\n2\norders 0 1500\norders 1 1200\n
 * </pre>
 *
 * All text is UTF-8 (Kafka topic names are ASCII letters, digits, '.', '_' and '-'), every line ends in
 * {@code \n}. Entries are written sorted by topic then partition so the file is stable for diffs and
 * tests; readers do not depend on the order. Writes go through {@code FileUtils.writeAtomically}
 * (tmp file, fsync, rename, directory fsync), so a crash leaves either the old or the new checkpoint.
 *
 * <p>Reading a missing file gives an empty map (a fresh log dir). A file with a wrong version, a count
 * that does not match the entry lines, a malformed or negative number, or a partition listed twice
 * raises {@link CorruptCheckpointException} naming the file and line.
 *
 * <p>Thread-safety: safe for concurrent use; writes are serialized, reads never block.
 */
public final class OffsetCheckpointFile {

    // File names (log-start-offset-checkpoint, ...) live with every other name in LogFileNames.

    private static final CheckpointFile.EntryFormat<Map.Entry<TopicPartition, Long>> FORMAT =
            new CheckpointFile.EntryFormat<>() {
                @Override
                public String layout() {
                    return "<topic> <partition> <offset>";
                }

                @Override
                public int fieldCount() {
                    return 3;
                }

                @Override
                public List<String> fields(Map.Entry<TopicPartition, Long> e) {
                    long offset = e.getValue();
                    if (offset < 0) {
                        throw new IllegalArgumentException("negative offset " + offset + " for " + e.getKey());
                    }
                    return List.of(e.getKey().topic(), Integer.toString(e.getKey().partition()),
                            Long.toString(offset));
                }

                @Override
                public Map.Entry<TopicPartition, Long> parse(String[] f) {
                    TopicPartition tp = new TopicPartition(f[0], CheckpointFile.parseUnsignedInt(f[1]));
                    return Map.entry(tp, CheckpointFile.parseUnsigned(f[2]));
                }
            };

    private final CheckpointFile<Map.Entry<TopicPartition, Long>> file;

    public OffsetCheckpointFile(Path file) {
        this.file = new CheckpointFile<>(file, FORMAT);
    }

    public Path file() {
        return file.file();
    }

    /**
     * Replaces the checkpoint with {@code offsets}, durably.
     *
     * @throws IllegalArgumentException if an offset is negative or a topic contains whitespace (the file
     *                                  could not be read back)
     */
    public void write(Map<TopicPartition, Long> offsets) throws IOException {
        file.write(new TreeMap<>(offsets).entrySet());
    }

    /** The checkpointed offsets; empty if the file does not exist. */
    public Map<TopicPartition, Long> read() throws IOException {
        List<Map.Entry<TopicPartition, Long>> entries = file.read();
        Map<TopicPartition, Long> offsets = new HashMap<>(entries.size() * 2);
        for (int i = 0; i < entries.size(); i++) {
            Map.Entry<TopicPartition, Long> e = entries.get(i);
            if (offsets.putIfAbsent(e.getKey(), e.getValue()) != null) {
                throw file.corrupt(CheckpointFile.FIRST_ENTRY_LINE + i, "partition " + e.getKey()
                        + " is listed more than once");
            }
        }
        return Collections.unmodifiableMap(offsets);
    }

    @Override
    public String toString() {
        return "OffsetCheckpointFile(" + file.file() + ")";
    }
}
