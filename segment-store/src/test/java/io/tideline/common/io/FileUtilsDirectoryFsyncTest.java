package io.tideline.common.io;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A directory fsync that fails is the caller's storage error, never swallowed (docs/behaviours.md B141). */
class FileUtilsDirectoryFsyncTest {
    @TempDir
    Path dir;

    @Test
    void aDirectoryThatCannotBeOpenedIsAnError() {
        assertTrue(Files.isDirectory(dir));
        IOException thrown = assertThrows(IOException.class, () -> FileUtils.fsyncDirectory(dir, d -> {
            throw new IOException("Input/output error");
        }));
        assertTrue(thrown.getMessage().contains("Input/output error"), thrown.toString());
    }

    @Test
    void aDirectoryWhoseFsyncFailsIsAnError() {
        // A channel already closed fails its force() with an IOException, as a device error would.
        assertThrows(ClosedChannelException.class, () -> FileUtils.fsyncDirectory(dir, d -> {
            FileChannel channel = FileChannel.open(d, StandardOpenOption.READ);
            channel.close();
            return channel;
        }));
    }

    @Test
    void aWorkingDirectoryIsFsynced() throws IOException {
        FileUtils.fsyncDirectory(dir);
        FileUtils.fsyncDirectory(null);
    }
}
