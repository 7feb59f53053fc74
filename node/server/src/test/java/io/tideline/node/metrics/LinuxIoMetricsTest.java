package io.tideline.node.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinuxIoMetricsTest {
    @TempDir
    Path dir;

    @Test
    void gaugesReadTheFileAtEachReading() throws Exception {
        Path io = dir.resolve("io");
        Files.writeString(io, "rchar: 10\nwchar: 20\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n");
        MetricRegistry registry = new MetricRegistry();
        assertTrue(LinuxIoMetrics.register(registry, io));
        assertEquals(4096L, registry.getGauges().get(LinuxIoMetrics.READ_BYTES).getValue());
        assertEquals(8192L, registry.getGauges().get(LinuxIoMetrics.WRITE_BYTES).getValue());
        Files.writeString(io, "read_bytes: 5000\nwrite_bytes: 9000\n");
        assertEquals(5000L, registry.getGauges().get(LinuxIoMetrics.READ_BYTES).getValue());
    }

    @Test
    void nothingIsRegisteredWithoutTheFileOrItsFields() throws Exception {
        MetricRegistry registry = new MetricRegistry();
        assertFalse(LinuxIoMetrics.register(registry, dir.resolve("absent")));
        Path partial = Files.writeString(dir.resolve("partial"), "read_bytes: 1\n");
        assertFalse(LinuxIoMetrics.register(registry, partial));
        Path garbage = Files.writeString(dir.resolve("garbage"), "read_bytes: x\nwrite_bytes: 2\n");
        assertFalse(LinuxIoMetrics.register(registry, garbage));
        assertTrue(registry.getMetrics().isEmpty());
    }
}
