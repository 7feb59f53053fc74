package io.tideline.cluster.netns;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tideline.client.BrokerLogDirs;
import io.tideline.client.ConsumerRecord;
import io.tideline.client.ProducerRecord;
import io.tideline.client.RecordMetadata;
import io.tideline.client.TidelineAdmin;
import io.tideline.client.TidelineConsumer;
import io.tideline.client.TidelineProducer;
import io.tideline.common.TopicPartition;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Java client's side of the network-namespace suite: a process inside the namespace (the test JVM, in the
 * root namespace, cannot reach 127.0.0.11-13 there) that takes one JSON request per line on stdin and answers
 * one JSON line per request on stdout, and also writes produce and consume events there as they happen:
 *
 * <pre>
 * in:  {"rid":1,"op":"produce-start","loop":"p","topic":"t","partition":0,"prefix":"v"}
 * out: {"event":"invoke","loop":"p","seq":0,"topic":"t","partition":0,"value":"v0-xxx"}
 *      {"event":"ok","loop":"p","seq":0,"offset":17}        (or "failed" with "error", or "unknown")
 *      {"rid":1,"ok":true,"result":null}                     (or "ok":false with "error")
 * </pre>
 *
 * Ops: {@code produce-start}, {@code produce-stop} (waits for the loop's last attempt, result: acknowledged
 * count), {@code produce-count}, {@code describe-topic} (a TopicDescription), {@code describe-replicas} (a
 * PartitionReplicas), {@code log-dirs} (per broker, each replica's bounds), {@code metrics} (a node's /metrics
 * text), {@code final-read} (consumed events, then the read's bounds and entries), {@code alter-topic-config}, {@code retention-ms} (the retention.ms a broker applies to its replica),
 * {@code exit}. Requests name the node to ask with {@code via} (a bootstrap address); by default every node.
 *
 * <p>Produce attempts are classified as {@code ProduceLoop} in the scenarios does: acknowledged is OK,
 * NOT_ENOUGH_REPLICAS is FAILED (a definite refusal), anything else UNKNOWN (the record may have been appended).
 * Events of one loop are written in the order they happen, so the test's History gets them in that order.
 * Each request is answered on a thread of its own; lines are written whole under one lock.
 */
public final class NamespaceDriver {
    private static final Gson GSON = DriverJson.GSON;
    private static final String PADDING = "x".repeat(100);

    private final PrintStream protocol;
    private final String bootstrap;
    private final Map<String, TidelineAdmin> admins = new ConcurrentHashMap<>();
    private final Map<String, Loop> loops = new ConcurrentHashMap<>();
    private final ExecutorService requests = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "driver-request");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private NamespaceDriver(PrintStream protocol, String bootstrap) {
        this.protocol = protocol;
        this.bootstrap = bootstrap;
    }

    /** {@code NamespaceDriver <bootstrap servers>}. */
    public static void main(String[] args) throws Exception {
        // stdout carries the protocol only: everything else printed (the clients' logging) goes to stderr.
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        NamespaceDriver driver = new NamespaceDriver(protocol, args[0]);
        driver.serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
        driver.close();
        System.exit(0);
    }

    private void serve(BufferedReader in) throws Exception {
        String line;
        while ((line = in.readLine()) != null) {
            JsonObject request = JsonParser.parseString(line).getAsJsonObject();
            if (request.get("op").getAsString().equals("exit")) {
                return;
            }
            // Each request on a thread of its own: a produce-stop may wait while the test polls metrics.
            requests.execute(() -> answer(request));
        }
    }

    private void answer(JsonObject request) {
        long rid = request.get("rid").getAsLong();
        JsonObject reply = new JsonObject();
        reply.addProperty("rid", rid);
        try {
            Object result = handle(request);
            reply.addProperty("ok", true);
            reply.add("result", GSON.toJsonTree(result));
        } catch (Exception | Error e) {
            reply.addProperty("ok", false);
            reply.addProperty("error", e.toString());
        }
        emit(reply);
    }

    private Object handle(JsonObject r) throws Exception {
        String op = r.get("op").getAsString();
        switch (op) {
            case "produce-start" -> {
                String loop = r.get("loop").getAsString();
                TopicPartition tp = new TopicPartition(r.get("topic").getAsString(), r.get("partition").getAsInt());
                Loop started = new Loop(loop, tp, r.get("prefix").getAsString());
                if (loops.putIfAbsent(loop, started) != null) {
                    throw new IllegalArgumentException("loop " + loop + " exists");
                }
                started.thread.start();
                return null;
            }
            case "produce-stop" -> {
                Loop loop = loops.remove(r.get("loop").getAsString());
                loop.close();
                return loop.acknowledged.get();
            }
            case "produce-count" -> {
                return loops.get(r.get("loop").getAsString()).acknowledged.get();
            }
            case "describe-topic" -> {
                return admin(r).describeTopics(List.of(r.get("topic").getAsString())).get(0);
            }
            case "describe-replicas" -> {
                TopicPartition tp = new TopicPartition(r.get("topic").getAsString(), r.get("partition").getAsInt());
                return admin(r).describeReplicas(List.of(tp)).get(tp);
            }
            case "log-dirs" -> {
                return logDirs(admin(r), r.get("topic").getAsString());
            }
            case "alter-topic-config" -> {
                return admin(r).alterTopicConfigs(r.get("topic").getAsString(),
                        Map.of(r.get("key").getAsString(), r.get("value").getAsString()), List.of()).error().name();
            }
            case "retention-ms" -> {
                TopicPartition tp = new TopicPartition(r.get("topic").getAsString(), r.get("partition").getAsInt());
                return admin(r).explainRetention(tp, r.get("broker").getAsInt()).retentionMs();
            }
            case "metrics" -> {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(r.get("url").getAsString()))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                return response.body();
            }
            case "final-read" -> {
                return finalRead(new TopicPartition(r.get("topic").getAsString(), r.get("partition").getAsInt()),
                        r.get("consumer").getAsString());
            }
            default -> throw new IllegalArgumentException("unknown op " + op);
        }
    }

    private TidelineAdmin admin(JsonObject r) {
        String via = r.has("via") ? r.get("via").getAsString() : bootstrap;
        return admins.computeIfAbsent(via, b -> new TidelineAdmin(Map.of("bootstrap.servers", b,
                "request.timeout.ms", 5000, "default.api.timeout.ms", 10000)));
    }

    /** Per broker that answered: each replica of the topic with its log start, high watermark and log end. */
    private static JsonArray logDirs(TidelineAdmin admin, String topic) {
        JsonArray brokers = new JsonArray();
        for (BrokerLogDirs b : admin.describeLogDirs(List.of(), List.of(topic)).values()) {
            if (!b.answered()) {
                continue;
            }
            for (BrokerLogDirs.LogDir dir : b.logDirs()) {
                for (BrokerLogDirs.Replica replica : dir.replicas()) {
                    JsonObject o = new JsonObject();
                    o.addProperty("broker", b.brokerId());
                    o.addProperty("topic", replica.partition().topic());
                    o.addProperty("partition", replica.partition().partition());
                    o.addProperty("logStartOffset", replica.logStartOffset());
                    o.addProperty("highWatermark", replica.highWatermark());
                    o.addProperty("logEndOffset", replica.logEndOffset());
                    brokers.add(o);
                }
            }
        }
        return brokers;
    }

    /** Reads the partition from its start to its end offset; each record is also a "consumed" event. */
    private JsonObject finalRead(TopicPartition tp, String consumerId) {
        try (TidelineConsumer consumer = new TidelineConsumer(Map.of("bootstrap.servers", bootstrap,
                "auto.offset.reset", "earliest"))) {
            consumer.setOffsetResetListener((p, from, to, skipped) -> {
                JsonObject told = event("told-lso");
                told.addProperty("consumer", consumerId);
                told.addProperty("topic", p.topic());
                told.addProperty("partition", p.partition());
                told.addProperty("logStartOffset", to);
                emit(told);
            });
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long start = consumer.beginningOffsets(List.of(tp)).get(tp);
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            JsonArray entries = new JsonArray();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (consumer.position(tp) < end) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("final read of " + tp + " at " + consumer.position(tp)
                            + " after 60 s, end " + end);
                }
                for (ConsumerRecord rec : consumer.poll(Duration.ofMillis(200))) {
                    String value = new String(rec.value(), StandardCharsets.UTF_8);
                    JsonObject consumed = event("consumed");
                    consumed.addProperty("consumer", consumerId);
                    consumed.addProperty("topic", tp.topic());
                    consumed.addProperty("partition", tp.partition());
                    consumed.addProperty("offset", rec.offset());
                    consumed.addProperty("value", value);
                    emit(consumed);
                    JsonArray entry = new JsonArray();
                    entry.add(rec.offset());
                    entry.add(value);
                    entries.add(entry);
                }
            }
            JsonObject result = new JsonObject();
            result.addProperty("logStartOffset", start);
            result.addProperty("highWatermark", end);
            result.add("entries", entries);
            return result;
        }
    }

    private static JsonObject event(String kind) {
        JsonObject o = new JsonObject();
        o.addProperty("event", kind);
        return o;
    }

    private void emit(JsonObject line) {
        synchronized (protocol) {
            protocol.println(line);
        }
    }

    private void close() throws InterruptedException {
        for (Loop loop : loops.values()) {
            loop.close();
        }
        admins.values().forEach(TidelineAdmin::close);
        requests.shutdownNow();
    }

    /** One producer thread: unique values, one acks=all record at a time, every attempt an event. */
    private final class Loop {
        final String name;
        final TopicPartition tp;
        final String prefix;
        final TidelineProducer producer;
        final Thread thread;
        final AtomicLong acknowledged = new AtomicLong();
        volatile boolean stopped;

        Loop(String name, TopicPartition tp, String prefix) {
            this.name = name;
            this.tp = tp;
            this.prefix = prefix;
            this.producer = new TidelineProducer(Map.of("bootstrap.servers", bootstrap, "acks", "all", "linger.ms", 0,
                    "delivery.timeout.ms", 10_000, "request.timeout.ms", 5_000));
            this.thread = new Thread(this::run, "produce-" + name);
            thread.setDaemon(true);
        }

        private void run() {
            for (long seq = 0; !stopped; seq++) {
                String value = prefix + seq + "-" + PADDING;
                JsonObject invoke = attemptEvent("invoke", seq);
                invoke.addProperty("topic", tp.topic());
                invoke.addProperty("partition", tp.partition());
                invoke.addProperty("value", value);
                emit(invoke);
                try {
                    RecordMetadata written = producer.send(new ProducerRecord(tp.topic(), tp.partition(), null,
                            value.getBytes(StandardCharsets.UTF_8))).get(15, TimeUnit.SECONDS);
                    JsonObject ok = attemptEvent("ok", seq);
                    ok.addProperty("offset", written.offset());
                    acknowledged.incrementAndGet();
                    emit(ok);
                } catch (ExecutionException e) {
                    Errors error = TidelineException.errorOf(e.getCause());
                    if (error == Errors.NOT_ENOUGH_REPLICAS) {
                        JsonObject failed = attemptEvent("failed", seq);
                        failed.addProperty("error", error.name());
                        emit(failed);
                    } else {
                        emit(attemptEvent("unknown", seq));
                    }
                } catch (TimeoutException e) {
                    emit(attemptEvent("unknown", seq));
                } catch (InterruptedException e) {
                    emit(attemptEvent("unknown", seq));
                    return;
                }
            }
        }

        private JsonObject attemptEvent(String kind, long seq) {
            JsonObject o = event(kind);
            o.addProperty("loop", name);
            o.addProperty("seq", seq);
            return o;
        }

        void close() throws InterruptedException {
            stopped = true;
            thread.join(30_000);
            producer.close();
        }
    }
}
