package io.tideline.tools.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tideline.common.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The two files of {@code reassign-partitions}, in Kafka 4.4's formats (docs/cli.md, "reassign-partitions").
 *
 * <pre>
 * --topics-to-move-json-file:  {"topics":[{"topic":"orders"}],"version":1}
 * --reassignment-json-file:    {"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,2,4],"log_dirs":["any","any","any"]}]}
 * </pre>
 *
 * {@code version} may be left out (1); {@code log_dirs} may be left out, and when given must have one entry
 * per replica and be {@code "any"}: Tideline does not move replicas between a broker's log directories.
 * The checks with a message in Kafka's tool use its words. Every problem is a usage error (exit 2) naming
 * the file; unknown fields are ignored, as in Kafka.
 */
final class ReassignmentJson {
    static final int VERSION = 1;
    static final String ANY_LOG_DIR = "any";
    static final Comparator<TopicPartition> ORDER = Comparator.comparing(TopicPartition::topic)
            .thenComparingInt(TopicPartition::partition);

    private ReassignmentJson() {
    }

    /** The topics of a --topics-to-move-json-file, in file order. */
    static List<String> parseTopics(String text) {
        JsonObject root = root(text);
        JsonArray topics = StrictJson.array(root, "topics", null, false);
        if (topics.isEmpty()) {
            throw StrictJson.problem("\"topics\" is empty: nothing to move");
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < topics.size(); i++) {
            String where = "topics[" + i + "]";
            names.add(StrictJson.stringField(StrictJson.object(topics.get(i), where), "topic", where));
        }
        Set<String> duplicates = duplicates(names);
        if (!duplicates.isEmpty()) {
            throw StrictJson.problem("List of topics to reassign contains duplicate entries: " + duplicates);
        }
        return names;
    }

    /** The targets of a --reassignment-json-file, in file order (checked as Kafka's --execute checks them). */
    static Map<TopicPartition, List<Integer>> parseReassignment(String text) {
        JsonObject root = root(text);
        JsonArray partitions = StrictJson.array(root, "partitions", null, false);
        if (partitions.isEmpty()) {
            throw StrictJson.problem("Partition reassignment list cannot be empty");
        }
        Map<TopicPartition, List<Integer>> targets = new LinkedHashMap<>();
        Set<TopicPartition> twice = new TreeSet<>(ORDER);
        List<String> duplicateReplicas = new ArrayList<>();
        for (int i = 0; i < partitions.size(); i++) {
            String where = "partitions[" + i + "]";
            JsonObject entry = StrictJson.object(partitions.get(i), where);
            String topic = StrictJson.stringField(entry, "topic", where);
            int partition = StrictJson.intField(entry, "partition", where);
            if (partition < 0) {
                throw StrictJson.problem(where + ": \"partition\" must be >= 0, got " + partition);
            }
            TopicPartition tp = new TopicPartition(topic, partition);
            List<Integer> replicas = StrictJson.ints(StrictJson.array(entry, "replicas", where, false),
                    where + ".replicas");
            if (replicas.isEmpty()) {
                throw StrictJson.problem("Partition replica list cannot be empty");
            }
            checkLogDirs(entry, where, tp, replicas);
            Set<Integer> dup = duplicates(replicas);
            if (!dup.isEmpty()) {
                duplicateReplicas.add(tp + " contains multiple entries for "
                        + dup.stream().map(String::valueOf).collect(Collectors.joining(",")));
            }
            if (targets.putIfAbsent(tp, List.copyOf(replicas)) != null) {
                twice.add(tp);
            }
        }
        if (!twice.isEmpty()) {
            throw StrictJson.problem("Partition reassignment contains duplicate topic partitions: "
                    + twice.stream().map(TopicPartition::toString).collect(Collectors.joining(",")));
        }
        if (!duplicateReplicas.isEmpty()) {
            throw StrictJson.problem("Partition replica lists may not contain duplicate entries: "
                    + String.join(". ", duplicateReplicas));
        }
        return targets;
    }

    private static void checkLogDirs(JsonObject entry, String where, TopicPartition tp, List<Integer> replicas) {
        JsonArray dirs = StrictJson.array(entry, "log_dirs", where, true);
        if (dirs == null) {
            return;
        }
        List<String> logDirs = StrictJson.strings(dirs, where + ".log_dirs");
        if (logDirs.size() != replicas.size()) {
            throw StrictJson.problem("Size of replicas list " + replicas + " is different from size of log dirs list "
                    + logDirs + " for partition " + tp);
        }
        for (String dir : logDirs) {
            if (!ANY_LOG_DIR.equals(dir)) {
                throw StrictJson.problem(where + ": log dir \"" + dir + "\" for " + tp + ": only \"any\" is supported "
                        + "(Tideline does not move replicas between a broker's log directories)");
            }
        }
    }

    private static JsonObject root(String text) {
        JsonObject root = StrictJson.object(StrictJson.parse(text), "the document");
        int version = root.has("version") ? StrictJson.intField(root, "version", "the document") : VERSION;
        if (version != VERSION) {
            throw StrictJson.problem("Not supported version field value " + version);
        }
        return root;
    }

    private static <T> Set<T> duplicates(List<T> items) {
        Set<T> seen = new HashSet<>();
        Set<T> dup = new LinkedHashSet<>();
        for (T item : items) {
            if (!seen.add(item)) {
                dup.add(item);
            }
        }
        return dup;
    }

    /**
     * Kafka's reassignment JSON of {@code assignment}: partitions sorted by topic then partition, every
     * log dir "any", on one line, e.g. {@code {"version":1,"partitions":[{"topic":"t","partition":0,
     * "replicas":[1,2,3],"log_dirs":["any","any","any"]}]}}. What --generate proposes and --execute prints for
     * rollback, so it reads back with {@link #parseReassignment}.
     */
    static String format(Map<TopicPartition, List<Integer>> assignment) {
        return JsonOutput.write(document(assignment));
    }

    /** The same document as an object, for embedding in --output json. */
    static Map<String, Object> document(Map<TopicPartition, List<Integer>> assignment) {
        List<Map<String, Object>> partitions = new ArrayList<>();
        assignment.keySet().stream().sorted(ORDER).forEach(tp -> {
            List<Integer> replicas = assignment.get(tp);
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("topic", tp.topic());
            p.put("partition", tp.partition());
            p.put("replicas", replicas);
            p.put("log_dirs", replicas.stream().map(r -> ANY_LOG_DIR).toList());
            partitions.add(p);
        });
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", VERSION);
        doc.put("partitions", partitions);
        return doc;
    }
}
