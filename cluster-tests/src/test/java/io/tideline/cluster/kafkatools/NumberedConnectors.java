package io.tideline.cluster.kafkatools;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * The two Kafka Connect plugins of {@link KafkaConnectDistributedTest}: a source of numbered records that keeps
 * its position as a Connect source offset, and a sink that collects what it is given. Public and with public
 * no-argument constructors, because a worker with {@code plugin.discovery=only_scan} finds them by scanning the
 * class path and instantiates them by reflection.
 */
public final class NumberedConnectors {
    /** The source partition of the one task, as it appears in the key of the worker's offsets topic. */
    public static final Map<String, String> SOURCE_PARTITION = Map.of("source", "numbers");
    /** The source offset's field: the number of the next record to produce. */
    public static final String NEXT = "next";
    /** Source config: the topic to write. */
    public static final String TOPIC = "topic";
    /** Source config: records are numbered 0 .. max-1; the task idles once it has produced them. */
    public static final String MAX = "records.max";

    /** What every sink task of this JVM was given, in order: the record values. */
    public static final Queue<String> SINK_RECEIVED = new ConcurrentLinkedQueue<>();
    /** The number each source task start read from its committed offset (0 when there was none). */
    public static final Queue<Long> SOURCE_STARTS = new ConcurrentLinkedQueue<>();

    private static final String VERSION = "1.0";

    private NumberedConnectors() {
    }

    public static String value(long n) {
        return "record-" + n;
    }

    public static final class Source extends SourceConnector {
        private Map<String, String> config;

        public Source() {
        }

        @Override
        public void start(Map<String, String> props) {
            config = Map.copyOf(props);
        }

        @Override
        public Class<? extends Task> taskClass() {
            return NumbersTask.class;
        }

        @Override
        public List<Map<String, String>> taskConfigs(int maxTasks) {
            // One task: the numbering is one sequence with one offset.
            return List.of(config);
        }

        @Override
        public void stop() {
        }

        @Override
        public ConfigDef config() {
            return new ConfigDef()
                    .define(TOPIC, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "Topic to write")
                    .define(MAX, ConfigDef.Type.LONG, ConfigDef.Importance.HIGH, "Records numbered 0 .. max-1");
        }

        @Override
        public String version() {
            return VERSION;
        }
    }

    public static final class NumbersTask extends SourceTask {
        private static final int BATCH = 10;
        /** How long an idle poll waits: Connect calls poll again at once when it returns nothing. */
        private static final long IDLE_MS = 100;

        private final CountDownLatch stopped = new CountDownLatch(1);
        private String topic;
        private long max;
        private long next;

        public NumbersTask() {
        }

        @Override
        public void start(Map<String, String> props) {
            topic = props.get(TOPIC);
            max = Long.parseLong(props.get(MAX));
            Map<String, Object> committed = context.offsetStorageReader().offset(SOURCE_PARTITION);
            next = committed == null ? 0 : ((Number) committed.get(NEXT)).longValue();
            SOURCE_STARTS.add(next);
        }

        @Override
        public List<SourceRecord> poll() throws InterruptedException {
            if (next >= max) {
                stopped.await(IDLE_MS, TimeUnit.MILLISECONDS);
                return null;
            }
            List<SourceRecord> records = new ArrayList<>();
            for (; next < max && records.size() < BATCH; next++) {
                records.add(new SourceRecord(SOURCE_PARTITION, Map.of(NEXT, next + 1), topic, null,
                        Schema.STRING_SCHEMA, String.valueOf(next), Schema.STRING_SCHEMA, value(next)));
            }
            return records;
        }

        @Override
        public void stop() {
            stopped.countDown();
        }

        @Override
        public String version() {
            return VERSION;
        }
    }

    public static final class Sink extends SinkConnector {
        private Map<String, String> config;

        public Sink() {
        }

        @Override
        public void start(Map<String, String> props) {
            config = Map.copyOf(props);
        }

        @Override
        public Class<? extends Task> taskClass() {
            return CollectingTask.class;
        }

        @Override
        public List<Map<String, String>> taskConfigs(int maxTasks) {
            return List.of(config);
        }

        @Override
        public void stop() {
        }

        @Override
        public ConfigDef config() {
            return new ConfigDef();
        }

        @Override
        public String version() {
            return VERSION;
        }
    }

    public static final class CollectingTask extends SinkTask {
        public CollectingTask() {
        }

        @Override
        public void start(Map<String, String> props) {
        }

        @Override
        public void put(Collection<SinkRecord> records) {
            for (SinkRecord r : records) {
                SINK_RECEIVED.add(String.valueOf(r.value()));
            }
        }

        @Override
        public void stop() {
        }

        @Override
        public String version() {
            return VERSION;
        }
    }
}
