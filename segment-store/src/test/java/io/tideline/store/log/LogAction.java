package io.tideline.store.log;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One step of a {@link LogModelPropertyTest} scenario. Offsets are not known when jqwik generates a
 * scenario, so reads and DeleteRecords name a region of the log (below the start, inside, at the end,
 * ...) and a fraction; the harness resolves them against the state at the time the step runs and
 * prints the resolved value when a check fails. {@code toString} is what jqwik prints for a failing
 * (shrunk) scenario, so it stays short and readable.
 */
sealed interface LogAction {

    /** One record of an appended batch: key size (-1 for a null key), value size, and a seed for the bytes. */
    record RecordSpec(int keySize, int valueSize, int seed) {
        byte[] key() {
            return keySize < 0 ? null : bytes(keySize, seed * 7 + 1);
        }

        byte[] value() {
            return bytes(valueSize, seed * 13 + 5);
        }

        private static byte[] bytes(int size, int salt) {
            byte[] b = new byte[size];
            for (int i = 0; i < size; i++) {
                b[i] = (byte) (salt + i * 31);
            }
            return b;
        }

        @Override
        public String toString() {
            return "k" + (keySize < 0 ? "null" : keySize) + "/v" + valueSize;
        }
    }

    /** Appends one batch of records stamped with the current mock time. */
    record Append(List<RecordSpec> records) implements LogAction {
        @Override
        public String toString() {
            return "append" + records.stream().map(RecordSpec::toString).collect(Collectors.joining(", ", "[", "]"));
        }
    }

    /** Where a read starts, relative to the log's bounds when the step runs. */
    enum ReadFrom {
        ZERO, BELOW_START, AT_START, INSIDE, AT_END, ABOVE_END
    }

    /** A consumer read bounded by the high watermark. {@code permille} places INSIDE reads and the distance of out-of-range ones. */
    record Read(ReadFrom from, int permille, int maxBytes, boolean minOneMessage) implements LogAction {
        @Override
        public String toString() {
            return "read(" + from + (from == ReadFrom.INSIDE ? " " + permille / 10 + "%" : "") + ", maxBytes=" + maxBytes
                    + (minOneMessage ? ", minOne" : "") + ")";
        }
    }

    record AdvanceTime(long ms) implements LogAction {
        @Override
        public String toString() {
            return "advance(" + ms + " ms)";
        }
    }

    /** One retention pass ({@link Log#deleteOldSegments()}). */
    record RetentionPass() implements LogAction {
        @Override
        public String toString() {
            return "retention";
        }
    }

    /** The rows of the beforeOffset table (docs/behaviours.md B23), resolved against the log when the step runs. */
    enum DeleteTarget {
        MINUS_TWO_OR_LESS, MINUS_ONE, ZERO, BELOW_START, AT_START, INSIDE, AT_HIGH_WATERMARK, ABOVE_HIGH_WATERMARK
    }

    record DeleteRecords(DeleteTarget target, int permille) implements LogAction {
        @Override
        public String toString() {
            return "deleteRecords(" + target + (target == DeleteTarget.INSIDE ? " " + permille / 10 + "%" : "") + ")";
        }
    }

    /** Rolls the active segment at the log end. */
    record Roll() implements LogAction {
        @Override
        public String toString() {
            return "roll";
        }
    }

    /** What the LogManager's checkpoint tasks do: remember the log start offset and the recovery point. */
    record Checkpoint() implements LogAction {
        @Override
        public String toString() {
            return "checkpoint";
        }
    }

    /** close() (flush, checkpoints) and reopen with hadCleanShutdown=true. */
    record CleanRestart() implements LogAction {
        @Override
        public String toString() {
            return "cleanRestart";
        }
    }

    /**
     * abandon() and reopen with hadCleanShutdown=false and the last checkpointed offsets; with
     * {@code tornBytes > 0}, that many bytes are first cut off the end of the active segment's .log.
     */
    record Crash(int tornBytes) implements LogAction {
        @Override
        public String toString() {
            return tornBytes == 0 ? "crash" : "crash(torn " + tornBytes + " bytes)";
        }
    }
}
