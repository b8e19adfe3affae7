package ipcbench.kit;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The calling thread's CPU between start() and stop() (ThreadMXBean), its context switches
 * (/proc/thread-self/status) and the CPUs it was seen on (/proc/thread-self/stat, field 39).
 */
final class Usage {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private long userNs;
    private long totalNs;
    private long voluntary;
    private long involuntary;
    private long cpus;

    Usage() {
        start();
    }

    void start() {
        totalNs = THREADS.getCurrentThreadCpuTime();
        userNs = THREADS.getCurrentThreadUserTime();
        long[] switches = switches();
        voluntary = switches[0];
        involuntary = switches[1];
        see();
    }

    private void see() {
        int cpu = cpuNow();
        if (cpu >= 0 && cpu < 64) cpus |= 1L << cpu;
    }

    /**
     * A /proc file whole: Files.readString trusts the size stat gives, and /proc files are
     * sized 4096 or less than they hold, so it may stop short ("8" for kernel.msgmax 8192).
     */
    static String readProc(String path) throws IOException {
        try (java.io.FileInputStream in = new java.io.FileInputStream(path)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    static int cpuNow() {
        try {
            String stat = readProc("/proc/thread-self/stat");
            String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Integer.parseInt(rest[36]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    static long[] switches() {
        long[] out = new long[2];
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/thread-self/status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) out[0] = Long.parseLong(line.substring(24).trim());
                if (line.startsWith("nonvoluntary_ctxt_switches:")) out[1] = Long.parseLong(line.substring(27).trim());
            }
        } catch (IOException | RuntimeException e) {
            // no /proc: the counts stay 0
        }
        return out;
    }

    /** The peak RSS of the process, KiB (VmHWM). */
    static long maxRssKib() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status")))
                if (line.startsWith("VmHWM:")) return Long.parseLong(line.substring(6).replace("kB", "").trim());
        } catch (IOException | RuntimeException e) {
            // no /proc
        }
        return 0;
    }

    /** The OS thread id of the calling thread: /proc/thread-self links to PID/task/TID. */
    static long threadId() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Paths.get("/proc/thread-self")).getFileName().toString());
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    Map<String, Object> stop() {
        long total = THREADS.getCurrentThreadCpuTime() - totalNs;
        long user = THREADS.getCurrentThreadUserTime() - userNs;
        long[] switches = switches();
        see();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("cpu_user_s", Math.max(0, user) / 1e9);
        out.put("cpu_sys_s", Math.max(0, total - user) / 1e9);
        out.put("max_rss_kib", maxRssKib());
        out.put("voluntary_ctx_switches", Math.max(0, switches[0] - voluntary));
        out.put("involuntary_ctx_switches", Math.max(0, switches[1] - involuntary));
        out.put("cpus_seen", cpus);
        return out;
    }
}
