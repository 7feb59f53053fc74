package io.tideline.common.io;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;

/**
 * Explicit unmapping of memory-mapped files.
 *
 * <p>Why it matters: the JDK unmaps a {@link MappedByteBuffer} only when the buffer is garbage collected,
 * which may be minutes or never on a quiet heap. Until then the mapping keeps the file's inode alive: a
 * segment's {@code .index} or {@code .timeindex} that retention has already deleted goes on holding its
 * disk blocks ({@code df} full, {@code du} not: the "ghost disk" that {@code lsof +L1} and
 * {@code /proc/<pid>/maps} show as "(deleted)"). Index classes unmap on close and delete instead.
 *
 * <p>Danger: after {@link #unmap} any access to the buffer, or to a slice or duplicate of it, touches
 * unmapped memory and crashes the JVM. Callers must guarantee that no reader still holds the buffer,
 * typically by unmapping under the lock that guards the index, after it is removed from use.
 *
 * <p>Thread-safety: stateless; the caller must make sure no other thread uses the buffer.
 */
public final class MappedBuffers {

    /**
     * {@code sun.misc.Unsafe.invokeCleaner(ByteBuffer)}, bound to the Unsafe instance. The supported
     * module jdk.unsupported opens sun.misc, so this works without --add-opens on Java 9+.
     */
    private static final MethodHandle INVOKE_CLEANER = findInvokeCleaner();

    private MappedBuffers() {
    }

    /**
     * Releases the mapping now instead of at garbage collection. Calling it again on the same buffer
     * does nothing.
     *
     * @throws IllegalArgumentException if {@code buffer} is a slice or duplicate (only the buffer
     *                                  returned by {@code FileChannel.map} owns the mapping)
     */
    public static void unmap(MappedByteBuffer buffer) {
        try {
            INVOKE_CLEANER.invokeExact((ByteBuffer) buffer);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("unmapping failed", t);
        }
    }

    private static MethodHandle findInvokeCleaner() {
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            Object unsafe = theUnsafe.get(null);
            return MethodHandles.lookup()
                    .findVirtual(unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
                    .bindTo(unsafe);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
