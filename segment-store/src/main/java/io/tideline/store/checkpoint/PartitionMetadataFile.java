package io.tideline.store.checkpoint;

import io.tideline.common.io.FileUtils;
import io.tideline.store.segment.LogFileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The {@code partition.metadata} file in a partition directory, in Kafka's format: the id of the topic the log
 * belongs to, so that a directory named {@code <topic>-<partition>} left behind by a deleted topic is never taken
 * for the log of a new topic with the same name (docs/behaviours.md B130).
 *
 * <pre>
 * line 1     version: 0
 * line 2     topic_id: &lt;id&gt;      the controller's topic id: Kafka's Uuid printed as 22 characters of base64url
 *
 * e.g.       version: 0\ntopic_id: Xb3nS4gHQ0y8mC1kqA7dPw
 * </pre>
 *
 * UTF-8, a single space after each colon, no newline after the id (as Kafka writes it; a trailing newline is
 * accepted on reading). Written atomically (tmp file, fsync, rename, directory fsync), once, when the log is
 * created or first adopted by a topic. Reading is strict: anything but these two lines, a version other than 0,
 * or an id that is not a token of 1-64 characters of {@code [A-Za-z0-9_.-]} is a {@link CorruptCheckpointException};
 * the file is at most {@link #MAX_BYTES} long, checked before it is read.
 *
 * <p>Thread-safety: safe for concurrent use; the file only changes by atomic rename.
 */
public final class PartitionMetadataFile {
    public static final String FILE_NAME = LogFileNames.PARTITION_METADATA;
    static final int VERSION = 0;
    static final int MAX_ID_LENGTH = 64;
    /** Both lines with the longest id, and room for a trailing newline. */
    static final int MAX_BYTES = "version: 0\ntopic_id: \n".length() + MAX_ID_LENGTH;
    private static final String VERSION_PREFIX = "version: ";
    private static final String TOPIC_ID_PREFIX = "topic_id: ";

    private final Path file;

    public PartitionMetadataFile(Path partitionDir) {
        this.file = partitionDir.resolve(FILE_NAME);
    }

    public Path file() {
        return file;
    }

    /** Whether {@code id} can be written: a token of 1-64 characters of {@code [A-Za-z0-9_.-]}. */
    public static boolean isValidTopicId(String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '-' || c == '.';
            if (!legal) {
                return false;
            }
        }
        return true;
    }

    /** Replaces the file with {@code topicId}, durably. */
    public void write(String topicId) throws IOException {
        if (!isValidTopicId(topicId)) {
            throw new IllegalArgumentException("Not a topic id: '" + topicId + "'");
        }
        String content = VERSION_PREFIX + VERSION + "\n" + TOPIC_ID_PREFIX + topicId;
        FileUtils.writeAtomically(file, content.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The topic id in the file; empty if there is no file (a log created before topic ids were written).
     *
     * @throws CorruptCheckpointException if the file exists but is not as described above
     */
    public Optional<String> read() throws IOException {
        long size;
        try {
            size = Files.size(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        if (size > MAX_BYTES) {
            throw new CorruptCheckpointException(file, 1, "the file is " + size + " bytes, more than " + MAX_BYTES);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(Files.readAllBytes(file)))
                    .toString();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (CharacterCodingException e) {
            throw new CorruptCheckpointException(file, 1, "not UTF-8 text");
        }
        if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
        }
        String[] lines = text.split("\n", -1);
        if (lines.length != 2) {
            throw new CorruptCheckpointException(file, lines.length < 2 ? 2 : 3,
                    "expected 2 lines (version, topic_id), found " + lines.length);
        }
        if (!lines[0].startsWith(VERSION_PREFIX)) {
            throw new CorruptCheckpointException(file, 1, "expected 'version: 0', found '" + lines[0] + "'");
        }
        String version = lines[0].substring(VERSION_PREFIX.length());
        if (!version.equals(Integer.toString(VERSION))) {
            throw new CorruptCheckpointException(file, 1, "unsupported version '" + version + "'");
        }
        if (!lines[1].startsWith(TOPIC_ID_PREFIX)) {
            throw new CorruptCheckpointException(file, 2, "expected 'topic_id: <id>', found '" + lines[1] + "'");
        }
        String id = lines[1].substring(TOPIC_ID_PREFIX.length());
        if (!isValidTopicId(id)) {
            throw new CorruptCheckpointException(file, 2, "not a topic id: '" + id + "'");
        }
        return Optional.of(id);
    }

    @Override
    public String toString() {
        return "PartitionMetadataFile(" + file + ")";
    }
}
