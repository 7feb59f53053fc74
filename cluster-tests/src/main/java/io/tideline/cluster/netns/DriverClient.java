package io.tideline.cluster.netns;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tideline.client.PartitionReplicas;
import io.tideline.client.TopicDescription;
import io.tideline.cluster.history.History;
import io.tideline.cluster.history.HistoryEvent.LogEntry;
import io.tideline.common.TopicPartition;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The test JVM's handle on a {@link NamespaceDriver} process in the namespace: sends it requests, waits for the
 * answers, and records the events it writes (produce attempts and outcomes, consumed records, told log start
 * offsets) into a {@link History} in the order the driver wrote them.
 *
 * <p>Thread-safe: requests from several threads are matched to their answers by request id.
 */
public final class DriverClient implements AutoCloseable {
    /** The driver's own JVM: a client and a few threads. */
    private static final List<String> JVM = List.of("-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    private static final Gson GSON = DriverJson.GSON;

    private final Process process;
    private final Writer stdin;
    private final History history;
    private final Path log;
    private final AtomicLong rids = new AtomicLong();
    private final Map<Long, CompletableFuture<JsonObject>> pending = new ConcurrentHashMap<>();
    private final Map<String, History.ProduceAttempt> attempts = new ConcurrentHashMap<>();
    private final Thread reader;
    private volatile String readerFailure;

    private DriverClient(Process process, History history, Path log) {
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.history = history;
        this.log = log;
        this.reader = new Thread(this::read, "driver-reader");
        reader.setDaemon(true);
        reader.start();
    }

    static DriverClient start(NetworkNamespace ns, Path log, String classpath, History history, String bootstrap)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM);
        command.addAll(List.of("-cp", classpath, NamespaceDriver.class.getName(), bootstrap));
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return new DriverClient(ns.start(pb), history, log);
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                JsonObject o = JsonParser.parseString(line).getAsJsonObject();
                if (o.has("rid")) {
                    CompletableFuture<JsonObject> f = pending.remove(o.get("rid").getAsLong());
                    if (f != null) {
                        f.complete(o);
                    }
                } else {
                    record(o);
                }
            }
        } catch (IOException | RuntimeException e) {
            readerFailure = e.toString();
        }
        pending.values().forEach(f -> f.completeExceptionally(new IllegalStateException(
                "the driver's output ended (" + (readerFailure == null ? "exited" : readerFailure) + "); see " + log)));
    }

    private void record(JsonObject e) {
        String kind = e.get("event").getAsString();
        switch (kind) {
            case "invoke" -> attempts.put(key(e), history.produceInvoked(tp(e), e.get("value").getAsString()));
            case "ok" -> attempts.remove(key(e)).ok(e.get("offset").getAsLong());
            case "failed" -> attempts.remove(key(e)).failed(e.get("error").getAsString());
            case "unknown" -> attempts.remove(key(e)).unknown();
            case "consumed" -> history.consumed(e.get("consumer").getAsString(), tp(e), e.get("offset").getAsLong(),
                    e.get("value").getAsString());
            case "told-lso" -> history.toldLogStartOffset(e.get("consumer").getAsString(), tp(e),
                    e.get("logStartOffset").getAsLong());
            default -> throw new IllegalStateException("unknown driver event " + e);
        }
    }

    private static String key(JsonObject e) {
        return e.get("loop").getAsString() + "#" + e.get("seq").getAsLong();
    }

    private static TopicPartition tp(JsonObject e) {
        return new TopicPartition(e.get("topic").getAsString(), e.get("partition").getAsInt());
    }

    /** Sends one request and returns its result; fails with the driver's error, or after {@code atMost}. */
    public JsonElement request(Duration atMost, String op, Map<String, ?> params) {
        long rid = rids.incrementAndGet();
        JsonObject request = GSON.toJsonTree(params).getAsJsonObject();
        request.addProperty("rid", rid);
        request.addProperty("op", op);
        CompletableFuture<JsonObject> reply = new CompletableFuture<>();
        pending.put(rid, reply);
        try {
            synchronized (stdin) {
                stdin.write(request + "\n");
                stdin.flush();
            }
            JsonObject answer = reply.get(atMost.toMillis(), TimeUnit.MILLISECONDS);
            if (!answer.get("ok").getAsBoolean()) {
                throw new IllegalStateException("driver " + op + " failed: " + answer.get("error").getAsString());
            }
            return answer.get("result");
        } catch (IOException e) {
            throw new UncheckedIOException("the driver is gone; see " + log, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            pending.remove(rid);
            throw new IllegalStateException("driver " + op + " did not answer in " + atMost);
        }
    }

    public void startProducing(String loop, TopicPartition tp, String prefix) {
        request(Duration.ofSeconds(30), "produce-start", Map.of("loop", loop, "topic", tp.topic(),
                "partition", tp.partition(), "prefix", prefix));
    }

    /** How many of the loop's attempts were acknowledged so far. */
    public long acknowledged(String loop) {
        return request(Duration.ofSeconds(30), "produce-count", Map.of("loop", loop)).getAsLong();
    }

    /** Stops the loop after its current attempt ends; returns its acknowledged count. */
    public long stopProducing(String loop) {
        return request(Duration.ofSeconds(60), "produce-stop", Map.of("loop", loop)).getAsLong();
    }

    /** describeTopics of one topic, asked of node {@code via} (its own metadata image answers). */
    public TopicDescription describeTopic(NamespaceNode via, String topic) {
        return GSON.fromJson(request(Duration.ofSeconds(30), "describe-topic", Map.of("via", via.bootstrap(),
                "topic", topic)), TopicDescription.class);
    }

    public PartitionReplicas describeReplicas(NamespaceNode via, TopicPartition tp) {
        return GSON.fromJson(request(Duration.ofSeconds(30), "describe-replicas", Map.of("via", via.bootstrap(),
                "topic", tp.topic(), "partition", tp.partition())), PartitionReplicas.class);
    }

    /** One replica's bounds as its broker reported them in describeLogDirs. */
    public record ReplicaBounds(int broker, long logStartOffset, long highWatermark, long logEndOffset) {
    }

    /** Each answering broker's replica of {@code tp}, by broker id. */
    public Map<Integer, ReplicaBounds> replicaBounds(TopicPartition tp) {
        JsonArray all = request(Duration.ofSeconds(30), "log-dirs", Map.of("topic", tp.topic())).getAsJsonArray();
        Map<Integer, ReplicaBounds> bounds = new TreeMap<>();
        for (JsonElement el : all) {
            JsonObject o = el.getAsJsonObject();
            if (o.get("partition").getAsInt() == tp.partition()) {
                bounds.put(o.get("broker").getAsInt(), new ReplicaBounds(o.get("broker").getAsInt(),
                        o.get("logStartOffset").getAsLong(), o.get("highWatermark").getAsLong(),
                        o.get("logEndOffset").getAsLong()));
            }
        }
        return bounds;
    }

    /** Node's /metrics text (Prometheus exposition). */
    public String metrics(NamespaceNode node) {
        return request(Duration.ofSeconds(30), "metrics", Map.of("url", node.metricsUrl())).getAsString();
    }

    public String alterTopicConfig(String topic, String key, String value) {
        return request(Duration.ofSeconds(30), "alter-topic-config", Map.of("topic", topic, "key", key,
                "value", value)).getAsString();
    }

    /** The retention.ms broker {@code broker} applies to its replica of {@code tp} (explainRetention). */
    public long retentionMs(TopicPartition tp, int broker) {
        return request(Duration.ofSeconds(30), "retention-ms", Map.of("topic", tp.topic(), "partition", tp.partition(),
                "broker", broker)).getAsLong();
    }

    /** A full read of {@code tp} from its start to its end offset, recorded as consumed and as the final read. */
    public List<LogEntry> finalRead(TopicPartition tp) {
        JsonObject r = request(Duration.ofSeconds(90), "final-read", Map.of("topic", tp.topic(),
                "partition", tp.partition(), "consumer", "final")).getAsJsonObject();
        List<LogEntry> entries = new ArrayList<>();
        for (JsonElement el : r.getAsJsonArray("entries")) {
            JsonArray pair = el.getAsJsonArray();
            entries.add(new LogEntry(pair.get(0).getAsLong(), pair.get(1).getAsString()));
        }
        history.finalRead(tp, r.get("logStartOffset").getAsLong(), r.get("highWatermark").getAsLong(), entries);
        return entries;
    }

    /** Asks the driver to exit and waits for it (killed after a bound). */
    @Override
    public void close() {
        try {
            synchronized (stdin) {
                stdin.write("{\"op\":\"exit\"}\n");
                stdin.flush();
            }
        } catch (IOException gone) {
            // Already exited.
        }
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            reader.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
