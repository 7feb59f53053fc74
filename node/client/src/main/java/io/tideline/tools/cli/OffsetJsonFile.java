package io.tideline.tools.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.tideline.common.TopicPartition;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw CliException.usage("cannot read " + file + ": no such file");
        } catch (IOException e) {
            throw CliException.usage("cannot read " + file + ": " + Cli.firstLine(e.getMessage()));
        }
        try {
            return parse(text);
        } catch (CliException e) {
            throw CliException.usage("bad offset JSON file " + file + ": " + e.getMessage());
        }
    }

    static Map<TopicPartition, Long> parse(String text) {
        JsonObject root = object(parseStrict(text), "the document");
        int version = root.has("version") ? intField(root, "version", "the document") : VERSION;
        if (version != VERSION) {
            throw problem("unsupported \"version\" " + version + " (only " + VERSION + " is known)");
        }
        if (!root.has("partitions")) {
            throw problem("missing field \"partitions\"");
        }
        JsonElement list = root.get("partitions");
        if (!list.isJsonArray()) {
            throw problem("\"partitions\" must be an array, got " + kind(list));
        }
        JsonArray partitions = list.getAsJsonArray();
        if (partitions.isEmpty()) {
            throw problem("\"partitions\" is empty: nothing to delete");
        }
        Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
        for (int i = 0; i < partitions.size(); i++) {
            String where = "partitions[" + i + "]";
            JsonObject entry = object(partitions.get(i), where);
            String topic = stringField(entry, "topic", where);
            int partition = intField(entry, "partition", where);
            if (partition < 0) {
                throw problem(where + ": \"partition\" must be >= 0, got " + partition);
            }
            long offset = longField(entry, "offset", where);
            TopicPartition tp = new TopicPartition(topic, partition);
            if (offsets.putIfAbsent(tp, offset) != null) {
                throw problem(where + ": partition " + tp + " is listed twice");
            }
        }
        return offsets;
    }

    private static JsonElement parseStrict(String text) {
        if (text.isBlank()) {
            throw problem("the file is empty");
        }
        JsonReader reader = new JsonReader(new StringReader(text));
        reader.setStrictness(Strictness.STRICT);
        try {
            JsonElement element = JsonParser.parseReader(reader);
            if (reader.peek() != JsonToken.END_DOCUMENT) {
                throw problem("unexpected data after the JSON document at " + reader.getPath());
            }
            return element;
        } catch (IOException | JsonParseException e) {
            throw problem("not valid JSON: " + gsonReason(e));
        }
    }

    /** Gson's reasons carry a hint about lenient mode and a link on a second line; keep the place only. */
    private static String gsonReason(Exception e) {
        Throwable cause = e instanceof JsonParseException && e.getCause() != null ? e.getCause() : e;
        String reason = Cli.firstLine(cause.getMessage());
        String lenientHint = "Use JsonReader.setStrictness(Strictness.LENIENT) to accept malformed JSON";
        if (reason.startsWith(lenientHint)) {
            reason = "malformed JSON" + reason.substring(lenientHint.length());
        }
        return reason;
    }

    private static JsonObject object(JsonElement e, String where) {
        if (!e.isJsonObject()) {
            throw problem(where + " must be a JSON object, got " + kind(e));
        }
        return e.getAsJsonObject();
    }

    private static String stringField(JsonObject o, String name, String where) {
        JsonPrimitive p = primitive(o, name, where);
        if (!p.isString() || p.getAsString().isEmpty()) {
            throw problem(where + ": \"" + name + "\" must be a non-empty string, got " + p);
        }
        return p.getAsString();
    }

    private static int intField(JsonObject o, String name, String where) {
        long value = longField(o, name, where);
        if (value != (int) value) {
            throw problem(where + ": \"" + name + "\" is out of range: " + value);
        }
        return (int) value;
    }

    private static long longField(JsonObject o, String name, String where) {
        JsonPrimitive p = primitive(o, name, where);
        if (!p.isNumber()) {
            throw problem(where + ": \"" + name + "\" must be an integer, got " + p);
        }
        try {
            return new BigDecimal(p.getAsString()).longValueExact();
        } catch (ArithmeticException | NumberFormatException e) {
            throw problem(where + ": \"" + name + "\" must be an integer, got " + p);
        }
    }

    private static JsonPrimitive primitive(JsonObject o, String name, String where) {
        JsonElement e = o.get(name);
        if (e == null) {
            throw problem(where + ": missing field \"" + name + "\"");
        }
        if (!e.isJsonPrimitive()) {
            throw problem(where + ": \"" + name + "\" must be a " + ("topic".equals(name) ? "string" : "number")
                    + ", got " + kind(e));
        }
        return e.getAsJsonPrimitive();
    }

    private static String kind(JsonElement e) {
        if (e.isJsonNull()) {
            return "null";
        }
        if (e.isJsonArray()) {
            return "an array";
        }
        if (e.isJsonObject()) {
            return "an object";
        }
        return e.toString();
    }

    private static CliException problem(String message) {
        return CliException.usage(message);
    }
}
