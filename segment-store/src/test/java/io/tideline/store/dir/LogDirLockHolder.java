package io.tideline.store.dir;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Child-process helper for {@link LogDirLockTest}: locks {@code args[0]}, prints {@code LOCKED}, and holds
 * the lock until its stdin closes (or it is killed). Prints {@code IN_USE} and exits 3 if the dir is
 * already locked.
 */
public final class LogDirLockHolder {
    private LogDirLockHolder() {
    }

    public static void main(String[] args) throws IOException {
        LogDirLock lock;
        try {
            lock = LogDirLock.acquire(Path.of(args[0]));
        } catch (LogDirInUseException e) {
            System.out.println("IN_USE");
            System.out.flush();
            System.exit(3);
            return;
        }
        System.out.println("LOCKED");
        System.out.flush();
        while (System.in.read() != -1) {
            // hold the lock until the parent closes our stdin
        }
        lock.close();
        System.out.println("RELEASED");
        System.out.flush();
    }
}
