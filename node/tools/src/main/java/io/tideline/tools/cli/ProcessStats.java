package io.tideline.tools.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a node process holds, read from outside it as an operator would: the Java heap in use right after
 * a full collection ({@code jcmd PID GC.run}, then {@code GC.heap_info}: live data only, so a leak shows
 * and garbage does not), and from /proc its resident set, open file descriptors and threads. Linux only.
 */
record ProcessStats(long heapAfterGcBytes, long rssBytes, int openFds, int threads) {
    private static final Pattern USED = Pattern.compile("used (\\d+)K");
    private static final Pattern RSS = Pattern.compile("VmRSS:\\s+(\\d+) kB");
    private static final Pattern THREADS = Pattern.compile("Threads:\\s+(\\d+)");

    /** Samples process {@code pid}; forces one full GC in it. */
    static ProcessStats sample(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        long heap = heapUsed(jcmd(pid, "GC.heap_info"));
        String status = Files.readString(Path.of("/proc", String.valueOf(pid), "status"), StandardCharsets.UTF_8);
        int fds;
        try (Stream<Path> entries = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
            fds = (int) entries.count();
        }
        return new ProcessStats(heap, Long.parseLong(group(RSS, status)) * 1024, fds,
                Integer.parseInt(group(THREADS, status)));
    }

    /**
     * The heap's "used" figures of {@code GC.heap_info} (one line for G1, one per generation for the
     * serial and parallel collectors), without the metaspace lines, in bytes.
     */
    static long heapUsed(String heapInfo) {
        long kib = 0;
        boolean found = false;
        for (String line : heapInfo.split("\n")) {
            String trimmed = line.trim();
            if (trimmed.startsWith("Metaspace") || trimmed.startsWith("class space")) {
                continue;
            }
            Matcher m = USED.matcher(trimmed);
            if (m.find()) {
                kib += Long.parseLong(m.group(1));
                found = true;
            }
        }
        if (!found) {
            throw new IllegalStateException("no heap figures in GC.heap_info: " + heapInfo);
        }
        return kib * 1024;
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(List.of(jcmd.toString(), String.valueOf(pid), command))
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("jcmd " + pid + " " + command + " failed: " + out.strip());
        }
        return out;
    }

    private static String group(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + pattern + " in /proc status");
        }
        return m.group(1);
    }
}
