package io.tideline.node.kafka;

/**
 * Error messages of Kafka answers, bounded so that the answer can always be written (docs/behaviours.md B165).
 * A message often quotes what the request named, and a name may take a whole string's 32,767 bytes (or more once
 * bytes that are not UTF-8 are read as replacement characters), so a message quoting one would not fit the
 * answer's string field, and the connection would close after the request had acted.
 */
public final class ErrorMessages {
    /** A message's longest form, in characters: at most 3,000 bytes of UTF-8 with the mark of the cut. */
    public static final int MAX_CHARS = 1_000;

    private ErrorMessages() {
    }

    /** {@code message} as is when it is short enough (null stays null), else its first characters and "...". */
    public static String bounded(String message) {
        if (message == null || message.length() <= MAX_CHARS) {
            return message;
        }
        return message.substring(0, MAX_CHARS - 3) + "...";
    }
}
