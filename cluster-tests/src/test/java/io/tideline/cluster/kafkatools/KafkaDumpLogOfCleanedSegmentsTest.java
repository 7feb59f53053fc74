package io.tideline.cluster.kafkatools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.tideline.common.TopicPartition;
import io.tideline.common.time.ThreadPoolScheduler;
import io.tideline.common.time.Time;
import io.tideline.store.config.StoreConfig;
import io.tideline.store.log.Log;
import io.tideline.store.manager.LogManager;
import io.tideline.store.record.CompressionType;
import io.tideline.store.record.RecordBatchBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka 4.4's own {@code kafka-dump-log} ({@code org.apache.kafka.tools.DumpLogSegments}, as
 * {@code bin/kafka-dump-log.sh} runs it) reads segments that Tideline's cleaner rewrote (docs/behaviours.md B184,
 * B187): every kept record at its original offset, gaps where records left, and offset and time indexes that pass
 * its {@code --index-sanity-check}.
 */
class KafkaDumpLogOfCleanedSegmentsTest {
    private static final Path REPO = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final String DUMP_LOG = "org.apache.kafka.tools.DumpLogSegments";
    private static final Pattern RECORD_OFFSET = Pattern.compile("\\| offset: (\\d+) ");

    @TempDir
    Path dir;

    @Test
    void kafkasDumpLogReadsCleanedSegmentsAndTheirIndexesPassItsSanityCheck() throws Exception {
        Path logDir = Files.createDirectories(dir.resolve("logs"));
        TopicPartition tp = new TopicPartition("profiles", 0);
        TreeSet<Long> latest = new TreeSet<>();
        Path partitionDir;
        try (ThreadPoolScheduler scheduler = new ThreadPoolScheduler("dump-log-test", 1)) {
            LogManager manager = new LogManager(StoreConfig.fromMap(Map.of("log.dirs", logDir.toString(),
                    "log.cleaner.backoff.ms", "3600000")), "dump-log-test", 1, Time.SYSTEM, scheduler,
                    new MetricRegistry(), new Random(1));
            manager.startup();
            try {
                Log log = manager.getOrCreateLog(tp, Map.of("cleanup.policy", "compact", "segment.bytes", "4096",
                        "min.cleanable.dirty.ratio", "0.01", "index.interval.bytes", "0"));
                java.util.Map<String, Long> lastOffset = new java.util.HashMap<>();
                for (int i = 0; i < 600; i++) {
                    String key = "user-" + (i % 23);
                    CompressionType codec = i % 3 == 0 ? CompressionType.ZSTD : CompressionType.NONE;
                    log.appendAsLeader(new RecordBatchBuilder(0, codec)
                            .append(System.currentTimeMillis(), key, "profile-" + i).buildRecords(), 0);
                    lastOffset.put(key, log.logEndOffset() - 1);
                }
                log.roll(log.logEndOffset());
                log.updateHighWatermark(log.logEndOffset());
                latest.addAll(lastOffset.values());
                assertEquals(1, manager.cleaner().orElseThrow().cleanNow(), "one log cleaned");
                partitionDir = log.dir();
            } finally {
                manager.close();
            }
        }

        List<String> files = new ArrayList<>();
        try (Stream<Path> list = Files.list(partitionDir)) {
            list.map(Path::toString).filter(f -> f.endsWith(".log") || f.endsWith(".index") || f.endsWith(".timeindex"))
                    .sorted().forEach(files::add);
        }
        assertFalse(files.stream().anyMatch(f -> f.contains(".cleaned") || f.contains(".swap")), files.toString());
        ChildProcess processes = new ChildProcess(REPO, Files.createDirectories(dir.resolve("tools")), Map.of());
        KafkaTools kafka = KafkaTools.fromBuild(REPO, dir, processes);

        ChildProcess.Result sanity = kafka.run(Duration.ofSeconds(60), DUMP_LOG, "--files", String.join(",", files),
                "--index-sanity-check");
        assertEquals(0, sanity.exitCode(), sanity.stderr());
        int checked = 0;
        for (String f : files) {
            if (f.endsWith(".index") || f.endsWith(".timeindex")) {
                // Kafka's tool checks an index that has entries and says so of one that has none.
                boolean passed = sanity.stdout().contains(f + " passed sanity check.");
                assertTrue(passed || sanity.stdout().contains(f + " is empty."), f + ":\n" + sanity.stdout());
                checked += passed && f.endsWith(".index") ? 1 : 0;
            }
        }
        assertTrue(checked > 0, "no offset index with entries was checked:\n" + sanity.stdout());

        List<String> logs = files.stream().filter(f -> f.endsWith(".log")).toList();
        ChildProcess.Result dump = kafka.run(Duration.ofSeconds(60), DUMP_LOG, "--files", String.join(",", logs),
                "--deep-iteration", "--print-data-log");
        assertEquals(0, dump.exitCode(), dump.stderr());
        TreeSet<Long> read = new TreeSet<>();
        Matcher m = RECORD_OFFSET.matcher(dump.stdout());
        while (m.find()) {
            read.add(Long.parseLong(m.group(1)));
        }
        // The cleaned segments hold exactly each key's latest record, at the offset it was written at; the active
        // segment the roll left holds none.
        assertEquals(latest, read, dump.stdout());
    }
}
