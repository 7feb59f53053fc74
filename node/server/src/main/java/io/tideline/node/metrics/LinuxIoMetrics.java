package io.tideline.node.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The bytes this process has made the storage layer read and write, from Linux's {@code /proc/self/io}
 * ({@code read_bytes}, {@code write_bytes}: what reached or came from the block devices, not what the page cache
 * served), under Kafka's names {@code kafka.server:type=KafkaServer,name=linux-disk-read-bytes} and
 * {@code linux-disk-write-bytes}. Both only grow; dashboards chart their {@code rate()}. Registered only where the
 * file can be read (Linux, and not every container lets a process read it), as Kafka does. Each reading reads
 * the file (a few hundred bytes); a gauge that cannot read it throws, and the scrape leaves it out.
 */
public final class LinuxIoMetrics {
    public static final String READ_BYTES = "kafka.server:type=KafkaServer,name=linux-disk-read-bytes";
    public static final String WRITE_BYTES = "kafka.server:type=KafkaServer,name=linux-disk-write-bytes";
    public static final Path PROC_SELF_IO = Path.of("/proc/self/io");
    /** The file is a dozen short lines; anything longer is not the file this class reads. */
    private static final long MAX_FILE_BYTES = 4096;

    private LinuxIoMetrics() {
    }

    /** Registers both gauges when {@code file} has both fields; returns whether it did. */
    public static boolean register(MetricRegistry registry, Path file) {
        if (field(file, "read_bytes").isEmpty() || field(file, "write_bytes").isEmpty()) {
            return false;
        }
        registry.register(READ_BYTES, (Gauge<Long>) () -> read(file, "read_bytes"));
        registry.register(WRITE_BYTES, (Gauge<Long>) () -> read(file, "write_bytes"));
        return true;
    }

    private static long read(Path file, String key) {
        return field(file, key).orElseThrow(() -> new IllegalStateException(key + " not readable in " + file));
    }

    /** The value of {@code key: <number>} in {@code file}, or empty when it cannot be read or is not there. */
    static OptionalLong field(Path file, String key) {
        String text;
        try {
            if (!Files.isReadable(file) || (Files.isRegularFile(file) && Files.size(file) > MAX_FILE_BYTES)) {
                return OptionalLong.empty();
            }
            // /proc files report size 0; read at most the bound.
            try (var in = Files.newInputStream(file)) {
                text = new String(in.readNBytes((int) MAX_FILE_BYTES), StandardCharsets.US_ASCII);
            }
        } catch (IOException e) {
            return OptionalLong.empty();
        }
        String prefix = key + ":";
        for (String line : text.split("\n")) {
            if (line.startsWith(prefix)) {
                try {
                    return OptionalLong.of(Long.parseLong(line.substring(prefix.length()).trim()));
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }
}
