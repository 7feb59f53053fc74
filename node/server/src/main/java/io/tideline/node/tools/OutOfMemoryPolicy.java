package io.tideline.node.tools;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.tideline.node.server.ServerConfig;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * A node that runs out of heap must die at once, so that the controller fences it and moves its
 * leaderships, instead of serving half-dead: seen once, a leader kept its port and its sessions while
 * OutOfMemoryErrors tore down its Ratis appenders, heartbeat timer and gRPC threads one by one, and
 * records waited a minute for it. {@code scripts/tideline server} starts the JVM with
 * {@code -XX:+ExitOnOutOfMemoryError}, which exits (code 3) at the first OutOfMemoryError wherever it is
 * thrown or caught. A node started some other way is warned about at start, and gets the nearest
 * in-process equivalent: a thread that dies of an OutOfMemoryError halts the process.
 */
final class OutOfMemoryPolicy {
    /** What -XX:+ExitOnOutOfMemoryError exits with; the in-process fallback uses the same. */
    static final int EXIT_OUT_OF_MEMORY = 3;

    private OutOfMemoryPolicy() {
    }

    /** Whether the JVM itself ends the process on an OutOfMemoryError. */
    static boolean jvmExitsOnOutOfMemory() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        return vm != null && (flag(vm, "ExitOnOutOfMemoryError") || flag(vm, "CrashOnOutOfMemoryError"));
    }

    private static boolean flag(HotSpotDiagnosticMXBean vm, String name) {
        try {
            return Boolean.parseBoolean(vm.getVMOption(name).getValue());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Warnings for a node about to start: how it would meet an OutOfMemoryError, and bounds above its heap. */
    static List<String> warnings(ServerConfig config, boolean jvmExits, long maxHeapBytes) {
        List<String> warnings = new ArrayList<>();
        if (!jvmExits) {
            warnings.add("the JVM runs without -XX:+ExitOnOutOfMemoryError: an OutOfMemoryError that a library "
                    + "catches leaves the node serving half-dead (start it with scripts/tideline server, or add the "
                    + "flag to the JVM options)");
        }
        if (maxHeapBytes > 0 && config.queuedMaxRequestBytes() > maxHeapBytes / 2) {
            warnings.add(ServerConfig.QUEUED_MAX_REQUEST_BYTES_CONFIG + "=" + config.queuedMaxRequestBytes()
                    + " is more than half of the maximum heap (" + maxHeapBytes + " bytes): requests held at that bound"
                    + " and the copies made of them can run the node out of memory");
        }
        return warnings;
    }

    /** Logs the warnings and, when the JVM does not exit by itself, installs the halting fallback. */
    static void apply(ServerConfig config, Logger log) {
        boolean jvmExits = jvmExitsOnOutOfMemory();
        for (String warning : warnings(config, jvmExits, Runtime.getRuntime().maxMemory())) {
            log.warn("Node {}: {}", config.node().nodeId(), warning);
        }
        if (!jvmExits) {
            Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
            Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
                if (error instanceof OutOfMemoryError) {
                    // No logging: it may need the memory that just ran out.
                    Runtime.getRuntime().halt(EXIT_OUT_OF_MEMORY);
                }
                if (previous != null) {
                    previous.uncaughtException(thread, error);
                } else {
                    thread.getThreadGroup().uncaughtException(thread, error);
                }
            });
        }
    }
}
