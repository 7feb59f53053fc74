package io.tideline.tools.cli;

import static io.tideline.tools.cli.CliRun.admin;
import static io.tideline.tools.cli.CliRun.produce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tideline.common.TopicPartition;
import io.tideline.node.server.NodeTestCluster;
import io.tideline.store.cleaner.LogCleanerManager;
import io.tideline.tools.cli.CliRun.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code admin log-dirs --describe} and {@code admin explain-retention} against three nodes in this JVM:
 * text and JSON output, --broker-list, unknown brokers, topics and partitions, and a stopped broker.
 */
class CliLogDirsTest {
    private static final long DAY_MS = 86_400_000L;
    private static final String ISO = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z";

    @TempDir
    Path dir;

    @Test
    void describesLogDirsAndExplainsRetentionPerBroker() throws Exception {
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 3, Map.of()).startAll()) {
            String bootstrap = cluster.bootstrapServers();
            Result created = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "dirs",
                    "--partitions", "1", "--replication-factor", "3", "--config", "segment.bytes=1024",
                    "--config", "retention.ms=" + DAY_MS);
            assertEquals(0, created.exitCode(), created.toString());
            String lines = IntStream.range(0, 200).mapToObj(i -> "record-" + i).collect(Collectors.joining("\n", "", "\n"));
            Result produced = produce(lines, "--bootstrap-server", bootstrap, "--topic", "dirs", "--partition", "0",
                    "--acks", "all", "--producer-property", "batch.size=400");
            assertEquals(0, produced.exitCode(), produced.toString());

            // JSON: Kafka's document, every broker, each replica at the same log end once the followers fetched.
            Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                JsonObject doc = logDirsJson(bootstrap, 0, "--topic-list", "dirs");
                assertEquals(1, doc.get("version").getAsInt());
                assertEquals(List.of(1, 2, 3), brokerIds(doc));
                for (JsonElement b : doc.getAsJsonArray("brokers")) {
                    JsonObject logDir = b.getAsJsonObject().getAsJsonArray("logDirs").get(0).getAsJsonObject();
                    assertTrue(logDir.get("error").isJsonNull(), logDir.toString());
                    assertTrue(logDir.get("logDir").getAsString().endsWith("logs"), logDir.toString());
                    JsonObject p = logDir.getAsJsonArray("partitions").get(0).getAsJsonObject();
                    assertEquals("dirs-0", p.get("partition").getAsString());
                    assertTrue(p.get("size").getAsLong() > 1024, p.toString());
                    assertEquals(0, p.get("offsetLag").getAsLong());
                    assertEquals(false, p.get("isFuture").getAsBoolean());
                    assertTrue(p.get("segmentCount").getAsInt() > 1, p.toString());
                    assertEquals(0, p.get("logStartOffset").getAsLong());
                    assertEquals(200, p.get("logEndOffset").getAsLong());
                    assertEquals(200, p.get("highWatermark").getAsLong());
                    assertEquals("[]", p.get("pendingUnlink").toString());
                    assertEquals("[]", p.get("deletedOpen").toString());
                }
            });

            // Text: Kafka's two lines, then a table per broker and log dir.
            Result text = admin("--bootstrap-server", bootstrap, "log-dirs", "--describe", "--topic-list", "dirs");
            assertEquals(0, text.exitCode(), text.toString());
            List<String> out = text.outLines();
            assertEquals("Querying brokers for log directories information", out.get(0));
            assertEquals("Received log directory information from brokers 1,2,3", out.get(1));
            assertTrue(out.get(2).matches("Broker: 1\tLogDir: \\S+logs\tError: -"), out.get(2));
            assertTrue(out.get(3).matches("PARTITION +SIZE +SEGMENTS +LOG_START +LOG_END +HW +OFFSET_LAG +PENDING_UNLINK"
                    + " +DELETED_OPEN +DIRTY_RATIO +LAST_CLEANED"), out.get(3));
            assertTrue(out.get(4).matches("dirs-0 +\\d+ +\\d+ +0 +200 +200 +0 +- +- +- +-"), out.get(4));
            assertEquals(3, out.stream().filter(l -> l.startsWith("Broker: ")).count(), text.toString());

            assertEquals(List.of(1, 3), brokerIds(logDirsJson(bootstrap, 0, "--broker-list", "3,1")));
            Result unknownBroker = admin("--bootstrap-server", bootstrap, "log-dirs", "--describe", "--broker-list", "1,9");
            assertEquals(1, unknownBroker.exitCode(), unknownBroker.toString());
            assertEquals("admin: the given brokers do not exist from --broker-list: 9. Current existent brokers: 1,2,3",
                    unknownBroker.singleErrorLine());
            Result badList = admin("--bootstrap-server", bootstrap, "log-dirs", "--describe", "--broker-list", "one");
            assertEquals(2, badList.exitCode(), badList.toString());
            Result unknownTopic = admin("--bootstrap-server", bootstrap, "log-dirs", "--describe", "--topic-list", "nope");
            assertEquals(1, unknownTopic.exitCode(), unknownTopic.toString());
            assertEquals("admin: unknown topic 'nope' in --topic-list", unknownTopic.singleErrorLine());

            // explain-retention at the leader: closed segments inside retention.ms, then the active segment.
            Result explained = admin("--bootstrap-server", bootstrap, "explain-retention", "--topic", "dirs",
                    "--partition", "0");
            assertEquals(0, explained.exitCode(), explained.toString());
            List<String> e = explained.outLines();
            assertTrue(e.get(0).matches("Partition: dirs-0\tBroker: [123]\tLogDir: \\S+"), e.get(0));
            assertTrue(e.get(1).startsWith("LogStartOffset: 0\tHighWatermark: 200\tLogEndOffset: 200\tretention.ms="
                    + DAY_MS + "\tretention.bytes=-1"), e.get(1));
            assertTrue(e.get(2).matches("As of the next retention pass at " + ISO + " \\(every 300000 ms; now " + ISO
                    + "\\)"), e.get(2));
            assertTrue(e.get(3).matches("BASE_OFFSET +SIZE +LARGEST_TIMESTAMP +STATUS +WHY"), e.get(3));
            assertTrue(e.get(4).matches("0 +\\d+ +" + ISO + " +KEPT +retention.bytes is -1 \\(B14\\); its newest record "
                    + "is inside retention.ms until " + ISO + " \\(B11\\)"), e.get(4));
            assertTrue(e.get(e.size() - 2).matches("\\d+ +\\d+ +" + ISO + " +KEPT +the active segment, never deleted "
                    + "\\(B9\\)"), e.get(e.size() - 2));
            assertEquals("Compaction: does not apply (cleanup.policy=delete)", e.get(e.size() - 1));

            // JSON at a named follower-or-leader: epoch ms, and the deadline is the largest timestamp + retention.ms + 1.
            Result json = admin("--bootstrap-server", bootstrap, "--output", "json", "explain-retention", "--topic", "dirs",
                    "--partition", "0", "--broker", "2");
            assertEquals(0, json.exitCode(), json.toString());
            assertEquals(1, json.outLines().size(), json.out());
            JsonObject r = JsonParser.parseString(json.out()).getAsJsonObject();
            assertEquals(2, r.get("broker").getAsInt());
            assertEquals("NONE", r.get("error").getAsString());
            assertEquals(200, r.get("logEndOffset").getAsLong());
            JsonArray segments = r.getAsJsonArray("segments");
            assertTrue(segments.size() > 1, r.toString());
            JsonObject first = segments.get(0).getAsJsonObject();
            assertEquals("KEPT", first.get("status").getAsString());
            JsonObject within = first.getAsJsonArray("reasons").get(1).getAsJsonObject();
            assertEquals("WITHIN_RETENTION_MS", within.get("kind").getAsString());
            assertEquals("B11", within.get("rule").getAsString());
            assertEquals(first.get("largestTimestamp").getAsLong() + DAY_MS + 1, within.get("atMs").getAsLong());
            assertTrue(Math.abs(first.get("largestTimestamp").getAsLong() - Instant.now().toEpochMilli()) < 600_000);
            assertTrue(r.get("nextRetentionPassMs").getAsLong() > r.get("nowMs").getAsLong());
            JsonObject active = segments.get(segments.size() - 1).getAsJsonObject();
            assertEquals("ACTIVE_SEGMENT", active.getAsJsonArray("reasons").get(0).getAsJsonObject().get("kind")
                    .getAsString());
            JsonObject notCompacted = r.getAsJsonObject("compaction");
            assertEquals(false, notCompacted.get("compacted").getAsBoolean(), notCompacted.toString());
            assertEquals("delete", notCompacted.get("cleanupPolicy").getAsString());
            assertEquals(-1, notCompacted.get("lastCleaningMs").getAsLong());

            Result noPartition = admin("--bootstrap-server", bootstrap, "explain-retention", "--topic", "dirs",
                    "--partition", "7");
            assertEquals(1, noPartition.exitCode(), noPartition.toString());
            assertEquals("admin: dirs-7: UNKNOWN_TOPIC_OR_PARTITION: unknown topic or partition dirs-7",
                    noPartition.singleErrorLine());
            Result noTopic = admin("--bootstrap-server", bootstrap, "explain-retention", "--topic", "nothing",
                    "--partition", "0", "--broker", "1");
            assertEquals(1, noTopic.exitCode(), noTopic.toString());
            assertEquals("admin: nothing-0 on broker 1: UNKNOWN_TOPIC_OR_PARTITION: unknown topic 'nothing'",
                    noTopic.singleErrorLine());

            // A stopped broker is reported, and the others still answer.
            cluster.stop(3);
            Result partial = admin("--bootstrap-server", bootstrap, "log-dirs", "--describe", "--topic-list", "dirs");
            assertEquals(1, partial.exitCode(), partial.toString());
            assertEquals("Received log directory information from brokers 1,2", partial.outLines().get(1));
            assertTrue(partial.out().contains("Broker: 3\tError: BROKER_NOT_AVAILABLE: "), partial.out());
            assertTrue(partial.singleErrorLine().startsWith("admin: broker 3 did not answer: BROKER_NOT_AVAILABLE: "),
                    partial.err());
            JsonObject partialJson = logDirsJson(bootstrap, 1, "--topic-list", "dirs");
            assertEquals(List.of(1, 2, 3), brokerIds(partialJson));
            JsonObject stopped = partialJson.getAsJsonArray("brokers").get(2).getAsJsonObject();
            assertEquals("BROKER_NOT_AVAILABLE", stopped.get("error").getAsString());
            assertEquals("[]", stopped.get("logDirs").toString());
            assertTrue(partialJson.getAsJsonArray("brokers").get(0).getAsJsonObject().get("error").isJsonNull());
            Result stoppedExplain = admin("--bootstrap-server", bootstrap, "explain-retention", "--topic", "dirs",
                    "--partition", "0", "--broker", "3");
            assertEquals(1, stoppedExplain.exitCode(), stoppedExplain.toString());
            assertTrue(stoppedExplain.singleErrorLine().startsWith("admin: dirs-0 on broker 3: BROKER_NOT_AVAILABLE: "),
                    stoppedExplain.err());
        }
    }

    /**
     * The cleaner's view (docs/behaviours.md B193) in both commands: a compacted log held paused shows its whole
     * closed part dirty and no cleaning; once resumed, the broker's cleaner (log.cleaner.backoff.ms of 100 ms, real
     * time) cleans it and both commands show when, and the verdicts turn from dirty to clean.
     */
    @Test
    void showsTheCleanersViewOfACompactedLog() throws Exception {
        Map<String, Object> broker = Map.of("log.cleaner.backoff.ms", 100L,
                "log.cleaner.dedupe.buffer.size", 2L * 1024 * 1024);
        try (NodeTestCluster cluster = new NodeTestCluster(dir, 1, broker).startAll()) {
            String bootstrap = cluster.bootstrapServers();
            TopicPartition keyed = new TopicPartition("keyed", 0);
            // Paused before the log exists, so the cleaner cannot take it before the first look.
            LogCleanerManager cleaner = cluster.node(1).logManager().cleaner().orElseThrow().manager();
            cleaner.abortAndPauseCleaning(keyed);
            Result created = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "keyed",
                    "--partitions", "1", "--replication-factor", "1", "--config", "cleanup.policy=compact",
                    "--config", "segment.bytes=1024", "--config", "min.cleanable.dirty.ratio=0.1");
            assertEquals(0, created.exitCode(), created.toString());
            Result plain = admin("--bootstrap-server", bootstrap, "topics", "--create", "--topic", "plain",
                    "--partitions", "1", "--replication-factor", "1");
            assertEquals(0, plain.exitCode(), plain.toString());
            String lines = IntStream.range(0, 200).mapToObj(i -> "key-" + (i % 5) + ":value-" + i)
                    .collect(Collectors.joining("\n", "", "\n"));
            Result produced = produce(lines, "--bootstrap-server", bootstrap, "--topic", "keyed", "--partition", "0",
                    "--acks", "all", "--property", "key.separator=:", "--producer-property", "batch.size=400");
            assertEquals(0, produced.exitCode(), produced.toString());

            // Paused: every closed segment is dirty, nothing was cleaned.
            Result text = admin("--bootstrap-server", bootstrap, "log-dirs", "--describe", "--topic-list",
                    "keyed,plain");
            assertEquals(0, text.exitCode(), text.toString());
            assertTrue(text.out().matches("(?s).*\nkeyed-0 +\\d+ +\\d+ +0 +200 +200 +0 +- +- +1\\.00 +-\n.*"),
                    text.out());
            assertTrue(text.out().matches("(?s).*\nplain-0 +0 +1 +0 +0 +0 +0 +- +- +- +-\n.*"), text.out());
            JsonObject paused = partitionJson(bootstrap, "keyed-0").getAsJsonObject("compaction");
            assertEquals(true, paused.get("compacted").getAsBoolean(), paused.toString());
            assertEquals("compact", paused.get("cleanupPolicy").getAsString());
            assertEquals(1.0, paused.get("dirtyRatio").getAsDouble(), paused.toString());
            assertEquals(0.1, paused.get("minCleanableDirtyRatio").getAsDouble());
            assertEquals(0, paused.get("firstDirtyOffset").getAsLong());
            assertTrue(paused.get("firstUncleanableOffset").getAsLong() > 0, paused.toString());
            assertTrue(paused.get("cleanableBytes").getAsLong() > 1024, paused.toString());
            assertEquals("PAUSED", paused.get("state").getAsString());
            assertEquals(-1, paused.get("lastCleaningMs").getAsLong());
            assertTrue(paused.get("segments") == null, "log-dirs carries no segment verdicts: " + paused);
            JsonObject plainState = partitionJson(bootstrap, "plain-0").getAsJsonObject("compaction");
            assertEquals(false, plainState.get("compacted").getAsBoolean(), plainState.toString());
            assertEquals("delete", plainState.get("cleanupPolicy").getAsString());

            List<String> before = explain(bootstrap, "keyed");
            int section = before.indexOf(before.stream().filter(l -> l.startsWith("Compaction: ")).findFirst()
                    .orElseThrow(() -> new AssertionError(before)));
            assertEquals("Compaction: cleanup.policy=compact\tState: PAUSED\tLast cleaning: -", before.get(section));
            assertTrue(before.get(section + 1).matches("Dirty ratio: 1\\.00 vs min\\.cleanable\\.dirty\\.ratio=0\\.10\t"
                    + "Cleanable bytes: \\d+\tdue, but the cleaner leaves it while PAUSED"), before.get(section + 1));
            assertTrue(before.get(section + 2).matches("FirstDirtyOffset: 0\tFirstUncleanableOffset: \\d+"),
                    before.get(section + 2));
            assertTrue(before.get(section + 3).matches("BASE_OFFSET +SIZE +CLEANER"), before.get(section + 3));
            assertTrue(before.get(section + 4).matches("0 +\\d+ +dirty: its keys are mapped and it is rewritten by the "
                    + "next cleaning"), before.get(section + 4));
            assertTrue(before.get(before.size() - 1).matches("\\d+ +- +kept uncleaned: the active segment"),
                    before.get(before.size() - 1));
            assertTrue(before.size() - section > 5, "several closed segments: " + before);

            // Resumed: the cleaner takes it within a few backoffs.
            cleaner.resumeCleaning(keyed);
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonObject cleaned = partitionJson(bootstrap, "keyed-0").getAsJsonObject("compaction");
                assertTrue(cleaned.get("lastCleaningMs").getAsLong() > 0, cleaned.toString());
                assertEquals("IDLE", cleaned.get("state").getAsString(), cleaned.toString());
            });
            // PENDING_UNLINK now lists the segments the cleaning replaced (renamed .deleted, B187).
            Result afterText = admin("--bootstrap-server", bootstrap, "log-dirs", "--describe", "--topic-list",
                    "keyed");
            assertTrue(afterText.out().matches("(?s).*\nkeyed-0 +\\d+ +\\d+ +0 +200 +200 +0 +.* \\d\\.\\d\\d +" + ISO
                    + "\n.*"), afterText.out());
            List<String> after = explain(bootstrap, "keyed");
            String head = after.stream().filter(l -> l.startsWith("Compaction: ")).findFirst().orElseThrow();
            assertTrue(head.matches("Compaction: cleanup.policy=compact\tState: IDLE\tLast cleaning: " + ISO), head);
            int table = after.indexOf(after.stream().filter(l -> l.startsWith("BASE_OFFSET") && l.contains("CLEANER"))
                    .findFirst().orElseThrow());
            assertTrue(after.get(table + 1).matches("0 +\\d+ +clean: rewritten by the next cleaning, keeping records no "
                    + "later record of their key replaces"), after.get(table + 1));
            JsonObject json = explainJson(bootstrap, "keyed").getAsJsonObject("compaction");
            assertTrue(json.get("firstDirtyOffset").getAsLong() > 0, json.toString());
            JsonArray verdicts = json.getAsJsonArray("segments");
            assertTrue(verdicts.size() > 1, json.toString());
            assertTrue(verdicts.get(0).getAsJsonObject().get("verdict").getAsString().startsWith("clean"),
                    json.toString());
            assertEquals(-1, verdicts.get(verdicts.size() - 1).getAsJsonObject().get("sizeBytes").getAsLong());
        }
    }

    private static JsonObject partitionJson(String bootstrap, String partition) {
        JsonObject doc = logDirsJson(bootstrap, 0);
        for (JsonElement p : doc.getAsJsonArray("brokers").get(0).getAsJsonObject().getAsJsonArray("logDirs").get(0)
                .getAsJsonObject().getAsJsonArray("partitions")) {
            if (p.getAsJsonObject().get("partition").getAsString().equals(partition)) {
                return p.getAsJsonObject();
            }
        }
        throw new AssertionError(partition + " not in " + doc);
    }

    private static List<String> explain(String bootstrap, String topic) {
        Result r = admin("--bootstrap-server", bootstrap, "explain-retention", "--topic", topic, "--partition", "0");
        assertEquals(0, r.exitCode(), r.toString());
        return r.outLines();
    }

    private static JsonObject explainJson(String bootstrap, String topic) {
        Result r = admin("--bootstrap-server", bootstrap, "--output", "json", "explain-retention", "--topic", topic,
                "--partition", "0");
        assertEquals(0, r.exitCode(), r.toString());
        return JsonParser.parseString(r.out()).getAsJsonObject();
    }

    /** Runs log-dirs --describe --output json; stdout is the one document, Kafka's two lines go to stderr. */
    private static JsonObject logDirsJson(String bootstrap, int exitCode, String... extra) {
        String[] args = new String[4 + extra.length];
        System.arraycopy(new String[] {"--bootstrap-server", bootstrap, "log-dirs", "--describe"}, 0, args, 0, 4);
        System.arraycopy(extra, 0, args, 4, extra.length);
        Result r = admin(java.util.stream.Stream.concat(java.util.stream.Stream.of("--output", "json"),
                java.util.Arrays.stream(args)).toArray(String[]::new));
        assertEquals(exitCode, r.exitCode(), r.toString());
        assertEquals(1, r.outLines().size(), r.toString());
        assertEquals("Querying brokers for log directories information", r.errLines().get(0));
        return JsonParser.parseString(r.out()).getAsJsonObject();
    }

    private static List<Integer> brokerIds(JsonObject doc) {
        return doc.getAsJsonArray("brokers").asList().stream().map(b -> b.getAsJsonObject().get("broker").getAsInt())
                .toList();
    }
}
