using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace IpcBench.Kit {
/// <summary>
/// One run message: the streams of the part this worker plays, each on a thread of its own (one
/// stream alone runs on the main thread), while the main thread serves the channel
/// (docs/worker-protocol.md, "During a run").
/// </summary>
sealed class Run {
    /// <summary>One part of one stream and its loop.</summary>
    sealed class Task {
        public readonly string Part;
        public readonly Progress Progress = new Progress();
        public readonly Action Loop;
        /// <summary>The loop as a task of the runtime's pool (its awaited loops), or null.</summary>
        public readonly Func<System.Threading.Tasks.Task> LoopAwaited;

        public Task(string part, Func<Progress, LoopResult> body) {
            Part = part;
            Loop = () => {
                try {
                    Progress.Result = body(Progress);
                } catch (Exception e) { // a kit reports, it does not crash
                    Progress.Result = new LoopResult(part, "").Fail(KitException.E_INTERNAL, e.ToString());
                }
                Progress.Finished = true;
            };
        }

        public Task(string part, Func<Progress, System.Threading.Tasks.Task<LoopResult>> body, bool awaited)
            : this(part, p => body(p).GetAwaiter().GetResult()) {
            if (!awaited) return;
            LoopAwaited = async () => {
                try {
                    Progress.Result = await body(Progress);
                } catch (Exception e) {
                    Progress.Result = new LoopResult(part, "").Fail(KitException.E_INTERNAL, e.ToString());
                }
                Progress.Finished = true;
            };
        }
    }

    static readonly string[] Kinds = { "send", "receive", "bidir", "ping", "pong" };
    readonly Session session;
    readonly Channel channel;
    readonly string kind;
    readonly Job job;
    readonly List<string> directions = new List<string>();
    readonly long cpu;
    readonly List<Task> tasks = new List<Task>();
    readonly int[] gcBefore;
    static int peakThreads;

    /// <summary>Notes the process's threads (each loop at its start, and the channel's service
    /// every 20 ms): the kit figure peak_threads.</summary>
    public static void NoteThreads() {
        int now = Usage.Threads();
        int seen;
        while (now > (seen = Volatile.Read(ref peakThreads)) && Interlocked.CompareExchange(ref peakThreads, now, seen) != seen) {}
    }

    public Run(Session session, Dictionary<string, object> m) {
        this.session = session;
        channel = session.Channel;
        var j = Channel.Object(m, "job", true);
        foreach (object d in Channel.List(m, "directions")) {
            if (!(d is string)) throw KitException.Protocol("run message field 'directions' holds a non-text item");
            directions.Add((string)d);
        }
        object k;
        kind = j.TryGetValue("kind", out k) && k is string ? (string)k : "";
        if (!Kinds.Contains(kind))
            throw new KitException(KitException.E_UNSUPPORTED, "this kit runs no '" + kind + "' job (a conformance check job is for the native worker)");
        object c;
        if (!j.TryGetValue("case", out c) || !(c is Dictionary<string, object>))
            throw KitException.Protocol("run message field 'job' field 'case' is missing");
        job = new Job(new CaseSettings((Dictionary<string, object>)c), Channel.Bool(j, "reliable", true));
        cpu = Channel.Integer(j, "cpu", -1L);
        int n = session.Endpoints.Count;
        if (directions.Count != n || n % job.C.Streams != 0) throw KitException.Protocol("endpoint layout does not match the job");
        gcBefore = GcCounts();
        Usage.NewRun();
        Volatile.Write(ref peakThreads, 0);
    }

    /// <summary>Collections so far, per generation (GC.CollectionCount: SGen has two, nursery and major).</summary>
    static int[] GcCounts() {
        var o = new int[GC.MaxGeneration + 1];
        for (int g = 0; g < o.Length; g++) o[g] = GC.CollectionCount(g);
        return o;
    }

    Endpoint EndpointFor(int stream, string direction) {
        int perStream = directions.Count / job.C.Streams;
        for (int i = stream * perStream; i < (stream + 1) * perStream; i++)
            if (directions[i] == direction || directions[i] == Transports.BOTH) return session.Endpoints[i];
        throw new KitException(KitException.E_INVALID, "no " + direction + " endpoint in stream " + stream);
    }

    Task NewTask(string part, int k) {
        switch (part) {
        case "send": {
            Endpoint output = EndpointFor(k, Transports.SEND);
            return new Task(part, p => Loops.SenderAsync(output, job, p), Loops.SendAwaited(output, job.C));
        }
        case "receive": {
            Endpoint input = EndpointFor(k, Transports.RECV);
            return new Task(part, p => Loops.ReceiverAsync(input, job, p), Loops.ReceiveAwaited(input, job));
        }
        case "ping": {
            Endpoint output = EndpointFor(k, Transports.SEND), input = EndpointFor(k, Transports.RECV);
            return new Task(part, p => Loops.Pinger(output, input, job, p));
        }
        default: {
            Endpoint input = EndpointFor(k, Transports.RECV), output = EndpointFor(k, Transports.SEND);
            return new Task(part, p => Loops.Ponger(input, output, job, p));
        }
        }
    }

    public void Execute() {
        if (cpu >= 0) {
            try {
                Libc.PinProcess((int)cpu);
            } catch (KitException e) {
                string part = kind == "bidir" ? "receive" : kind;
                LoopResult r = new LoopResult(part, "").Fail(KitException.E_INVALID, "cannot run on CPU " + cpu + ": " + e.Message + " (--affinity)");
                var failed = new Task(part, p => r);
                failed.Progress.Result = r;
                Report(new List<Task> { failed });
                return;
            }
        }
        for (int k = 0; k < job.C.Streams; k++) {
            if (kind == "bidir") {
                tasks.Add(NewTask("receive", k));
                tasks.Add(NewTask("send", k));
            } else {
                tasks.Add(NewTask(kind, k));
            }
        }
        if (tasks.Count == 1 && job.C.IntervalS <= 0) {
            Task t = tasks[0];
            t.Progress.PollControl = () => {
                try {
                    PassCounts(channel.Poll());
                } catch (Exception e) when (e is ChannelClosed || e is KitException) {
                    // the channel's end is seen by the main loop after the run
                }
            };
            t.Loop();
            if (t.Part == "send" && t.Progress.Result.Error.Length == 0) Sent();
        } else if (tasks.All(t => t.LoopAwaited != null)) {
            // An asynchronous API's streams, as its program runs many sockets: each loop a task
            // on the runtime's pool, no thread of its own (S1's claim: --streams 1000).
            var running = tasks.Select(t => System.Threading.Tasks.Task.Run(t.LoopAwaited)).ToArray();
            ServeRun();
            System.Threading.Tasks.Task.WaitAll(running);
        } else {
            var threads = tasks.Select((t, i) => new Thread(() => t.Loop()) { IsBackground = true, Name = "stream-" + i }).ToList();
            foreach (Thread thread in threads) thread.Start();
            ServeRun();
            foreach (Thread thread in threads) thread.Join();
        }
        Task first = tasks.FirstOrDefault(t => t.Progress.Result != null && t.Progress.Result.UsageShared);
        if (first != null) first.Progress.Result.UsageFigures = Usage.SharedFigures();
        Report(tasks);
    }

    /// <summary>What an unreliable receiver waits for: each sending stream's count.</summary>
    void Sent() {
        var counts = tasks.Where(t => t.Part == "send").Select(t => (object)t.Progress.Result.Count[LoopResult.SENT]).ToList();
        var m = Session.Message("sent");
        m["streams"] = counts;
        channel.Send(m);
    }

    void PassCounts(Dictionary<string, object> m) {
        object s;
        if (m == null || Channel.Type(m) != "sender_done" || !m.TryGetValue("streams", out s) || !(s is List<object>)) return;
        var counts = (List<object>)s;
        int k = 0;
        foreach (Task t in tasks.Where(t => t.Part == "receive")) {
            if (k < counts.Count && counts[k] is long) Volatile.Write(ref t.Progress.PeerSent, (long)counts[k]);
            k++;
        }
    }

    /// <summary>The channel while the streams run: sent counts, intervals, and a failure at once.</summary>
    void ServeRun() {
        bool sentReported = !(kind == "send" || kind == "bidir");
        var intervals = new Intervals(job.C, tasks.Where(t => t.Part == "receive" || t.Part == "ping").Select(t => t.Progress).ToList(), channel);
        while (true) {
            NoteThreads();
            bool all = tasks.All(t => t.Progress.Finished);
            bool sendersDone = tasks.Where(t => t.Part == "send").All(t => t.Progress.Finished);
            if (sendersDone && !sentReported) {
                Sent();
                sentReported = true;
            }
            if (all) {
                intervals.ReportLast();
                return;
            }
            foreach (Task t in tasks) {
                if (t.Progress.Finished && t.Progress.Result.Error.Length > 0) {
                    Report(new List<Task> { t });
                    WaitForEnd();
                }
            }
            intervals.ReportDue();
            long wait = Math.Min(20, Math.Max(0, (intervals.NextDue - Libc.Now()) / 1000000));
            PassCounts(channel.Receive(wait));
        }
    }

    void WaitForEnd() {
        try {
            while (true) channel.Receive(-1);
        } catch (Exception e) when (e is ChannelClosed || e is KitException) {
            // the orchestrator ended the case
        }
        Libc.Exit(1);
    }

    void Report(List<Task> done) {
        var parts = new List<object>();
        var m = Session.Message("result");
        long rss = Usage.MaxRssKib();
        foreach (string part in new[] { "receive", "send", "ping", "pong" }) {
            var streams = done.Where(t => t.Part == part).Select(t => t.Progress.Result).ToList();
            if (streams.Count == 0) continue;
            var summed = LoopResult.Summed(part, streams);
            ((Dictionary<string, object>)summed["usage"])["max_rss_kib"] = rss;
            parts.Add(summed);
            string error = (string)summed["error"];
            if (error.Length > 0 && !m.ContainsKey("error")) {
                m["error"] = error;
                m["status"] = summed["status"];
            }
        }
        m["parts"] = parts;
        m["kit"] = KitFigures();
        channel.Send(m);
    }

    /// <summary>The collector's work during this run, per generation, and the heap it left.</summary>
    Dictionary<string, object> KitFigures() {
        int[] now = GcCounts();
        var o = new Dictionary<string, object>();
        for (int g = 0; g < now.Length; g++) o["gc_gen" + g + "_collections"] = (long)(now[g] - gcBefore[g]);
        o["gc_collections"] = (long)(now[0] - gcBefore[0]); // a major collection counts in every generation
        o["gc_heap_bytes"] = GC.GetTotalMemory(false);
        // The most threads the process had while its streams ran (sampled with the channel's
        // service, every 20 ms): a thread a stream, or the runtime's pool under awaited loops.
        if (peakThreads > 0) o["peak_threads"] = (long)peakThreads;
        return o;
    }

    /// <summary>
    /// --interval: what the receivers (pingers) counted since the last report, over the time since
    /// then as measured; the reports add up to the run.
    /// </summary>
    sealed class Intervals {
        readonly int size;
        readonly long intervalNs, start;
        readonly List<Progress> counting;
        readonly Channel channel;
        long lastEnd, lastMessages, lastLost;
        public long NextDue;

        public Intervals(CaseSettings c, List<Progress> counting, Channel channel) {
            size = c.SizeBytes;
            intervalNs = (long)(c.IntervalS * 1e9);
            this.counting = counting;
            this.channel = channel;
            start = Libc.Now() + (long)(c.WarmupS * 1e9);
            lastEnd = start;
            NextDue = intervalNs > 0 ? start + intervalNs : long.MaxValue / 2;
        }

        public void ReportDue() {
            long now = Libc.Now();
            if (now < NextDue) return;
            Send(now, false);
            while (NextDue <= now) NextDue += intervalNs;
        }

        public void ReportLast() {
            ReportDue();
            long now = Libc.Now();
            if (intervalNs > 0 && now > lastEnd) Send(now, (now - lastEnd) * 100 < intervalNs);
        }

        void Send(long now, bool onlyIfNew) {
            if (counting.Count == 0) return;
            long messages = 0, expected = 0;
            foreach (Progress p in counting) {
                messages += Volatile.Read(ref p.Messages);
                expected += Volatile.Read(ref p.ExpectedNext);
            }
            if (onlyIfNew && messages == lastMessages) return;
            long lost = Math.Max(0, expected - messages), fresh = messages - lastMessages;
            var m = Session.Message("interval");
            m["end_s"] = (now - start) / 1e9;
            m["seconds"] = (now - lastEnd) / 1e9;
            m["messages"] = fresh;
            m["bytes"] = fresh * size;
            m["lost"] = Math.Max(0, lost - lastLost);
            channel.Send(m);
            lastMessages = messages;
            lastLost = lost;
            lastEnd = now;
        }
    }
}
}
