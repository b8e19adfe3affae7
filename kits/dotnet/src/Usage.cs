using System;
using System.Collections.Generic;
using System.IO;

namespace IpcBench.Kit {
/// <summary>
/// The calling thread's CPU time and context switches between Start and Stop
/// (getrusage(RUSAGE_THREAD)) and the CPUs it was seen on (sched_getcpu). An awaited loop of an
/// asynchronous API runs on the runtime's threads (its continuations, its socket engine), not a
/// thread of its own: the run's awaited loops share one window of the process's CPU
/// (RUSAGE_SELF) from the first one's start to the last one's stop, which Run reports with the
/// first of them (so that the streams' sum counts it once); each reports none of its own.
/// </summary>
sealed class Usage {
    /// <summary>The process's CPU while any awaited loop of the run is timing.</summary>
    sealed class SharedWindow {
        int open;
        Libc.Rusage start, sum;
        long cpus;  // every CPU an awaited loop of the run was seen on

        public void Saw(long seen) {
            lock (this) cpus |= seen;
        }

        public long Cpus() {
            lock (this) return cpus;
        }

        public void Enter() {
            lock (this)
                if (open++ == 0) start = Libc.ProcessUsage();
        }

        public void Leave() {
            lock (this) {
                if (--open != 0) return;
                Libc.Rusage now = Libc.ProcessUsage();
                sum.utime_sec += now.utime_sec - start.utime_sec;
                sum.utime_usec += now.utime_usec - start.utime_usec;
                sum.stime_sec += now.stime_sec - start.stime_sec;
                sum.stime_usec += now.stime_usec - start.stime_usec;
                sum.nvcsw += now.nvcsw - start.nvcsw;
                sum.nivcsw += now.nivcsw - start.nivcsw;
            }
        }

        public Libc.Rusage Sum() {
            lock (this) return sum;
        }
    }

    static SharedWindow window = new SharedWindow();
    readonly bool shared;
    bool entered;
    Libc.Rusage before;
    long cpus;

    public Usage() {
        Start();
    }

    Usage(bool shared) {
        this.shared = shared;
        if (!shared) Start();
    }

    /// <summary>A loop's usage: its thread's (counting from now), or when it is awaited the run's
    /// shared window, which it enters at Start (a receiver's first timed message).</summary>
    public static Usage ForLoop(bool awaited) {
        return new Usage(awaited);
    }

    /// <summary>A new run: a new shared window.</summary>
    public static void NewRun() {
        System.Threading.Volatile.Write(ref window, new SharedWindow());
    }

    /// <summary>The shared window's figures, for the first awaited loop's result.</summary>
    public static Dictionary<string, object> SharedFigures() {
        SharedWindow w = System.Threading.Volatile.Read(ref window);
        return Figures(new Libc.Rusage(), w.Sum(), w.Cpus());
    }

    public void Start() {
        See();
        if (!shared) {
            before = Libc.ThreadUsage();
        } else if (!entered) {
            entered = true;
            System.Threading.Volatile.Read(ref window).Enter();
        }
    }

    void See() {
        int cpu = Libc.sched_getcpu();
        if (cpu >= 0 && cpu < 64) cpus |= 1L << cpu;
    }

    /// <summary>The process's threads now (/proc/self/status), 0 when unknown.</summary>
    public static int Threads() {
        try {
            foreach (string line in File.ReadAllLines("/proc/self/status"))
                if (line.StartsWith("Threads:")) return int.Parse(line.Substring(8).Trim());
        } catch (Exception e) when (e is IOException || e is FormatException) {
            // no /proc
        }
        return 0;
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
        See();
        if (!shared) return Figures(before, Libc.ThreadUsage(), cpus);
        System.Threading.Volatile.Read(ref window).Saw(cpus);
        if (entered) {
            entered = false;
            System.Threading.Volatile.Read(ref window).Leave();
        }
        return Figures(new Libc.Rusage(), new Libc.Rusage(), cpus);
    }

    static Dictionary<string, object> Figures(Libc.Rusage before, Libc.Rusage now, long cpus) {
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
    /// <summary>An awaited loop: its CPU is in the run's shared window (Usage), not its own figures.</summary>
    public bool UsageShared;
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
