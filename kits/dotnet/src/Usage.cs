using System;
using System.Collections.Generic;
using System.IO;

namespace IpcBench.Kit {
/// <summary>
/// The calling thread's CPU time and context switches between Start and Stop
/// (getrusage(RUSAGE_THREAD)) and the CPUs it was seen on (sched_getcpu). An awaited loop of an
/// asynchronous API runs on the runtime's threads (its continuations, its socket engine), not a
/// thread of its own: its CPU is the process's (RUSAGE_SELF), claimed by one such loop of a run
/// so that the streams' sum counts it once; the run's other awaited loops report none.
/// </summary>
sealed class Usage {
    enum Scope { Thread, Process, Claimed }
    static int processClaimed;
    readonly Scope scope;
    Libc.Rusage before;
    long cpus;

    public Usage() : this(Scope.Thread) {}

    Usage(Scope scope) {
        this.scope = scope;
        Start();
    }

    /// <summary>A loop's usage: its thread's, or when it is awaited (asynchronous) the process's.</summary>
    public static Usage ForLoop(bool awaited) {
        if (!awaited) return new Usage();
        return new Usage(System.Threading.Interlocked.Exchange(ref processClaimed, 1) == 0 ? Scope.Process : Scope.Claimed);
    }

    /// <summary>A new run: its first awaited loop claims the process's CPU.</summary>
    public static void NewRun() {
        System.Threading.Volatile.Write(ref processClaimed, 0);
    }

    Libc.Rusage Now() {
        return scope == Scope.Process ? Libc.ProcessUsage() : scope == Scope.Thread ? Libc.ThreadUsage() : new Libc.Rusage();
    }

    public void Start() {
        before = Now();
        See();
    }

    void See() {
        int cpu = Libc.sched_getcpu();
        if (cpu >= 0 && cpu < 64) cpus |= 1L << cpu;
    }

    /// <summary>The peak RSS of the process, KiB (VmHWM).</summary>
    public static long MaxRssKib() {
        try {
            foreach (string line in File.ReadAllLines("/proc/self/status"))
                if (line.StartsWith("VmHWM:")) return long.Parse(line.Substring(6).Replace("kB", "").Trim());
        } catch (Exception e) when (e is IOException || e is FormatException) {
            // no /proc
        }
        return 0;
    }

    public Dictionary<string, object> Stop() {
        Libc.Rusage now = Now();
        See();
        long user = (now.utime_sec - before.utime_sec) * 1000000 + now.utime_usec - before.utime_usec;
        long sys = (now.stime_sec - before.stime_sec) * 1000000 + now.stime_usec - before.stime_usec;
        return new Dictionary<string, object> {
            { "cpu_user_s", Math.Max(0, user) / 1e6 }, { "cpu_sys_s", Math.Max(0, sys) / 1e6 },
            { "max_rss_kib", MaxRssKib() }, { "voluntary_ctx_switches", Math.Max(0, now.nvcsw - before.nvcsw) },
            { "involuntary_ctx_switches", Math.Max(0, now.nivcsw - before.nivcsw) }, { "cpus_seen", cpus } };
    }
}

/// <summary>A loop result (docs/worker-protocol.md, "Results"): one stream's, or one part's summed.</summary>
sealed class LoopResult {
    public static readonly string[] Counters = { "warmup_messages", "messages_sent", "bytes_sent", "messages_received",
        "bytes_received", "counted_messages", "duplicates", "out_of_order", "beyond_window", "corrupted", "pings_sent",
        "round_trips", "lost", "mismatched", "stale_pongs", "echoed" };
    public const int WARMUP = 0, SENT = 1, BYTES_SENT = 2, RECEIVED = 3, BYTES_RECEIVED = 4, COUNTED = 5, DUPLICATES = 6,
                     OUT_OF_ORDER = 7, BEYOND_WINDOW = 8, CORRUPTED = 9, PINGS = 10, ROUND_TRIPS = 11, LOST = 12,
                     MISMATCHED = 13, STALE = 14, ECHOED = 15;

