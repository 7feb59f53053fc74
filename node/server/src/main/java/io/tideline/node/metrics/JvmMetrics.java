package io.tideline.node.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The JVM's and the process's figures as gauges, under the names of the Prometheus Java client's JVM
 * instrumentation, written in our {@code domain:name=...,label=...} form so the exporters' one mapping gives
 * {@code jvm_memory_used_bytes{area="heap"}} and so on (docs/metrics.md lists them). Kafka itself leaves these to
 * the JVM's own MBeans ({@code java.lang:type=Memory} etc.), which stay where they are on the platform MBean
 * server; the registry names here have their own domains ({@code jvm}, {@code process}) so they never clash with
 * those.
 *
 * <p>Dropwizard's {@code metrics-jvm} would give the same figures, but it is not among the artifacts this build
 * can use, and these few gauges are all we need. Each reads one MXBean attribute when scraped.
 *
 * <p>The CPU time is a gauge too: the Dropwizard bridge makes counters only from a {@code Counter}'s or
 * {@code Meter}'s own long count, and {@code rate()} works on any series that only grows. The garbage collections
 * are a summary, which the registry cannot hold: {@link JvmGcCollector}.
 */
public final class JvmMetrics {
    public static final String MEMORY_USED = "jvm:name=memory_used_bytes";
    public static final String MEMORY_COMMITTED = "jvm:name=memory_committed_bytes";
    public static final String MEMORY_MAX = "jvm:name=memory_max_bytes";
    public static final String THREADS_CURRENT = "jvm:name=threads_current";
    public static final String THREADS_DAEMON = "jvm:name=threads_daemon";
    public static final String THREADS_PEAK = "jvm:name=threads_peak";
    public static final String OPEN_FDS = "process:name=open_fds";
    public static final String MAX_FDS = "process:name=max_fds";
    public static final String CPU_SECONDS = "process:name=cpu_seconds";
    public static final String START_TIME_SECONDS = "process:name=start_time_seconds";

    private JvmMetrics() {
    }

    /** {@code <name>,area=heap|nonheap}. */
    public static String memoryMetric(String name, boolean heap) {
        return name + ",area=" + (heap ? "heap" : "nonheap");
    }

    /**
     * Registers the gauges in {@code registry}. The file-descriptor gauges only where the JVM reports them (Unix),
     * the CPU time only where it is measured.
     */
    public static void register(MetricRegistry registry) {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        registerMemory(registry, true, memory::getHeapMemoryUsage);
        registerMemory(registry, false, memory::getNonHeapMemoryUsage);

        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        registry.register(THREADS_CURRENT, (Gauge<Integer>) threads::getThreadCount);
        registry.register(THREADS_DAEMON, (Gauge<Integer>) threads::getDaemonThreadCount);
        registry.register(THREADS_PEAK, (Gauge<Integer>) threads::getPeakThreadCount);

        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            registry.register(OPEN_FDS, (Gauge<Long>) unix::getOpenFileDescriptorCount);
            registry.register(MAX_FDS, (Gauge<Long>) unix::getMaxFileDescriptorCount);
        }
        if (os instanceof com.sun.management.OperatingSystemMXBean process && process.getProcessCpuTime() >= 0) {
            registry.register(CPU_SECONDS, (Gauge<Double>) () -> process.getProcessCpuTime() / 1e9);
        }
        long startMs = ManagementFactory.getRuntimeMXBean().getStartTime();
        registry.register(START_TIME_SECONDS, (Gauge<Double>) () -> startMs / 1000.0);
    }

    private static void registerMemory(MetricRegistry registry, boolean heap, Supplier<MemoryUsage> usage) {
        register(registry, memoryMetric(MEMORY_USED, heap), usage, MemoryUsage::getUsed);
        register(registry, memoryMetric(MEMORY_COMMITTED, heap), usage, MemoryUsage::getCommitted);
        // -1 where the JVM sets no limit (usually non-heap), as MemoryUsage and the Prometheus client report it.
        register(registry, memoryMetric(MEMORY_MAX, heap), usage, MemoryUsage::getMax);
    }

    private static void register(MetricRegistry registry, String name, Supplier<MemoryUsage> usage,
                                 Function<MemoryUsage, Long> field) {
        registry.register(name, (Gauge<Long>) () -> field.apply(usage.get()));
    }
}
