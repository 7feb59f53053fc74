package io.tideline.store.checkpoint;

import io.tideline.common.io.FileUtils;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The text layout shared by Kafka's checkpoint files: a version line ({@code 0}), an entry count line,
 * then one line per entry of space-separated fields, every line ending in {@code \n}. Parsing is strict
 * (single spaces, unsigned decimal numbers, exact count) because every file we read was written by this
 * class or by Kafka, and anything else means the file is damaged.
 *
 * <p>Thread-safety: writes are serialized by a lock, since concurrent writers would share the
 * {@code .tmp} file. Reads take no lock: the file only ever changes by atomic rename, so a reader sees
 * either the old or the new content, whole.
 */
final class CheckpointFile<T> {

    static final int VERSION = 0;
    /** Line number of the first entry: after the version and count lines. */
    static final int FIRST_ENTRY_LINE = 3;

    /** How one entry becomes a line and back. */
    interface EntryFormat<T> {
        /** The layout of an entry line, for error messages, e.g. {@code "<epoch> <start offset>"}. */
        String layout();

        int fieldCount();

        /** The fields of an entry; throws IllegalArgumentException for an entry that cannot be written. */
        List<String> fields(T entry);

        /** Builds an entry from fields already split; throws IllegalArgumentException if they are invalid. */
        T parse(String[] fields);
    }

    private final Path file;
    private final EntryFormat<T> format;
    private final Object writeLock = new Object();

    CheckpointFile(Path file, EntryFormat<T> format) {
        this.file = file;
        this.format = format;
    }

    Path file() {
        return file;
    }

    void write(Collection<T> entries) throws IOException {
        StringBuilder text = new StringBuilder(32 + entries.size() * 32);
        text.append(VERSION).append('\n').append(entries.size()).append('\n');
        for (T entry : entries) {
            List<String> fields = format.fields(entry);
            for (int i = 0; i < fields.size(); i++) {
                String field = fields.get(i);
                if (field.isEmpty() || field.chars().anyMatch(c -> c == ' ' || c == '\n' || c == '\r')) {
                    // Would produce a file that no reader (ours or Kafka's) can parse back.
                    throw new IllegalArgumentException("cannot write " + entry + " to " + file
                            + ": field '" + field + "' is empty or contains whitespace");
                }
                text.append(i == 0 ? "" : " ").append(field);
            }
            text.append('\n');
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        synchronized (writeLock) {
            FileUtils.writeAtomically(file, bytes);
        }
    }

    /** The entries in file order; an empty list if the file does not exist. */
    List<T> read() throws IOException {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return List.of();
        }
        List<String> lines = splitLines(content);

        int version = (int) parseNumber(lines, 1, "version", Integer.MAX_VALUE);
        if (version != VERSION) {
            throw corrupt(1, "unsupported version " + version + " (expected " + VERSION + ")");
        }
        int count = (int) parseNumber(lines, 2, "entry count", Integer.MAX_VALUE);

        List<T> entries = new ArrayList<>(Math.min(count, lines.size()));
        for (int i = 0; i < count; i++) {
            int lineNumber = FIRST_ENTRY_LINE + i;
            if (lineNumber > lines.size()) {
                throw corrupt(lineNumber, "the count on line 2 is " + count + " but the file ends after "
                        + i + " entries");
            }
            String line = lines.get(lineNumber - 1);
            String[] fields = line.split(" ", -1);
            if (fields.length != format.fieldCount() || containsEmpty(fields)) {
                throw corrupt(lineNumber, "expected '" + format.layout() + "' but found '" + line + "'");
            }
            try {
                entries.add(format.parse(fields));
            } catch (IllegalArgumentException e) {
                throw corrupt(lineNumber, "expected '" + format.layout() + "' but found '" + line + "' ("
                        + e.getMessage() + ")");
            }
        }
        int extraLine = FIRST_ENTRY_LINE + count;
        if (lines.size() >= extraLine) {
            throw corrupt(extraLine, "the count on line 2 is " + count + " but more lines follow: '"
                    + lines.get(extraLine - 1) + "'");
        }
        return entries;
    }

    CorruptCheckpointException corrupt(int lineNumber, String reason) {
        return new CorruptCheckpointException(file, lineNumber, reason);
    }

    /**
     * Splits on {@code \n}; a final line without a newline still counts (Kafka's reader accepts it), an
     * empty file has no lines. Each line is decoded strictly so stray bytes are reported with their line.
     */
    private List<String> splitLines(byte[] content) throws CorruptCheckpointException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        List<String> lines = new ArrayList<>();
        int start = 0;
        while (start < content.length) {
            int end = start;
            while (end < content.length && content[end] != '\n') {
                end++;
            }
            try {
                lines.add(decoder.decode(ByteBuffer.wrap(content, start, end - start)).toString());
            } catch (CharacterCodingException e) {
                throw corrupt(lines.size() + 1, "not valid UTF-8 text");
            }
            start = end + 1;
        }
        return lines;
    }

    private long parseNumber(List<String> lines, int lineNumber, String what, long max)
            throws CorruptCheckpointException {
        if (lines.size() < lineNumber) {
            throw corrupt(lineNumber, "missing " + what + " line (file has " + lines.size() + " lines)");
        }
        String line = lines.get(lineNumber - 1);
        try {
            long value = parseUnsigned(line);
            if (value > max) {
                throw new IllegalArgumentException("too large");
            }
            return value;
        } catch (IllegalArgumentException e) {
            throw corrupt(lineNumber, "expected the " + what + " as a non-negative integer but found '" + line + "'");
        }
    }

    /**
     * Parses a plain non-negative decimal: digits only, no sign, no spaces. {@link Long#parseLong} alone
     * would accept {@code +5} and {@code -5}, which never appear in a file that was written correctly.
     */
    static long parseUnsigned(String s) {
        if (s.isEmpty()) {
            throw new NumberFormatException("empty number");
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                throw new NumberFormatException("not a non-negative decimal: " + s);
            }
        }
        return Long.parseLong(s); // NumberFormatException on overflow
    }

    static int parseUnsignedInt(String s) {
        long v = parseUnsigned(s);
        if (v > Integer.MAX_VALUE) {
            throw new NumberFormatException("out of int range: " + s);
        }
        return (int) v;
    }

    private static boolean containsEmpty(String[] fields) {
        for (String f : fields) {
            if (f.isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