    public readonly string Part;
    public string Path, EndedBy = "", Error = "";
    public readonly long[] Count = new long[Counters.Length];
    public long FirstNs, EndNs, ThreadId = Libc.gettid();
    public Dictionary<string, object> UsageFigures;
    public DataPlane.Histogram Histogram;
    public int Status;

    public LoopResult(string part, string path) {
        Part = part;
        Path = path;
    }

    public LoopResult Fail(int status, string text) {
        Status = status;
        Error = text;
        if (UsageFigures == null) UsageFigures = new Usage().Stop();
        return this;
    }

    double Cpu(string key) {
        return UsageFigures == null ? 0 : Convert.ToDouble(UsageFigures[key]);
    }

    long Figure(string key) {
        return UsageFigures == null ? 0 : (long)UsageFigures[key];
    }

    Dictionary<string, object> ToJson() {
        var o = new Dictionary<string, object> { { "part", Part } };
        for (int i = 0; i < Counters.Length; i++) o[Counters[i]] = Count[i];
        o["ended_by"] = EndedBy;
        o["first_ns"] = FirstNs;
        o["end_ns"] = EndNs;
        o["path"] = Path;
        o["usage"] = UsageFigures ?? new Usage().Stop();
        o["histogram"] = Histogram == null ? null : Histogram.ToJson();
        o["thread_id"] = ThreadId;
        o["error"] = Error;
        o["status"] = (long)Status;
        return o;
    }

    /// <summary>One part's streams summed, each stream's own kept as rows.</summary>
    public static Dictionary<string, object> Summed(string part, List<LoopResult> streams) {
        var sum = new LoopResult(part, streams[0].Path) { ThreadId = streams[0].ThreadId };
        long first = long.MaxValue, voluntary = 0, involuntary = 0, cpus = 0, rss = 0;
        double user = 0, sys = 0;
        var rows = new List<object>();
        var errors = new List<object>();
        for (int k = 0; k < streams.Count; k++) {
            LoopResult s = streams[k];
            for (int i = 0; i < Counters.Length; i++) sum.Count[i] += s.Count[i];
            if (sum.EndedBy.Length == 0) sum.EndedBy = s.EndedBy;
            if (s.FirstNs > 0) first = Math.Min(first, s.FirstNs);
            sum.EndNs = Math.Max(sum.EndNs, s.EndNs);
            if (s.Histogram != null) {
                if (sum.Histogram == null) sum.Histogram = new DataPlane.Histogram();
                sum.Histogram.Merge(s.Histogram);
            }
            user += s.Cpu("cpu_user_s");
            sys += s.Cpu("cpu_sys_s");
            voluntary += s.Figure("voluntary_ctx_switches");
            involuntary += s.Figure("involuntary_ctx_switches");
            cpus |= s.Figure("cpus_seen");
            rss = Math.Max(rss, s.Figure("max_rss_kib"));
            var row = new List<object>();
            foreach (long c in s.Count) row.Add(c);
            row.AddRange(new object[] { s.FirstNs, s.EndNs, s.ThreadId, s.Cpu("cpu_user_s"), s.Cpu("cpu_sys_s"), (long)s.Status });
            rows.Add(row);
            if (s.Error.Length > 0) {
                errors.Add(new Dictionary<string, object> { { "stream", (long)k }, { "error", s.Error } });
                if (sum.Error.Length == 0) {
                    sum.Error = s.Error + (streams.Count > 1 ? " (stream " + k + ")" : "");
                    sum.Status = s.Status;
                }
            }
        }
        sum.FirstNs = first == long.MaxValue ? 0 : first;
        sum.UsageFigures = new Dictionary<string, object> {
            { "cpu_user_s", user }, { "cpu_sys_s", sys }, { "max_rss_kib", rss }, { "voluntary_ctx_switches", voluntary },
            { "involuntary_ctx_switches", involuntary }, { "cpus_seen", cpus } };
        var o = sum.ToJson();
        o["streams"] = new Dictionary<string, object> { { "rows", rows }, { "errors", errors } };
        return o;
    }
}
}
