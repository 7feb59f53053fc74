package io.tideline.store.cleaner;

import static io.tideline.store.cleaner.CleanerFixture.compactConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tideline.store.log.Log;
import io.tideline.store.record.CompressionType;
import io.tideline.store.record.RecordBatchBuilder;
import io.tideline.store.segment.LogFileNames;
import io.tideline.store.segment.LogSegment;
import io.tideline.store.tools.DumpLogCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cleaned segments stay Kafka's format (docs/behaviours.md B184, B185): Kafka's own FileRecords reads every
 * cleaned batch with a valid CRC, the kept offsets with their gaps, the empty batch of a producer and the delete
 * horizon of a tombstone's batch; and dump-log --verify-index finds the rebuilt indexes consistent.
 */
class CleanedSegmentCompatibilityTest {
    @TempDir
    Path root;

    @Test
    void kafkaReadsCleanedSegmentsAndTheirIndexesVerify() throws Exception {
        try (CleanerFixture fx = new CleanerFixture(root)) {
            Log log = fx.open("t-0", compactConfig(2000));
            log.appendAsLeader(new RecordBatchBuilder(0).producer(9L, (short) 0, 0)
                    .append(fx.time.milliseconds(), "p", "1").buildRecords(), 0);
            for (int i = 0; i < 200; i++) {
                RecordBatchBuilder builder = new RecordBatchBuilder(0, i % 2 == 0 ? CompressionType.ZSTD : CompressionType.NONE);
                builder.append(fx.time.milliseconds(), "k" + (i % 5), i % 17 == 0 ? null : "value-" + i);
                builder.append(fx.time.milliseconds(), "k" + ((i + 1) % 5), "other-" + i);
                log.appendAsLeader(builder.buildRecords(), 0);
            }
            log.appendAsLeader(new RecordBatchBuilder(0).append(fx.time.milliseconds(), "p", "2").buildRecords(), 0);
            log.appendAsLeader(new RecordBatchBuilder(0).append(fx.time.milliseconds(), "gone", null).buildRecords(), 0);
            log.roll(log.logEndOffset());
            fx.clean(log, 0);

            List<Long> offsets = new ArrayList<>();
            boolean sawEmptyProducerBatch = false;
            boolean sawHorizon = false;
            List<String> files = new ArrayList<>();
            for (LogSegment segment : log.segments()) {
                if (segment.size() == 0) {
                    continue;
                }
                files.add(segment.log().file().toString());
                files.add(LogFileNames.offsetIndexFile(log.dir(), segment.baseOffset()).toString());
                files.add(LogFileNames.timeIndexFile(log.dir(), segment.baseOffset()).toString());
                try (FileRecords kafka = FileRecords.open(segment.log().file().toFile(), false)) {
                    for (FileChannelRecordBatch batch : kafka.batches()) {
                        batch.ensureValid();
                        sawEmptyProducerBatch |= batch.producerId() == 9L && batch.countOrNull() == 0;
                        sawHorizon |= batch.deleteHorizonMs().isPresent();
                        for (Record record : batch) {
                            offsets.add(record.offset());
                        }
                    }
                }
            }
            assertTrue(sawEmptyProducerBatch, "the producer's last batch stays, empty");
            assertTrue(sawHorizon, "the kept tombstone's batch carries its delete horizon");
            assertEquals(7, offsets.size(), "k0..k4, p and the tombstone: " + offsets);
            for (int i = 1; i < offsets.size(); i++) {
                assertTrue(offsets.get(i) > offsets.get(i - 1));
            }

            List<String> args = new ArrayList<>(List.of("--verify-index", "--files"));
            args.addAll(files);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = DumpLogCommand.run(args.toArray(new String[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(0, code, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
        }
    }
}
