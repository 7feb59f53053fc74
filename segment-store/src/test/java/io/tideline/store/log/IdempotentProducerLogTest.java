package io.tideline.store.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.config.LogConfig;
import io.tideline.store.manager.LogManager;
import io.tideline.common.TopicPartition;
import io.tideline.store.producer.BatchMetadata;
import io.tideline.store.producer.ProducerSnapshotFile;
import io.tideline.store.producer.ProducerStateEntry;
import io.tideline.store.producer.ProducerStateManager;
import io.tideline.store.record.MemoryRecords;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The idempotent producer's state in one log (docs/kafka-protocol.md "Idempotent producers"): duplicates
 * answered with their original offsets, sequence and epoch refusals, follower updates, snapshots at roll
 * and close, recovery, truncation and expiration, all on the mock clock.
 */
class IdempotentProducerLogTest {
    private static final Map<String, Object> CONFIG = Map.of("segment.bytes", 1024, "retention.ms", -1);
    private static final long PID = 4000L;
    private static final short EPOCH = 3;

    @TempDir
    Path root;
    private LogTestSupport support;

    @BeforeEach
    void setUp() {
        support = new LogTestSupport(root);
    }

    @AfterEach
    void tearDown() {
        support.close();
    }

    /** A fresh copy each call: the leader writes offsets into the bytes it appends, a retry resends the client's. */
    private MemoryRecords idempotent(long pid, short epoch, int sequence, int records) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0).producer(pid, epoch, sequence);
        for (int i = 0; i < records; i++) {
            builder.append(support.now(), "k" + i, "v-" + sequence + "-" + i);
        }
        return builder.buildRecords();
    }

    private MemoryRecords idempotent(int sequence, int records) {
        return idempotent(PID, EPOCH, sequence, records);
    }

    private static TidelineException refused(Log log, MemoryRecords records) {
        return assertThrows(TidelineException.class, () -> log.appendAsLeader(records, 0));
    }

    @Test
    void aRetryOfEachOfTheLastFiveBatchesIsAnsweredWithItsOriginalOffsetsAndWritesNothing() throws IOException {
        Log log = support.open(CONFIG);
        log.appendAsLeader(LogTestSupport.batch(support.now(), 3), 0); // offsets 0-2 without a producer id
        List<LogAppendInfo> originals = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            originals.add(log.appendAsLeader(idempotent(i * 2, 2), 0));
        }
        long end = log.logEndOffset();
        for (int i = 4; i >= 0; i--) {
            LogAppendInfo retry = log.appendAsLeader(idempotent(i * 2, 2), 0);
            assertTrue(retry.duplicate(), "batch " + i);
            assertEquals(originals.get(i).firstOffset(), retry.firstOffset(), "batch " + i);
            assertEquals(originals.get(i).lastOffset(), retry.lastOffset(), "batch " + i);
            assertEquals(0, retry.numRecords());
            assertEquals(-1L, retry.logAppendTime(), "a CreateTime topic answers no log append time");
        }
        assertEquals(end, log.logEndOffset());
        assertEquals(13, end);
        assertEquals(3, originals.get(0).firstOffset());
    }

    @Test
    void theSixthOldestBatchIsForgottenAndItsRetryIsOutOfOrder() throws IOException {
        Log log = support.open(CONFIG);
        for (int seq = 0; seq < 6; seq++) {
            log.appendAsLeader(idempotent(seq, 1), 0);
        }
        long end = log.logEndOffset();
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, refused(log, idempotent(0, 1)).error());
        assertTrue(log.appendAsLeader(idempotent(1, 1), 0).duplicate(), "the fifth newest is still remembered");
        assertEquals(end, log.logEndOffset());
    }

    @Test
    void aSequenceThatDoesNotFollowTheLastOneIsOutOfOrderAndNothingIsWritten() throws IOException {
        Log log = support.open(CONFIG);
        log.appendAsLeader(idempotent(0, 3), 0); // sequences 0-2
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, refused(log, idempotent(4, 1)).error(), "a gap");
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, refused(log, idempotent(1, 2)).error(),
                "an overlap that is not a remembered batch");
        assertEquals(3, log.logEndOffset());
        assertEquals(3, log.appendAsLeader(idempotent(3, 1), 0).firstOffset(), "the next sequence is accepted");
    }

    @Test
    void anOlderEpochIsFencedAndANewEpochMustStartAtZero() throws IOException {
        Log log = support.open(CONFIG);
        log.appendAsLeader(idempotent(PID, EPOCH, 0, 2), 0);
        assertEquals(Errors.INVALID_PRODUCER_EPOCH, refused(log, idempotent(PID, (short) (EPOCH - 1), 2, 1)).error());
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, refused(log, idempotent(PID, (short) (EPOCH + 1), 2, 1)).error());
        LogAppendInfo bumped = log.appendAsLeader(idempotent(PID, (short) (EPOCH + 1), 0, 1), 0);
        assertFalse(bumped.duplicate(), "sequence 0 of a new epoch is new data, not a retry of the old epoch's");
        assertEquals(2, bumped.firstOffset());
        assertEquals(Errors.INVALID_PRODUCER_EPOCH, refused(log, idempotent(PID, EPOCH, 0, 2)).error(),
                "after the bump a retry of the old epoch is fenced");
        ProducerStateEntry entry = log.activeProducers().get(0);
        assertEquals(EPOCH + 1, entry.producerEpoch());
        assertEquals(1, entry.batches().size(), "the old epoch's batches are forgotten");
    }

    @Test
    void anUnknownProducerIdIsAcceptedAtAnySequenceAsKafkaDoes() throws IOException {
        Log log = support.open(CONFIG);
        LogAppendInfo info = log.appendAsLeader(idempotent(77L, (short) 0, 41, 2), 0);
        assertEquals(0, info.firstOffset());
        assertEquals(42, log.activeProducers().get(0).lastSeq());
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, refused(log, idempotent(77L, (short) 0, 45, 1)).error(),
                "once known, the rules apply");
    }

    @Test
    void sequencesWrapFromIntegerMaxValueToZero() throws IOException {
        Log log = support.open(CONFIG);
        log.appendAsLeader(idempotent(Integer.MAX_VALUE - 1, 3), 0); // MAX-1, MAX, 0
        assertEquals(0, log.activeProducers().get(0).lastSeq());
        assertTrue(log.appendAsLeader(idempotent(Integer.MAX_VALUE - 1, 3), 0).duplicate());
        assertEquals(3, log.appendAsLeader(idempotent(1, 1), 0).firstOffset());
        Log other = support.open("wrap-0", CONFIG, new Random(1));
        other.appendAsLeader(idempotent(Integer.MAX_VALUE, 1), 0);
        assertEquals(1, other.appendAsLeader(idempotent(0, 1), 0).firstOffset(), "MAX_VALUE is followed by 0");
    }

    @Test
    void malformedIdempotentRequestsAreRefused() throws IOException {
        Log log = support.open(CONFIG);
        RecordBatch first = new RecordBatchBuilder(0).producer(PID, EPOCH, 0).append(1L, "a", "b").build();
        RecordBatch second = new RecordBatchBuilder(0).producer(PID, EPOCH, 1).append(1L, "a", "b").build();
        assertEquals(Errors.INVALID_RECORD, refused(log, MemoryRecords.of(first, second)).error(), "two batches");
        assertEquals(Errors.INVALID_RECORD, refused(log, idempotent(-5, 1)).error(), "a negative sequence");
        assertEquals(Errors.INVALID_TXN_STATE, refused(log, transactional(idempotent(0, 1))).error());
        assertEquals(0, log.logEndOffset());
        assertTrue(log.activeProducers().isEmpty());
    }

    private static MemoryRecords transactional(MemoryRecords records) {
        ByteBuffer buffer = records.buffer();
        short attributes = buffer.getShort(RecordBatch.ATTRIBUTES_OFFSET);
        buffer.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) (attributes | RecordBatch.TRANSACTIONAL_MASK));
        buffer.putInt(RecordBatch.CRC_OFFSET, (int) RecordBatch.wrap(buffer.duplicate()).computeChecksum());
        return MemoryRecords.readableRecords(buffer);
    }

    @Test
    void aDuplicateOnALogAppendTimeTopicAnswersTheOriginalAppendTime() throws IOException {
        Log log = support.open(Map.of("segment.bytes", 1024, "message.timestamp.type", "LogAppendTime"));
        long stamped = support.now();
        LogAppendInfo original = log.appendAsLeader(idempotent(0, 2), 0);
        assertEquals(stamped, original.logAppendTime());
        support.time.advance(5_000);
        LogAppendInfo retry = log.appendAsLeader(idempotent(0, 2), 0);
        assertTrue(retry.duplicate());
        assertEquals(stamped, retry.logAppendTime());
    }

    @Test
    void batchesWithoutAProducerIdAreNeverDeduplicated() throws IOException {
        Log log = support.open(CONFIG);
        MemoryRecords plain = LogTestSupport.batch(support.now(), 2);
        log.appendAsLeader(plain, 0);
        log.appendAsLeader(LogTestSupport.batch(support.now(), 2), 0);
        assertEquals(4, log.logEndOffset());
        assertTrue(log.activeProducers().isEmpty());
    }

    @Test
    void aFollowerLearnsProducersWithoutValidatingAndThenRecognisesTheirRetries() throws IOException {
        Log log = support.open(CONFIG);
        // A leader's batches as replicated, with a sequence jump a leader may have accepted from an unknown id.
        log.appendAsFollower(asLeaderWrote(idempotent(0, 2), 0));
        log.appendAsFollower(asLeaderWrote(idempotent(7, 1), 2));
        assertEquals(7, log.activeProducers().get(0).lastSeq());
        LogAppendInfo retry = log.appendAsLeader(idempotent(7, 1), 1);
        assertTrue(retry.duplicate());
        assertEquals(2, retry.firstOffset());
    }

    private static MemoryRecords asLeaderWrote(MemoryRecords records, long baseOffset) {
        RecordBatch batch = records.batches().get(0);
        batch.setBaseOffset(baseOffset);
        batch.setPartitionLeaderEpoch(0);
        batch.buffer().putInt(RecordBatch.CRC_OFFSET, (int) batch.computeChecksum());
        return records;
    }

    // ---------------------------------------------------------------- snapshots and recovery

    private void fillSegments(Log log, int batches) {
        int seq = log.activeProducers().isEmpty() ? 0 : log.activeProducers().get(0).lastSeq() + 1;
        for (int i = 0; i < batches; i++) {
            log.appendAsLeader(idempotent(seq, 4), 0);
            log.appendAsLeader(idempotent(PID + 1, (short) 0, seq, 4), 0);
            seq += 4;
        }
    }

    @Test
    void aSnapshotIsWrittenAtEachRollAndAtCloseNamedByItsOffset() throws IOException {
        Log log = support.open(CONFIG);
        fillSegments(log, 12);
        assertTrue(log.numberOfSegments() > 1);
        List<Long> snapshots = new ArrayList<>(ProducerSnapshotFile.list(log.dir()).keySet());
        assertEquals(LogTestSupport.baseOffsets(log).subList(1, log.numberOfSegments()), snapshots,
                "one snapshot at each new segment's base offset");
        long end = log.logEndOffset();
        log.close();
        assertTrue(Files.exists(log.dir().resolve(String.format("%020d.snapshot", end))), "a snapshot at the log end");
    }

    @Test
    void aCleanRestartLoadsTheCloseSnapshotAndHasIdenticalState() throws IOException {
        Log log = support.open(CONFIG);
        fillSegments(log, 12);
        List<ProducerStateEntry> before = log.activeProducers();
        Log again = support.reopen(log, CONFIG);
        assertEquals(before, again.activeProducers());
        assertTrue(again.appendAsLeader(idempotent(before.get(0).batches().get(0).firstSeq(), 4), 0).duplicate(),
                "all five batches survive a restart, not only the last");
    }

    @Test
    void aRestartAfterACrashReplaysTheTailAfterTheLastSnapshotToIdenticalState() throws IOException {
        Log log = support.open(CONFIG);
        fillSegments(log, 12);
        log.flush();
        fillSegments(log, 1); // a tail in the active segment that no snapshot covers
        List<ProducerStateEntry> before = log.activeProducers();
        long recoveryPoint = log.recoveryPoint();
        long end = log.logEndOffset();
        log.abandon();
        assertFalse(ProducerSnapshotFile.list(log.dir()).containsKey(end), "no snapshot of the tail");
        Log again = support.track(Log.open(log.dir(), LogConfig.fromMap(CONFIG), support.time, support.scheduler,
                new Random(3), support.deleter, 0L, recoveryPoint, -1L, false));
        assertEquals(end, again.logEndOffset());
        assertEquals(before, again.activeProducers());
    }

    @Test
    void aCorruptSnapshotIsReportedInOneWarningAndIgnored() throws IOException {
        Log log = support.open(CONFIG);
        fillSegments(log, 12);
        List<ProducerStateEntry> before = log.activeProducers();
        long end = log.logEndOffset();
        log.close();
        Path newest = ProducerSnapshotFile.file(log.dir(), end);
        byte[] bytes = Files.readAllBytes(newest);
        bytes[bytes.length - 3] ^= 0x5a;
        Files.write(newest, bytes);
        Path older = ProducerSnapshotFile.list(log.dir()).lowerEntry(end).getValue();
        Files.write(older, new byte[] {0, 100, 1}); // truncated

        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        Logger logger = (Logger) LoggerFactory.getLogger(ProducerStateManager.class);
        appender.start();
        logger.addAppender(appender);
        try {
            Log again = support.track(Log.open(log.dir(), LogConfig.fromMap(CONFIG), support.time, support.scheduler,
                    new Random(3), support.deleter, 0L, end, -1L, true));
            assertEquals(before, again.activeProducers());
        } finally {
            logger.detachAppender(appender);
        }
        List<ILoggingEvent> warnings = appender.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
        assertEquals(2, warnings.size(), "one WARN per unusable snapshot: " + warnings);
        assertTrue(warnings.get(0).getFormattedMessage().contains("CRC mismatch"), warnings.get(0).getFormattedMessage());
        assertTrue(warnings.get(1).getFormattedMessage().contains("truncated"), warnings.get(1).getFormattedMessage());
        assertFalse(Files.exists(newest), "an unusable snapshot is deleted, not retried");
    }

    // ---------------------------------------------------------------- truncation, retention, expiration

    @Test
    void truncationRebuildsTheStateOfTheBatchesThatRemain() throws IOException {
        Log log = support.open(CONFIG);
        fillSegments(log, 12);
        List<ProducerStateEntry> atCut = log.activeProducers();
        long cut = log.logEndOffset();
        fillSegments(log, 6);
        log.truncateTo(cut);
        assertEquals(atCut, log.activeProducers());
        assertTrue(ProducerSnapshotFile.list(log.dir()).tailMap(cut, false).isEmpty(), "no snapshot above the new end");
        int next = atCut.get(0).lastSeq() + 1;
        LogAppendInfo rewritten = log.appendAsLeader(idempotent(next, 4), 0);
        assertFalse(rewritten.duplicate(), "a dropped batch is new again");
        assertEquals(cut, rewritten.firstOffset());

        log.truncateFullyAndStartAt(500);
        assertTrue(log.activeProducers().isEmpty());
        assertTrue(ProducerSnapshotFile.list(log.dir()).isEmpty());
    }

    @Test
    void retentionDeletesSnapshotsBelowTheFirstSegmentAndKeepsTheState() throws IOException {
        Log log = support.open(CONFIG);
        fillSegments(log, 12);
        List<ProducerStateEntry> before = log.activeProducers();
        log.deleteRecords(log.segments().get(log.numberOfSegments() - 2).baseOffset());
        long firstBase = LogTestSupport.baseOffsets(log).get(0);
        assertEquals(firstBase, ProducerSnapshotFile.list(log.dir()).firstKey());
        assertEquals(before, log.activeProducers(), "deleted batches' producers are remembered until they expire");
    }

    @Test
    void producerIdsExpireAfterTheirLastBatchOnTheSchedulersCheck() throws IOException {
        LogManager manager = support.startManager(Map.of("producer.id.expiration.ms", 60_000,
                "producer.id.expiration.check.interval.ms", 10_000));
        Log log = manager.getOrCreateLog(new TopicPartition("orders", 0), Map.of());
        log.appendAsLeader(idempotent(0, 1), 0);
        support.time.advance(30_000);
        log.appendAsLeader(idempotent(PID + 1, (short) 0, 0, 1), 0);
        support.time.advance(30_000);
        assertEquals(List.of(PID + 1), log.activeProducers().stream().map(ProducerStateEntry::producerId).toList(),
                "the first id expired at the check after 60 s");
        support.time.advance(30_000);
        assertTrue(log.activeProducers().isEmpty());
        assertEquals(2, log.appendAsLeader(idempotent(5, 1), 0).firstOffset(),
                "an expired id is unknown again: any sequence is accepted");
    }

    @Test
    void snapshotFileRoundTripsEveryField() throws IOException {
        Log log = support.open(CONFIG);
        log.appendAsLeader(idempotent(0, 2), 0);
        log.close();
        Path file = ProducerSnapshotFile.file(log.dir(), 2);
        byte[] bytes = Files.readAllBytes(file);
        assertEquals(100, ByteBuffer.wrap(bytes).getShort(0), "version");
        BatchMetadata only = new BatchMetadata(0, 1, 0, 1, support.now());
        ByteBuffer buf = ByteBuffer.wrap(bytes, 10, bytes.length - 10);
        assertEquals(PID, buf.getLong());
        assertEquals(EPOCH, buf.getShort());
        assertEquals(only.timestamp(), buf.getLong());
        assertEquals(1, buf.get());
        assertEquals(only, new BatchMetadata(buf.getInt(), buf.getInt(), buf.getLong(), buf.getLong(), buf.getLong()));
        assertFalse(buf.hasRemaining());
    }
}
