package io.tideline.tools.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tideline.common.TopicPartition;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The offset file of {@code delete-records --offset-json-file}, in the format of Kafka's
 * {@code kafka-delete-records.sh} (docs/behaviours.md B53, B54):
 *
 * <pre>
 * {"partitions": [{"topic": "orders", "partition": 0, "offset": 1000}], "version": 1}
 * </pre>
 *
 * Each entry asks to delete the records of one partition before {@code offset}; the broker applies the
 * beforeOffset table (docs/behaviours.md B23) to the value (N deletes below N, -1 up to the high
 * watermark, 0 changes nothing, other negatives and values above the high watermark are
 * OFFSET_OUT_OF_RANGE), so no offset is refused here.
 * {@code version} may be left out; when present it must be 1. Unknown fields are ignored, as Kafka does.
 * Refused, with the place named: JSON that does not parse (strict JSON: no comments, single quotes or
 * trailing data), a missing or mistyped field, a negative or fractional partition, no partitions at all,
 * and the same partition twice.
 */
final class OffsetJsonFile {
    static final int VERSION = 1;

    private OffsetJsonFile() {
    }

    /** The requested offsets in file order. */
    static Map<TopicPartition, Long> read(Path file) {
        String text = StrictJson.readFile(file);
        try {
            return parse(text);
        } catch (CliException e) {
            throw CliException.usage("bad offset JSON file " + file + ": " + e.getMessage());
        }
    }

    static Map<TopicPartition, Long> parse(String text) {
        JsonObject root = StrictJson.object(StrictJson.parse(text), "the document");
        int version = root.has("version") ? StrictJson.intField(root, "version", "the document") : VERSION;
        if (version != VERSION) {
            throw StrictJson.problem("unsupported \"version\" " + version + " (only " + VERSION + " is known)");
        }
        JsonArray partitions = StrictJson.array(root, "partitions", null, false);
        if (partitions.isEmpty()) {
            throw StrictJson.problem("\"partitions\" is empty: nothing to delete");
        }
        Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
        for (int i = 0; i < partitions.size(); i++) {
            String where = "partitions[" + i + "]";
            JsonObject entry = StrictJson.object(partitions.get(i), where);
            String topic = StrictJson.stringField(entry, "topic", where);
            int partition = StrictJson.intField(entry, "partition", where);
            if (partition < 0) {
                throw StrictJson.problem(where + ": \"partition\" must be >= 0, got " + partition);
            }
            long offset = StrictJson.longField(entry, "offset", where);
            TopicPartition tp = new TopicPartition(topic, partition);
            if (offsets.putIfAbsent(tp, offset) != null) {
                throw StrictJson.problem(where + ": partition " + tp + " is listed twice");
            }
        }
        return offsets;
    }
}
