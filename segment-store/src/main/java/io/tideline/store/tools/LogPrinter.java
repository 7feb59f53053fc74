package io.tideline.store.tools;

import io.tideline.common.errors.Errors;
import io.tideline.common.errors.TidelineException;
import io.tideline.store.record.Header;
import io.tideline.store.record.Record;
import io.tideline.store.record.RecordBatch;
import io.tideline.store.record.TimestampType;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Prints the batches of a .log, and their records with {@code --print-data-log}, one line each, in the form
 * {@link DumpLogCommand} shows. A corrupt batch is reported with its position and reason, and the file's dump
 * stops there; each one counts as a problem.
 */
final class LogPrinter {
    private final PrintStream out;
    private final TimestampFormat timestamps;
    private final boolean printDataLog;
    private final int maxBytes;
    private int problems;

    LogPrinter(PrintStream out, TimestampFormat timestamps, boolean printDataLog, int maxBytes) {
        this.out = out;
        this.timestamps = timestamps;
        this.printDataLog = printDataLog;
        this.maxBytes = maxBytes;
    }

    /** Corrupt batches found so far. */
    int problems() {
        return problems;
    }

    void print(Path file) throws IOException {
        long base = SegmentFileKind.baseOffsetOf(file);
        if (base >= 0) {
            out.println("Starting offset: " + base);
        }
        try (TolerantLogReader reader = new TolerantLogReader(file, maxBytes, true)) {
            long previousLastOffset = -1;
            ByteBuffer bytes;
            while ((bytes = reader.next()) != null) {
                int position = reader.position();
                RecordBatch batch = RecordBatch.wrap(bytes);
                if (batch.magic() != RecordBatch.MAGIC) {
                    corrupt(reader, "magic is " + batch.magic() + "; only magic 2 (the v2 batch format) is supported");
                    return;
                }
                out.println(batchLine(batch, position));
                if (!batch.isValid()) {
                    corrupt(reader, "the CRC-32C check fails (stored " + batch.checksum() + ", computed "
                            + batch.computeChecksum() + ")");
                    return;
                }
                if (batch.lastOffsetDelta() < 0 || batch.recordCount() < 0) {
                    corrupt(reader, "negative lastOffsetDelta (" + batch.lastOffsetDelta() + ") or record count ("
                            + batch.recordCount() + ")");
                    return;
                }
                if (batch.baseOffset() <= previousLastOffset) {
                    corrupt(reader, "base offset " + batch.baseOffset() + " is not above the previous batch's last offset "
                            + previousLastOffset);
                    return;
                }
                previousLastOffset = batch.lastOffset();
                if (printDataLog && !printRecords(reader, batch)) {
                    return;
                }
                reader.advance();
            }
            if (reader.problem() != null) {
                corrupt(reader, reader.problem());
            } else if (reader.stoppedAtLimit()) {
                out.println("Stopped at --max-bytes " + maxBytes + ": " + (reader.fileSize() - reader.position())
                        + " bytes from position " + reader.position() + " not shown");
            }
        }
    }

    /** Prints the records of a valid batch; false (after reporting) when they do not parse. */
    private boolean printRecords(TolerantLogReader reader, RecordBatch batch) {
        List<Record> records;
        try {
            records = batch.records();
        } catch (TidelineException e) {
            if (e.error() == Errors.UNSUPPORTED_COMPRESSION_TYPE) {
                out.println("| records not shown: " + batch.compressionType().label + " is not decoded by this tool");
                return true;
            }
            corrupt(reader, e.getMessage());
            return false;
        }
        String timeLabel = timestampLabel(batch);
        for (Record r : records) {
            int sequence = batch.baseSequence() < 0 ? -1 : batch.baseSequence() + (int) (r.offset() - batch.baseOffset());
            out.println("| offset: " + r.offset()
                    + " " + timeLabel + ": " + timestamps.format(r.timestamp())
                    + " keySize: " + (r.key() == null ? -1 : r.key().length)
                    + " valueSize: " + (r.value() == null ? -1 : r.value().length)
                    + " sequence: " + sequence
                    + " headerKeys: " + r.headers().stream().map(Header::key).collect(Collectors.joining(", ", "[", "]"))
                    + " key: " + printable(r.key())
                    + " payload: " + printable(r.value()));
        }
        return true;
    }

    private String batchLine(RecordBatch batch, int position) {
        String codec;
        try {
            codec = batch.compressionType().label;
        } catch (TidelineException e) {
            codec = "unknown(" + (batch.attributes() & 0x07) + ")";
        }
        return "baseOffset: " + batch.baseOffset()
                + " lastOffset: " + batch.lastOffset()
                + " count: " + batch.recordCount()
                + " position: " + position
                + " " + timestampLabel(batch) + ": " + timestamps.format(batch.maxTimestamp())
                + " maxTimestamp: " + timestamps.format(batch.maxTimestamp())
                + " size: " + batch.sizeInBytes()
                + " magic: " + batch.magic()
                + " compresscodec: " + codec
                + " crc: " + batch.checksum()
                + " isvalid: " + batch.isValid()
                + " partitionLeaderEpoch: " + batch.partitionLeaderEpoch()
                + " producerId: " + batch.producerId()
                + " producerEpoch: " + batch.producerEpoch()
                + " baseSequence: " + batch.baseSequence()
                + " isTransactional: " + batch.isTransactional()
                + " isControl: " + batch.isControlBatch();
    }

    private static String timestampLabel(RecordBatch batch) {
        return batch.timestampType() == TimestampType.LOG_APPEND_TIME
                ? "LogAppendTime" : "CreateTime";
    }

    private void corrupt(TolerantLogReader reader, String reason) {
        problems++;
        long rest = reader.fileSize() - reader.position();
        out.println("Corrupt batch at position " + reader.position() + ": " + reason + ". The dump of this file stops here ("
                + rest + " bytes from this position not shown).");
    }

    private static String printable(byte[] bytes) {
        if (bytes == null) {
            return "null";
        }
        try {
            CharBuffer text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            boolean plain = text.chars().noneMatch(c -> Character.isISOControl(c));
            if (plain) {
                return text.toString();
            }
        } catch (CharacterCodingException e) {
            // binary: fall through to hex
        }
        return "0x" + HexFormat.of().formatHex(bytes);
    }
}
