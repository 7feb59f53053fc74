package io.tideline.store.cleaner;

import static io.tideline.store.cleaner.CleanerFixture.compactConfig;
import static io.tideline.store.cleaner.CleanerFixture.readRecords;
import static io.tideline.store.cleaner.CleanerFixture.string;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tideline.store.log.Log;
import io.tideline.store.record.CompressionType;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.segment.SegmentSwap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The cleaner against a model (docs/behaviours.md B181-B185): for any history of keyed writes and
 * tombstones over a few keys, in batches of one to three records, compressed or not, over small segments
 * and a dedupe map of any size (a small one takes several cleanings to reach the end), cleaning until the
 * whole closed log is clean leaves exactly the last record of every key at the offset it was written at,
 * tombstones included; once the delete horizon has passed, one more cleaning removes the tombstones. Every
 * surviving record is the record written at its offset, and the log start and end offsets never move.
 */
class CleanerModelPropertyTest {

    record Write(int key, String value, boolean newBatch) {
    }

    @Provide
    Arbitrary<List<Write>> histories() {
        Arbitrary<String> values = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, Arbitraries.just((String) null)),
                net.jqwik.api.Tuple.of(4, Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(40)));
        return Combinators.combine(Arbitraries.integers().between(0, 5), values, Arbitraries.integers().between(0, 2))
                .as((k, v, b) -> new Write(k, v, b == 0)).list().ofMinSize(1).ofMaxSize(150);
    }

    @Property(tries = 40)
    void cleaningLeavesTheLastRecordOfEveryKeyAtItsOffset(@ForAll("histories") List<Write> history,
            @ForAll @IntRange(min = 200, max = 1500) int segmentBytes,
            @ForAll @IntRange(min = 2, max = 200) int mapSlots, @ForAll boolean compressed) throws IOException {
        Path root = Files.createTempDirectory("cleaner-model");
        try (CleanerFixture fx = new CleanerFixture(root)) {
            Map<String, Object> config = compactConfig(segmentBytes);
            config.put("delete.retention.ms", 5_000L);
            Log log = fx.open("t-0", config);
            Map<Long, String> written = new HashMap<>();
            TreeMap<String, Long> lastOffsetOfKey = new TreeMap<>();
            RecordBatchBuilder builder = null;
            long next = 0;
            for (Write w : history) {
                if (builder == null || w.newBatch() || builder.recordCount() == 3) {
                    if (builder != null) {
                        log.appendAsLeader(builder.buildRecords(), 0);
                    }
                    builder = new RecordBatchBuilder(0, compressed ? CompressionType.LZ4 : CompressionType.NONE);
                }
                String key = "key-" + w.key();
                builder.append(fx.time.milliseconds(), key, w.value());
                written.put(next, key + "=" + w.value());
                lastOffsetOfKey.put(key, next);
                next++;
            }
            log.appendAsLeader(builder.buildRecords(), 0);
            log.roll(log.logEndOffset());
            long end = log.logEndOffset();

            Cleaner cleaner = new Cleaner(new OffsetMap(mapSlots * OffsetMap.ENTRY_SIZE), 1.0, 4096,
                    new Throttler(Double.MAX_VALUE, 300, fx.time), fx.time, SegmentSwap.StepListener.NONE);
            long dirty = cleanUntil(cleaner, log, 0, end);
            Map<Long, String> expected = new TreeMap<>();
            lastOffsetOfKey.values().forEach(offset -> expected.put(offset, written.get(offset)));
            assertEquals(expected, survivors(log, written), "after cleaning the whole closed log");
            assertEquals(0, log.logStartOffset());
            assertEquals(end, log.logEndOffset());

            // Past the delete horizon, a cleaning (of one new write) removes the tombstones.
            fx.time.advance(5_000L);
            log.appendAsLeader(new RecordBatchBuilder(0).append(fx.time.milliseconds(), "sentinel", "s").buildRecords(), 0);
            written.put(end, "sentinel=s");
            log.roll(log.logEndOffset());
            cleanUntil(cleaner, log, dirty, end + 1);
            expected.values().removeIf(kv -> kv.endsWith("=null"));
            expected.put(end, "sentinel=s");
            assertEquals(expected, survivors(log, written), "after the delete horizon");
            assertEquals(0, log.logStartOffset());
        } finally {
            deleteRecursively(root);
        }
    }

    private static long cleanUntil(Cleaner cleaner, Log log, long from, long end) throws IOException {
        long dirty = from;
        for (int pass = 0; dirty < end; pass++) {
            if (pass > end + 1) {
                throw new AssertionError("the cleaning does not progress from " + dirty);
            }
            LogToClean cleanable = LogToClean.evaluate(log, log.cleanerView(), OptionalLong.of(dirty), 0L);
            dirty = cleaner.clean(cleanable, () -> { }).endOffset();
        }
        return dirty;
    }

    /** The records read back, each checked to be the one written at its offset. */
    private static Map<Long, String> survivors(Log log, Map<Long, String> written) throws IOException {
        Map<Long, String> out = new TreeMap<>();
        for (Record r : readRecords(log)) {
            String kv = string(r.key()) + "=" + string(r.value());
            assertEquals(written.get(r.offset()), kv, "the record at offset " + r.offset());
            out.put(r.offset(), kv);
        }
        return out;
    }

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
