package io.tideline.common.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class MappedBuffersTest {

    @TempDir
    Path dir;

    private MappedByteBuffer map(Path file, int size) throws IOException {
        Files.write(file, new byte[size]);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
        }
    }

    private static boolean mapped(Path file) throws IOException {
        String path = file.toAbsolutePath().toString();
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .anyMatch(l -> l.endsWith(" " + path) || l.endsWith(" " + path + " (deleted)"));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void unmapRemovesTheMappingImmediatelyRatherThanAtGarbageCollection() throws IOException {
        Path file = dir.resolve("00000000000000000000.index");
        MappedByteBuffer buffer = map(file, 4096);
        buffer.putInt(0, 7);
        assertTrue(mapped(file));
        MappedBuffers.unmap(buffer);
        assertFalse(mapped(file));
    }

    @Test
    void writesBeforeUnmapReachTheFile() throws IOException {
        Path file = dir.resolve("00000000000000000000.timeindex");
        MappedByteBuffer buffer = map(file, 4096);
        buffer.putLong(0, 0x0102030405060708L);
        buffer.force();
        MappedBuffers.unmap(buffer);
        assertEquals(0x0102030405060708L, java.nio.ByteBuffer.wrap(Files.readAllBytes(file)).getLong(0));
    }

    @Test
    void unmappingTwiceIsHarmless() throws IOException {
        MappedByteBuffer buffer = map(dir.resolve("f"), 4096);
        MappedBuffers.unmap(buffer);
        MappedBuffers.unmap(buffer);
    }

    @Test
    void sliceIsRejectedBecauseOnlyTheOriginalBufferOwnsTheMapping() throws IOException {
        MappedByteBuffer buffer = map(dir.resolve("f"), 4096);
        try {
            MappedByteBuffer slice = buffer.slice();
            assertThrows(IllegalArgumentException.class, () -> MappedBuffers.unmap(slice));
        } finally {
            MappedBuffers.unmap(buffer);
        }
    }
}
