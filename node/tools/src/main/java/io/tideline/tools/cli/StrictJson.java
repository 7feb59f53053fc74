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
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the tools' JSON input files share: strict parsing (no comments, single quotes or trailing data) and
 * typed field reads that name the place of a problem ({@code partitions[1]: missing field "offset"}). Every
 * problem is a {@link CliException#usage} (exit 2): the file is checked whole before anything is sent.
 */
final class StrictJson {
    private StrictJson() {
    }

    /** The file's text; a missing or unreadable file is a usage error naming it. */
    static String readFile(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw CliException.usage("cannot read " + file + ": no such file");
        } catch (IOException e) {
            throw CliException.usage("cannot read " + file + ": " + Cli.firstLine(e.getMessage()));
        }
    }

    static JsonElement parse(String text) {
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

    static JsonObject object(JsonElement e, String where) {
        if (!e.isJsonObject()) {
            throw problem(where + " must be a JSON object, got " + kind(e));
        }
        return e.getAsJsonObject();
    }

    /** The array {@code name} of {@code o}; missing is an error unless {@code optional} (then null). */
    static JsonArray array(JsonObject o, String name, String where, boolean optional) {
        JsonElement e = o.get(name);
        if (e == null) {
            if (optional) {
                return null;
            }
            throw problem(prefix(where) + "missing field \"" + name + "\"");
        }
        if (!e.isJsonArray()) {
            throw problem(prefix(where) + "\"" + name + "\" must be an array, got " + kind(e));
        }
        return e.getAsJsonArray();
    }

    static String stringField(JsonObject o, String name, String where) {
        JsonPrimitive p = primitive(o, name, where, "string");
        if (!p.isString() || p.getAsString().isEmpty()) {
            throw problem(prefix(where) + "\"" + name + "\" must be a non-empty string, got " + p);
        }
        return p.getAsString();
    }

    static int intField(JsonObject o, String name, String where) {
        long value = longField(o, name, where);
        if (value != (int) value) {
            throw problem(prefix(where) + "\"" + name + "\" is out of range: " + value);
        }
        return (int) value;
    }

    static long longField(JsonObject o, String name, String where) {
        return integer(primitive(o, name, where, "number"), prefix(where) + "\"" + name + "\"");
    }

    /** Every element of {@code a} as an int; {@code where} names the array. */
    static List<Integer> ints(JsonArray a, String where) {
        List<Integer> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            JsonElement e = a.get(i);
            String place = where + "[" + i + "]";
            if (!e.isJsonPrimitive()) {
                throw problem(place + " must be an integer, got " + kind(e));
            }
            long value = integer(e.getAsJsonPrimitive(), place);
            if (value != (int) value) {
                throw problem(place + " is out of range: " + value);
            }
            out.add((int) value);
        }
        return out;
    }

    /** Every element of {@code a} as a string; {@code where} names the array. */
    static List<String> strings(JsonArray a, String where) {
        List<String> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            JsonElement e = a.get(i);
            if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
                throw problem(where + "[" + i + "] must be a string, got " + kind(e));
            }
            out.add(e.getAsString());
        }
        return out;
    }

    private static long integer(JsonPrimitive p, String place) {
        if (!p.isNumber()) {
            throw problem(place + " must be an integer, got " + p);
        }
        try {
            return new BigDecimal(p.getAsString()).longValueExact();
        } catch (ArithmeticException | NumberFormatException e) {
            throw problem(place + " must be an integer, got " + p);
        }
    }

    private static JsonPrimitive primitive(JsonObject o, String name, String where, String expected) {
        JsonElement e = o.get(name);
        if (e == null) {
            throw problem(prefix(where) + "missing field \"" + name + "\"");
        }
        if (!e.isJsonPrimitive()) {
            throw problem(prefix(where) + "\"" + name + "\" must be a " + expected + ", got " + kind(e));
        }
        return e.getAsJsonPrimitive();
    }

    /** Fields of the document itself are named bare; fields of an entry after its place. */
    private static String prefix(String where) {
        return where == null ? "" : where + ": ";
    }

    static String kind(JsonElement e) {
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

    static CliException problem(String message) {
        return CliException.usage(message);
    }
}
