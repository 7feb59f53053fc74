package io.tideline.store.cleaner;

import static io.tideline.store.cleaner.CleanerFixture.compactConfig;
import static io.tideline.store.cleaner.CleanerFixture.readRecords;
import static io.tideline.store.cleaner.CleanerFixture.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.store.config.LogConfig;
import io.tideline.store.log.Log;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.segment.LogSegment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash at every step of the swap (docs/behaviours.md B187): the partition directory is copied as it is
 * after each rename of a cleaning (what a kill there leaves on disk), and each copy, opened as after an
 * unclean stop, must load to the records of the log before the cleaning or after it, segment by segment:
 * every record it holds is the record written at that offset, every record the cleaning kept is there, the
 * latest value of every key is the model's, and no .cleaned or .swap file is left.
 */
class SwapCrashTest {
    @TempDir
    Path root;

    @Test
    void aCrashAtAnyStepOfTheSwapLoadsToTheOldOrTheCleanedSegments() throws Exception {
        try (CleanerFixture fx = new CleanerFixture(root)) {
            Map<String, Object> config = compactConfig(700);
            Log log = fx.open("t-0", config);
            Random random = new Random(11);
            Map<Long, String> written = new HashMap<>();
            Map<String, String> latest = new HashMap<>();
            for (int i = 0; i < 120; i++) {
                String key = "k" + random.nextInt(9);
                String value = "v" + i;
                log.appendAsLeader(new RecordBatchBuilder(0).append(fx.time.milliseconds(), key, value).buildRecords(), 0);
                written.put((long) i, key + "=" + value);
                latest.put(key, value);
            }
            log.roll(log.logEndOffset());
            // Groups of several segments: each cleaned segment replaces four old ones (about 2,800 bytes each).
            Map<String, Object> larger = new HashMap<>(config);
            larger.put("segment.bytes", 2800);
            log.updateConfig(LogConfig.fromMap(larger));

            List<String> steps = new ArrayList<>();
            List<Path> copies = new ArrayList<>();
            fx.clean(log, 0, step -> {
                Path copy = root.resolve("crash-" + copies.size()).resolve("t-0");
                copyDir(log.dir(), copy);
                steps.add(step);
                copies.add(copy);
            });
            Map<Long, String> cleaned = byOffset(readRecords(log));
            long end = log.logEndOffset();
            assertTrue(copies.size() >= 20, "steps seen: " + steps);

            for (int i = 0; i < copies.size(); i++) {
                String step = steps.get(i);
                Log recovered = fx.openAfterCrash(copies.get(i), config);
                Map<Long, String> records = byOffset(readRecords(recovered));
                for (Map.Entry<Long, String> e : records.entrySet()) {
                    assertEquals(written.get(e.getKey()), e.getValue(), "offset " + e.getKey() + " after " + step);
                }
                assertTrue(records.keySet().containsAll(cleaned.keySet()), "a kept record is missing after " + step);
                Map<String, String> latestLoaded = new HashMap<>();
                records.values().forEach(kv -> latestLoaded.put(kv.split("=")[0], kv.split("=")[1]));
                assertEquals(latest, latestLoaded, "latest values after " + step);
                List<LogSegment> segments = recovered.segments();
                for (int s = 0; s + 1 < segments.size(); s++) {
                    assertTrue(segments.get(s).readNextOffset() <= segments.get(s + 1).baseOffset(),
                            "segments " + segments.get(s) + " and " + segments.get(s + 1) + " overlap after " + step);
                }
                assertEquals(0, recovered.logStartOffset());
                assertEquals(end, recovered.logEndOffset(), "log end after " + step);
                try (Stream<Path> files = Files.list(copies.get(i))) {
                    assertFalse(files.anyMatch(p -> p.toString().endsWith(".cleaned") || p.toString().endsWith(".swap")),
                            "leftovers after " + step);
                }
                recovered.close();
            }
        }
    }

    private static Map<Long, String> byOffset(List<Record> records) {
        Map<Long, String> out = new LinkedHashMap<>();
        for (Record r : records) {
            out.put(r.offset(), string(r.key()) + "=" + string(r.value()));
        }
        return out;
    }

    private static void copyDir(Path from, Path to) {
        try {
            Files.createDirectories(to);
            try (Stream<Path> files = Files.list(from)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    if (Files.isRegularFile(p)) {
                        Files.copy(p, to.resolve(p.getFileName()));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
