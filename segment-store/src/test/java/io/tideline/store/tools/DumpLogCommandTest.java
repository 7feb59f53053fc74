package io.tideline.store.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.common.time.MockScheduler;
import io.tideline.common.time.MockTime;
import io.tideline.store.config.LogConfig;
import io.tideline.store.index.TxnIndex;
import io.tideline.store.index.TxnIndex.AbortedTxn;
import io.tideline.store.log.Log;
import io.tideline.store.log.LogAppendInfo;
import io.tideline.store.record.CompressionType;
import io.tideline.store.record.Header;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.retention.SegmentDeleter;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DumpLogCommandTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private final MockTime time = new MockTime(T0);
    private Path dir;
    /** Batches appended by {@link #writeLog}, in order: [firstOffset, lastOffset]. */
    private final List<long[]> appended = new ArrayList<>();

    @BeforeEach
    void writeLog() throws IOException {
        dir = tmp.resolve("events-0");
        Log log = openLog();
        for (int b = 0; b < 30; b++) {
            RecordBatchBuilder builder = new RecordBatchBuilder(0, b == 7 ? CompressionType.GZIP : CompressionType.NONE);
            int count = 1 + b % 3;
            for (int i = 0; i < count; i++) {
                String key = (b + i) % 4 == 0 ? null : "key-" + b + "-" + i;
                String value = b == 5 && i == 0 ? null : "value-" + b + "-" + i + "-" + "x".repeat(40);
                List<Header> headers = b % 2 == 0 ? List.of(new Header("trace", new byte[] {1, 2}), new Header("src", null))
                        : List.of();
                builder.append(T0 + b * 10L + (i % 2 == 0 ? i : -i), bytes(key), bytes(value), headers);
            }
            LogAppendInfo info = log.appendAsLeader(builder.buildRecords(), 4);
            appended.add(new long[] {info.firstOffset(), info.lastOffset()});
        }
        assertTrue(log.numberOfSegments() >= 3, "segments: " + log.numberOfSegments());
        log.close();
    }

    private Log openLog() throws IOException {
        MockScheduler scheduler = new MockScheduler(time);
        return Log.open(dir, LogConfig.fromMap(Map.of("segment.bytes", 1500, "index.interval.bytes", 200)), time,
                scheduler, new Random(1), new SegmentDeleter(scheduler), 0, 0, -1, true);
    }

    // ---------------------------------------------------------------- .log

    @Test
    void dumpOfLogFilesShowsEveryBatchAndEveryRecord() throws IOException {
        List<String> args = new ArrayList<>(List.of("--print-data-log", "--files"));
        files(LogFileNames.LOG_SUFFIX).forEach(p -> args.add(p.toString()));
        Result result = run(args.toArray(String[]::new));

        assertEquals(0, result.code, result.err);
        assertEquals("", result.err);
        List<String> batchLines = result.linesStartingWith("baseOffset: ");
        assertEquals(appended.size(), batchLines.size());
        for (int i = 0; i < appended.size(); i++) {
            String line = batchLines.get(i);
            assertTrue(line.startsWith("baseOffset: " + appended.get(i)[0] + " lastOffset: " + appended.get(i)[1]
                    + " count: " + (appended.get(i)[1] - appended.get(i)[0] + 1) + " position: "), line);
            for (String token : List.of(" CreateTime: ", " maxTimestamp: ", " size: ", " magic: 2 ", " crc: ",
                    " isvalid: true ", " partitionLeaderEpoch: 4 ")) {
                assertTrue(line.contains(token), token + " in " + line);
            }
            assertTrue(line.contains(i == 7 ? " compresscodec: gzip " : " compresscodec: none "), line);
        }
        List<String> recordLines = result.linesStartingWith("| offset: ");
        long end = appended.get(appended.size() - 1)[1] + 1;
        assertEquals(end, recordLines.size());
        for (int offset = 0; offset < end; offset++) {
            assertTrue(recordLines.get(offset).startsWith("| offset: " + offset + " CreateTime: "), recordLines.get(offset));
        }
        // Batch 0 (offset 0): null key, headers; batch 5's first record (offset 9) has a null value.
        String value = "value-0-0-" + "x".repeat(40);
        assertEquals("| offset: 0 CreateTime: " + Instant.ofEpochMilli(T0) + " keySize: -1 valueSize: " + value.length()
                + " sequence: -1 headerKeys: [trace, src] key: null payload: " + value, recordLines.get(0));
        assertTrue(recordLines.get(9).contains(" valueSize: -1 ") && recordLines.get(9).endsWith(" payload: null"),
                recordLines.get(9));
        assertTrue(recordLines.get(1).contains(" headerKeys: [] key: key-1-0 "), recordLines.get(1));
    }

    @Test
    void timestampsPrintAsIsoByDefaultAndAsKafkasEpochMillisWithTimestampsEpochMs() throws IOException {
        String log = files(LogFileNames.LOG_SUFFIX).get(0).toString();
        String timeIndex = files(LogFileNames.TIME_INDEX_SUFFIX).get(0).toString();
        Result iso = run("--print-data-log", "--files", log, timeIndex);
        Result epoch = run("--print-data-log", "--timestamps", "epoch-ms", "--files", log, timeIndex);
        assertEquals(0, epoch.code, epoch.err);
        String firstBatch = epoch.linesStartingWith("baseOffset: ").get(0);
        long max = Long.parseLong(field(firstBatch, "maxTimestamp"));
        assertEquals(max, Long.parseLong(field(firstBatch, "CreateTime")), "Kafka's batch line: both are the max");
        assertTrue(iso.linesStartingWith("baseOffset: ").get(0).contains(" CreateTime: " + Instant.ofEpochMilli(max)
                + " maxTimestamp: " + Instant.ofEpochMilli(max) + " "), iso.out);
        assertTrue(epoch.linesStartingWith("| offset: 0 ").get(0).startsWith("| offset: 0 CreateTime: " + T0 + " "),
                epoch.out);
        // Only the times differ: converting them back gives the same dump line for line.
        List<String> isoLines = iso.out.lines().toList();
        List<String> epochLines = epoch.out.lines().toList();
        assertEquals(epochLines.size(), isoLines.size());
        java.util.regex.Pattern isoTime = java.util.regex.Pattern.compile("\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z");
        for (int i = 0; i < isoLines.size(); i++) {
            String back = isoTime.matcher(isoLines.get(i))
                    .replaceAll(m -> Long.toString(Instant.parse(m.group()).toEpochMilli()));
            assertEquals(epochLines.get(i), back);
        }
        assertTrue(epoch.linesStartingWith("timestamp: ").get(0).matches("timestamp: \\d+ offset: \\d+"), epoch.out);

        Result bad = run("--timestamps", "unix", "--files", log);
        assertEquals(DumpLogCommand.EXIT_USAGE, bad.code);
        assertEquals(1, bad.errLines().size(), bad.err);
        assertTrue(bad.err.contains("must be iso or epoch-ms, got 'unix'"), bad.err);
    }

    @Test
    void batchLinePositionsAndSizesTileTheFile() throws IOException {
        Path first = files(LogFileNames.LOG_SUFFIX).get(0);
        Result result = run("--files", first.toString());
        long expected = 0;
        for (String line : result.linesStartingWith("baseOffset: ")) {
            assertEquals(expected, Long.parseLong(field(line, "position")), line);
            expected += Long.parseLong(field(line, "size"));
        }
        assertEquals(Files.size(first), expected);
        assertTrue(result.linesStartingWith("| ").isEmpty(), "records only with --print-data-log");
    }

    @Test
    void corruptBatchIsReportedWithItsPositionAndTheDumpStopsThere() throws IOException {
        Path log = files(LogFileNames.LOG_SUFFIX).get(0);
        List<String> lines = run("--files", log.toString()).linesStartingWith("baseOffset: ");
        int secondPosition = Integer.parseInt(field(lines.get(1), "position"));
        flipByte(log, secondPosition + 70); // inside the second batch's records: its CRC no longer matches

        Result result = run("--print-data-log", "--files", log.toString());

        assertEquals(1, result.code);
        assertEquals("", result.err);
        assertEquals(2, result.linesStartingWith("baseOffset: ").size(), "the dump stops at the corrupt batch");
        assertTrue(result.linesStartingWith("baseOffset: ").get(1).contains(" isvalid: false "));
        List<String> reports = result.linesStartingWith("Corrupt batch at position " + secondPosition + ": ");
        assertEquals(1, reports.size(), result.out);
        assertTrue(reports.get(0).contains("CRC"), reports.get(0));
    }

    @Test
    void tornTailIsReportedAsCorruptWithoutACrash() throws IOException {
        Path log = files(LogFileNames.LOG_SUFFIX).get(0);
        long size = Files.size(log);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ByteBuffer partial = ByteBuffer.allocate(80);
            partial.putLong(99).putInt(500).clear(); // 80 bytes whose header promises 512
            ch.write(partial);
        }
        Result result = run("--files", log.toString());
        assertEquals(1, result.code);
        List<String> reports = result.linesStartingWith("Corrupt batch at position " + size + ": ");
        assertEquals(1, reports.size(), result.out);
        assertTrue(reports.get(0).contains("runs past the end of the file"), reports.get(0));
    }

    @Test
    void maxBytesShowsOnlyTheBatchesWithinTheLimit() throws IOException {
        Path log = files(LogFileNames.LOG_SUFFIX).get(0);
        List<String> all = run("--files", log.toString()).linesStartingWith("baseOffset: ");
        int limit = Integer.parseInt(field(all.get(2), "position")) + 1;

        Result result = run("--max-bytes", String.valueOf(limit), "--files", log.toString());

        assertEquals(0, result.code);
        assertEquals(all.subList(0, 2), result.linesStartingWith("baseOffset: "));
        assertEquals(1, result.linesStartingWith("Stopped at --max-bytes " + limit).size(), result.out);
    }

    // ---------------------------------------------------------------- indexes

    @Test
    void dumpOfIndexesListsTheirEntries() throws IOException {
        Path index = files(LogFileNames.INDEX_SUFFIX).get(0);
        Path timeIndex = files(LogFileNames.TIME_INDEX_SUFFIX).get(0);
        Result result = run("--files", index.toString(), timeIndex.toString());

        assertEquals(0, result.code, result.err);
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(index));
        List<String> expected = new ArrayList<>();
        for (int at = 0; at < raw.limit(); at += 8) {
            expected.add("offset: " + raw.getInt(at) + " position: " + raw.getInt(at + 4)); // base offset 0
        }
        assertFalse(expected.isEmpty());
        assertEquals(expected, result.linesStartingWith("offset: "));
        ByteBuffer rawTime = ByteBuffer.wrap(Files.readAllBytes(timeIndex));
        List<String> expectedTime = new ArrayList<>();
        for (int at = 0; at < rawTime.limit(); at += 12) {
            expectedTime.add("timestamp: " + Instant.ofEpochMilli(rawTime.getLong(at)) + " offset: " + rawTime.getInt(at + 8));
        }
        assertEquals(expectedTime, result.linesStartingWith("timestamp: "));
    }

    @Test
    void verifyIndexPassesOnEveryIndexWeWrote() throws IOException {
        List<String> args = new ArrayList<>(List.of("--verify-index", "--files"));
        files(LogFileNames.INDEX_SUFFIX).forEach(p -> args.add(p.toString()));
        files(LogFileNames.TIME_INDEX_SUFFIX).forEach(p -> args.add(p.toString()));

        Result result = run(args.toArray(String[]::new));

        assertEquals(0, result.code, result.out + result.err);
        assertTrue(result.linesStartingWith("Mismatch").isEmpty(), result.out);
        assertEquals(args.size() - 2, result.linesStartingWith("Verified ").size(), result.out);
        assertTrue(result.linesStartingWith("offset: ").isEmpty(), "verification replaces the listing");
    }

    @Test
    void verifyIndexSkipsThePreallocatedTailOfAnOpenActiveSegment() throws IOException {
        Log log = openLog();
        try {
            log.roll(log.logEndOffset());
            for (int i = 0; i < 3; i++) {
                log.appendAsLeader(new RecordBatchBuilder(0).append(T0 + 999 + i, "k", "v".repeat(300)).buildRecords(), 4);
            }
            LogSegment active = log.activeSegment();
            assertEquals(2, active.offsetIndex().entries());
            Path index = LogFileNames.offsetIndexFile(dir, active.baseOffset());
            Path timeIndex = LogFileNames.timeIndexFile(dir, active.baseOffset());
            assertTrue(Files.size(index) > 8L * active.offsetIndex().entries(), "the active index is preallocated");

            Result listed = run("--files", index.toString());
            assertEquals(active.offsetIndex().entries(), listed.linesStartingWith("offset: ").size(), listed.out);
            Result verified = run("--verify-index", "--files", index.toString(), timeIndex.toString());
            assertEquals(0, verified.code, verified.out + verified.err);
        } finally {
            log.close();
        }
    }

    @Test
    void verifyIndexFailsOnAnOffsetIndexEntryThatNoLongerMatchesTheLog() throws IOException {
        Path index = files(LogFileNames.INDEX_SUFFIX).get(0);
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(index));
        int last = raw.limit() / 8 - 1;
        int relative = raw.getInt(last * 8);
        raw.putInt(last * 8, relative + 1); // last entry: one past the last offset of its batch
        Files.write(index, raw.array());

        Result result = run("--verify-index", "--files", index.toString());

        assertEquals(1, result.code, result.out);
        assertEquals("", result.err);
        List<String> mismatches = result.linesStartingWith("Mismatch in ");
        assertEquals(1, mismatches.size(), result.out);
        assertTrue(mismatches.get(0).startsWith("Mismatch in " + index.getFileName() + " entry " + last + " "),
                mismatches.get(0));
        assertTrue(mismatches.get(0).contains("ends at offset " + relative + ", not " + (relative + 1)), mismatches.get(0));
        assertEquals(1, result.linesStartingWith("Verification failed: ").size());
    }

    @Test
    void verifyIndexFailsOnAnOffsetIndexEntryPointingInsideABatch() throws IOException {
        Path index = files(LogFileNames.INDEX_SUFFIX).get(0);
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(index));
        int position = raw.getInt(4);
        raw.putInt(4, position + 3);
        Files.write(index, raw.array());

        Result result = run("--verify-index", "--files", index.toString());

        assertEquals(1, result.code, result.out);
        List<String> mismatches = result.linesStartingWith("Mismatch in " + index.getFileName() + " entry 0 ");
        assertEquals(1, mismatches.size(), result.out);
        assertTrue(mismatches.get(0).contains("no batch of 00000000000000000000.log starts at position " + (position + 3)),
                mismatches.get(0));
    }

    @Test
    void verifyIndexFailsOnATimeIndexTimestampNoBatchCarries() throws IOException {
        Path timeIndex = files(LogFileNames.TIME_INDEX_SUFFIX).get(0);
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(timeIndex));
        int last = raw.limit() - 12;
        raw.putLong(last, raw.getLong(last) + 1_000_000);
        Files.write(timeIndex, raw.array());

        Result result = run("--verify-index", "--files", timeIndex.toString());

        assertEquals(1, result.code, result.out);
        List<String> mismatches = result.linesStartingWith("Mismatch in " + timeIndex.getFileName());
        assertEquals(1, mismatches.size(), result.out);
        assertTrue(mismatches.get(0).contains("has a timestamp that high"), mismatches.get(0));
    }

    @Test
    void indexWithBytesPastItsLastWholeEntryIsReportedCorrupt() throws IOException {
        Path index = files(LogFileNames.INDEX_SUFFIX).get(0);
        long size = Files.size(index);
        Files.write(index, new byte[] {1, 2, 3}, StandardOpenOption.APPEND);

        Result result = run("--files", index.toString());

        assertEquals(1, result.code, result.out);
        assertEquals(List.of("Corrupt tail: 3 bytes at position " + size + " are not a whole 8-byte entry and are ignored"),
                result.linesStartingWith("Corrupt tail: "));
        assertEquals(size / 8, result.linesStartingWith("offset: ").size());
    }

    @Test
    void txnIndexShowsItsAbortedRanges() throws IOException {
        Path file = LogFileNames.txnIndexFile(dir, 0);
        try (TxnIndex txn = new TxnIndex(file)) {
            txn.append(new AbortedTxn(7, 10, 12, 10));
            txn.append(new AbortedTxn(8, 13, 20, 13));
        }
        Result result = run("--files", file.toString());
        assertEquals(0, result.code, result.err);
        assertEquals(List.of("version: 0 producerId: 7 firstOffset: 10 lastOffset: 12 lastStableOffset: 10",
                "version: 0 producerId: 8 firstOffset: 13 lastOffset: 20 lastStableOffset: 13"),
                result.linesStartingWith("version: "));
    }

    @Test
    void filesRenamedForDeletionAreDumpedLikeTheOriginals() throws IOException {
        Path log = files(LogFileNames.LOG_SUFFIX).get(0);
        Path index = files(LogFileNames.INDEX_SUFFIX).get(0);
        List<String> before = run("--files", log.toString()).linesStartingWith("baseOffset: ");
        Path deletedLog = Files.move(log, log.resolveSibling(log.getFileName() + LogFileNames.DELETED_SUFFIX));
        Path deletedIndex = Files.move(index, index.resolveSibling(index.getFileName() + LogFileNames.DELETED_SUFFIX));

        assertEquals(before, run("--files", deletedLog.toString()).linesStartingWith("baseOffset: "));
        assertEquals(0, run("--verify-index", "--files", deletedIndex.toString()).code);
    }

    // ---------------------------------------------------------------- usage

    @Test
    void missingFileExitsWithTwoAndOneLineOnStderr() {
        Result result = run("--files", tmp.resolve("nope/00000000000000000000.log").toString());
        assertEquals(2, result.code);
        assertEquals(1, result.errLines().size(), result.err);
        assertTrue(result.err.startsWith("dump-log: no such file: "), result.err);
        assertEquals("", result.out);
    }

    @Test
    void badUsageExitsWithTwoAndOneLineOnStderr() throws IOException {
        String log = files(LogFileNames.LOG_SUFFIX).get(0).toString();
        for (String[] args : List.of(new String[] {}, new String[] {"--files"}, new String[] {"--bogus", "--files", log},
                new String[] {"--max-bytes", "0", "--files", log}, new String[] {"--max-bytes", "many", "--files", log},
                new String[] {"--files", dir.resolve("leader-epoch-checkpoint").toString()})) {
            Files.writeString(dir.resolve("leader-epoch-checkpoint"), "0\n0\n");
            Result result = run(args);
            assertEquals(2, result.code, Arrays.toString(args));
            assertEquals(1, result.errLines().size(), Arrays.toString(args) + ": " + result.err);
            assertTrue(result.err.startsWith("dump-log: "), result.err);
            assertFalse(result.err.contains("Exception"), result.err);
        }
    }

    @Test
    void verifyingAnIndexWithoutItsLogExitsWithTwo() throws IOException {
        Path index = files(LogFileNames.INDEX_SUFFIX).get(0);
        Path alone = Files.createDirectories(tmp.resolve("alone")).resolve(index.getFileName());
        Files.copy(index, alone);
        Result result = run("--verify-index", "--files", alone.toString());
        assertEquals(2, result.code);
        assertEquals(1, result.errLines().size(), result.err);
        assertTrue(result.err.contains("00000000000000000000.log is missing"), result.err);
    }

    @Test
    void helpGoesToStdoutWithExitZero() {
        Result result = run("--help");
        assertEquals(0, result.code);
        assertTrue(result.out.contains("--verify-index"), result.out);
        assertEquals("", result.err);
    }

    // ---------------------------------------------------------------- helpers

    private List<Path> files(String suffix) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(p -> LogFileNames.isSegmentFileName(p.getFileName().toString(), suffix)).sorted().toList();
        }
    }

    private static String field(String line, String name) {
        String[] tokens = line.split(" ");
        for (int i = 0; i < tokens.length - 1; i++) {
            if (tokens[i].equals(name + ":")) {
                return tokens[i + 1];
            }
        }
        throw new AssertionError("no " + name + " in " + line);
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x5a)).rewind();
            ch.write(one, position);
        }
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = DumpLogCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Result(int code, String out, String err) {
        List<String> linesStartingWith(String prefix) {
            return out.lines().filter(l -> l.startsWith(prefix)).toList();
        }

        List<String> errLines() {
            return err.lines().toList();
        }
    }
}
