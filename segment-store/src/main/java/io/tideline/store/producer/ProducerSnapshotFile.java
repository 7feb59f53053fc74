package io.tideline.store.producer;

import io.tideline.common.io.FileUtils;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A producer state snapshot, {@code <20-digit offset>.snapshot} beside the segments (Kafka's name): the
 * state of every producer id after all batches below {@code offset}. Written as tmp + fsync + atomic
 * rename, so a file under its final name was complete when renamed; the CRC catches what the disk did
 * to it afterwards.
 *
 * <p>Layout (big-endian). Not Kafka's byte layout: Kafka keeps only the last batch of each producer, so a
 * restarted Kafka broker recognises only a retry of the newest batch; this file keeps all five, and a
 * restart changes nothing a producer can observe. The version differs from Kafka's (1), so either
 * broker refuses the other's file as an unknown version instead of misreading it.
 * <pre>
 *   0  int16  version (100)
 *   2  uint32 CRC32C of every byte from offset 6 to the end
 *   6  int32  producer count
 *   per producer, in producer id order:
 *      int64  producer id
 *      int16  producer epoch
 *      int64  last timestamp (max timestamp of its last batch)
 *      int8   batch count (0..5)
 *      per batch, oldest first:
 *         int32 first sequence, int32 last sequence, int64 first offset, int64 last offset, int64 timestamp
 * </pre>
 */
public final class ProducerSnapshotFile {
    public static final String SUFFIX = ".snapshot";
    static final short VERSION = 100;
    private static final int HEADER_BYTES = 2 + 4 + 4;
    private static final int PRODUCER_BYTES = 8 + 2 + 8 + 1;
    private static final int BATCH_BYTES = 4 + 4 + 8 + 8 + 8;

    private ProducerSnapshotFile() {
    }

    public static Path file(Path dir, long offset) {
        return dir.resolve(String.format("%020d", offset) + SUFFIX);
    }

    public static boolean isSnapshotFileName(String name) {
        return name.endsWith(SUFFIX) && name.length() == 20 + SUFFIX.length()
                && name.chars().limit(20).allMatch(Character::isDigit);
    }

    /** The snapshots in {@code dir} by offset. */
    public static TreeMap<Long, Path> list(Path dir) throws IOException {
        TreeMap<Long, Path> snapshots = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return snapshots;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                if (isSnapshotFileName(name)) {
                    snapshots.put(Long.parseLong(name.substring(0, 20)), p);
                }
            }
        }
        return snapshots;
    }

    static void write(Path file, Collection<ProducerStateEntry> entries) throws IOException {
        int size = HEADER_BYTES;
        for (ProducerStateEntry e : entries) {
            size += PRODUCER_BYTES + e.batches().size() * BATCH_BYTES;
        }
        ByteBuffer buf = ByteBuffer.allocate(size);
        buf.putShort(VERSION).putInt(0).putInt(entries.size());
        for (ProducerStateEntry e : entries) {
            List<BatchMetadata> batches = e.batches();
            buf.putLong(e.producerId()).putShort(e.producerEpoch()).putLong(e.lastTimestamp()).put((byte) batches.size());
            for (BatchMetadata b : batches) {
                buf.putInt(b.firstSeq()).putInt(b.lastSeq()).putLong(b.firstOffset()).putLong(b.lastOffset())
                        .putLong(b.timestamp());
            }
        }
        buf.putInt(2, (int) crc(buf.array(), size));
        FileUtils.writeAtomically(file, buf.array());
    }

    /**
     * Reads a snapshot whole.
     *
     * @throws CorruptSnapshotException if it is truncated, has another version, fails its CRC or holds
     *                                  impossible values: the caller must not use any of it
     */
    static List<ProducerStateEntry> read(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        try {
            short version = buf.getShort();
            if (version != VERSION) {
                throw new CorruptSnapshotException(file, "unknown version " + version);
            }
            long storedCrc = Integer.toUnsignedLong(buf.getInt());
            if (storedCrc != crc(bytes, bytes.length)) {
                throw new CorruptSnapshotException(file, "CRC mismatch");
            }
            int count = buf.getInt();
            if (count < 0 || (long) count * PRODUCER_BYTES > buf.remaining()) {
                throw new CorruptSnapshotException(file, "producer count " + count + " does not fit the file");
            }
            List<ProducerStateEntry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                ProducerStateEntry entry = new ProducerStateEntry(buf.getLong(), buf.getShort(), buf.getLong());
                int batches = buf.get();
                if (batches < 0 || batches > ProducerStateEntry.NUM_BATCHES_TO_RETAIN) {
                    throw new CorruptSnapshotException(file, "batch count " + batches + " of producer " + entry.producerId());
                }
                for (int b = 0; b < batches; b++) {
                    BatchMetadata batch = new BatchMetadata(buf.getInt(), buf.getInt(), buf.getLong(), buf.getLong(),
                            buf.getLong());
                    // The snapshot holds no append time; the manager caps this stand-in at its reload time.
                    entry.addBatch(entry.producerEpoch(), batch, batch.timestamp());
                }
                entries.add(entry);
            }
            if (buf.hasRemaining()) {
                throw new CorruptSnapshotException(file, buf.remaining() + " bytes after the last producer");
            }
            return entries;
        } catch (BufferUnderflowException e) {
            throw new CorruptSnapshotException(file, "truncated at " + bytes.length + " bytes");
        }
    }

    private static long crc(byte[] bytes, int end) {
        CRC32C crc = new CRC32C();
        if (end > 6) {
            crc.update(bytes, 6, end - 6);
        }
        return crc.getValue();
    }

    /** A snapshot that cannot be trusted; the state is rebuilt from an older one or from the segments. */
    public static final class CorruptSnapshotException extends IOException {
        CorruptSnapshotException(Path file, String problem) {
            super("Producer state snapshot " + file + " is unusable: " + problem);
        }
    }
}
