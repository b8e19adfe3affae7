using System;
using System.IO;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;

namespace IpcBench.Kit {
/// <summary>What a running stream shows the control thread (interval reports, sender counts).</summary>
sealed class Progress {
    public long Messages, ExpectedNext, PeerSent = -1; // read and written with Volatile
    public volatile bool Finished;
    public volatile LoopResult Result;
    public Action PollControl; // a single stream on the main thread polls the channel
}

/// <summary>One part of one stream: what the loops read of the run job.</summary>
sealed class Job {
    public readonly CaseSettings C;
    public readonly bool Reliable;

    public Job(CaseSettings c, bool reliable) {
        C = c;
        Reliable = reliable;
    }
}

/// <summary>
/// The timed loops: what a sender, receiver, pinger and ponger do between the clock reads, by
/// the rules of docs/worker-protocol.md ("The timed side"). The hot loops make the calls a plain
/// C# loop makes and no more: one Send or Receive of a byte[] a message, the header put or got
/// little-endian, the clock read every 16 small messages.
/// </summary>
static class Loops {
    static void WaitUntil(long when) {
        long left = when - Libc.Now();
        if (left > 100000) Libc.usleep((uint)((left - 50000) / 1000));
        while (Libc.Now() < when) Thread.SpinWait(10);
    }

    internal static LoopResult Failed(LoopResult r, string what, Exception e) {
        var k = e as KitException;
        if (k != null) return r.Fail(k.Status, what + ": " + e.Message);
        var s = e as SocketException;
        bool closed = (s != null && (s.SocketErrorCode == SocketError.ConnectionReset || s.SocketErrorCode == SocketError.Shutdown)) ||
                      e.Message.Contains("Broken pipe");
        return r.Fail(closed ? KitException.E_CLOSED : KitException.E_SYSTEM, what + ": " + e.GetType().Name + ": " + e.Message);
    }

    internal static bool Expected(Exception e) {
        return e is KitException || e is IOException || e is SocketException || e is ObjectDisposedException;
    }

    // ---- sender ----

    public static LoopResult Sender(Endpoint ep, Job job, Progress progress) {
        return SenderAsync(ep, job, progress).GetAwaiter().GetResult();
    }

    /// <summary>True when a sender's loop is awaited (AsyncLoops): an asynchronous API, unpaced,
    /// one message a write.</summary>
    public static bool SendAwaited(Endpoint ep, CaseSettings c) {
        return ep.Asynchronous && c.RatePerS <= 0 && c.Batch <= 1;
    }

    /// <summary>True when a receiver's loop is awaited: an asynchronous API on a reliable stream,
    /// or (.NET 8 on) on datagrams unpaced.</summary>
    public static bool ReceiveAwaited(Endpoint ep, Job job) {
        if (!ep.Asynchronous) return false;
        if (job.Reliable) return true;
#if NET8_0_OR_GREATER
        return !ep.Stream && job.C.RatePerS <= 0;
#else
        return false;
#endif
    }

    /// <summary>The sender; with an asynchronous API its plain loop is awaited, and the whole
    /// runs synchronously otherwise (no await that does not complete at once).</summary>
    public static async Task<LoopResult> SenderAsync(Endpoint ep, Job job, Progress progress) {
        Run.NoteThreads();
        CaseSettings c = job.C;
        bool paced = c.RatePerS > 0, batched = !paced && c.Batch > 1 && ep.Stream;
        // Messages between two looks at the schedule: the --batch of one write; else the clock
        // stride (a count needs no clock: 1024, the progress cadence).
        var schedule = new DataPlane.SendSchedule(c, batched ? c.Batch : c.Count > 0 ? 1024 : DataPlane.ClockStride(c.SizeBytes));
        var pattern = new DataPlane.Pattern(c.SizeBytes, DataPlane.PatternOffset(paced));
        var buf = ep.NewBuffer(c.SizeBytes);
        pattern.Write(buf, 0, 0);
        var r = new LoopResult("send", ep.SendCall);
        try {
            bool chained = SendAwaited(ep, c);
            r.Count[LoopResult.WARMUP] = chained ? await AsyncLoops.Warmup(ep, c, buf, pattern) : Warmup(ep, c, buf, pattern);
            var usage = Usage.ForLoop(chained);
            usage.Start();
            r.UsageShared = chained;
            long start = Libc.Now();
            schedule.StartNs = start;
            long seq;
            if (paced) seq = PacedSends(ep, c, schedule, buf, pattern, progress);
            else if (batched) seq = BatchedSends(ep, c, schedule, pattern, progress);
            else if (chained) seq = await AsyncLoops.PlainSends(ep, c, schedule, buf, pattern, progress);
            else seq = PlainSends(ep, c, schedule, buf, pattern, progress);
            r.EndNs = Libc.Now();
            r.FirstNs = start;
            r.UsageFigures = usage.Stop();
            r.Count[LoopResult.SENT] = seq;
            r.Count[LoopResult.BYTES_SENT] = seq * c.SizeBytes;
            for (int i = 0; i < DataPlane.EndMarkers(job.Reliable); i++) {
                DataPlane.PutLong(buf, 0, DataPlane.FlagEnd | seq);
                if (c.Verify) pattern.Write(buf, 0, seq);
                ep.Send(buf, 0, buf.Length);
            }
        } catch (Exception e) when (Expected(e)) {
            return Failed(r, "send", e);
        }
        return r;
    }

    static long Warmup(Endpoint ep, CaseSettings c, byte[] buf, DataPlane.Pattern pattern) {
        long warmupNs = (long)(c.WarmupS * 1e9);
        if (warmupNs <= 0) return 0;
        int stride = DataPlane.ClockStride(c.SizeBytes);
        long end = Libc.Now() + warmupNs;
        long warm = 0;
        while (true) {
            DataPlane.PutLong(buf, 0, DataPlane.FlagWarmup | warm);
            if (c.Verify) pattern.Write(buf, 0, warm);
            ep.Send(buf, 0, buf.Length);
            warm++;
            if (warm % stride == 0 && Libc.Now() >= end) return warm;
        }
    }

    /// <summary>Unpaced, one message a call: the loop a plain program writes; the schedule asked every batch.</summary>
    static long PlainSends(Endpoint ep, CaseSettings c, DataPlane.SendSchedule schedule, byte[] buf, DataPlane.Pattern pattern,
                           Progress progress) {
        bool verify = c.Verify;
        long seq = 0;
        int size = buf.Length;
        while (true) {
            var step = schedule.Next(seq, Libc.Now());
            if (step.What == DataPlane.StepKind.End) break;
            for (long stop = seq + step.Count; seq < stop; seq++) {
                DataPlane.PutLong(buf, 0, seq);
                if (verify) pattern.Write(buf, 0, seq);
                ep.Send(buf, 0, size);
            }
            Volatile.Write(ref progress.Messages, seq);
        }
        return seq;
    }

    /// <summary>--batch N on a stream: N messages in one write (the schedule cuts the last by --count).</summary>
    static long BatchedSends(Endpoint ep, CaseSettings c, DataPlane.SendSchedule schedule, DataPlane.Pattern pattern, Progress progress) {
        int size = c.SizeBytes;
        var block = ep.NewBuffer(size * c.Batch);
        for (int i = 0; i < c.Batch; i++) pattern.Write(block, i * size, 0);
        long seq = 0;
        while (true) {
            var step = schedule.Next(seq, Libc.Now());
            if (step.What == DataPlane.StepKind.End) break;
            long n = step.Count;
            for (int i = 0; i < n; i++) {
                DataPlane.PutLong(block, i * size, seq + i);
                if (c.Verify) pattern.Write(block, i * size, seq + i);
            }
            ep.Send(block, 0, (int)n * size);
            seq += n;
            Volatile.Write(ref progress.Messages, seq);
        }
        return seq;
    }

    /// <summary>--rate: each message in its slot, the slot (not the send time) written at offset 8.</summary>
    static long PacedSends(Endpoint ep, CaseSettings c, DataPlane.SendSchedule schedule, byte[] buf, DataPlane.Pattern pattern,
                           Progress progress) {
        long seq = 0;
        while (true) {
            var step = schedule.Next(seq, Libc.Now());
            if (step.What == DataPlane.StepKind.End) break;
            if (step.What == DataPlane.StepKind.Wait) {
                WaitUntil(step.Due);
                continue;
            }
            DataPlane.PutLong(buf, 0, seq);
            DataPlane.PutLong(buf, DataPlane.TimestampOffset, step.Due);
            if (c.Verify) pattern.Write(buf, 0, seq);
            ep.Send(buf, 0, buf.Length);
            seq++;
            Volatile.Write(ref progress.Messages, seq);
        }
        return seq;
    }

    // ---- receiver ----

    /// <summary>Whole messages: on a stream, reads until size bytes are in; else one datagram each.</summary>
    internal sealed class Reader {
        readonly Endpoint ep;
        readonly int size;
        public readonly byte[] Buf;
        readonly bool stream;

        public Reader(Endpoint ep, int size) {
            this.ep = ep;
            this.size = size;
            stream = ep.Stream;
            Buf = ep.NewBuffer(stream ? size : Math.Max(size, 64));
        }

        /// <summary>The next message in Buf; false when the peer closed.</summary>
        public bool Next(long timeoutNs) {
            if (!stream) {
                while (ep.Recv(Buf, 0, Buf.Length, timeoutNs) != size) {}
                return true;
            }
            int got = ep.Recv(Buf, 0, size, timeoutNs);
            if (got < 0) return false;
            while (got < size) { // a message begun is finished
                int n = ep.Recv(Buf, got, size - got, -1);
                if (n < 0) return false;
                got += n;
            }
            return true;
        }
    }

    /// <summary>What a receive loop counted.</summary>
    internal sealed class Tally {
        public readonly DataPlane.SequenceTracker Tracker = new DataPlane.SequenceTracker();
        public DataPlane.Histogram OneWay;
        public long Received, Warm, Corrupted, First, End;
        public string EndedBy = "";
    }

    static void Receive(Endpoint ep, Job job, DataPlane.Pattern pattern, Tally t, Progress progress, Usage usage) {
        CaseSettings c = job.C;
        var reader = new Reader(ep, c.SizeBytes);
        byte[] m = reader.Buf;
        long timeout = job.Reliable ? -1 : DataPlane.ReceiverQuietNs;
        long last = 0;
        bool stamp = t.OneWay != null || !job.Reliable;
        while (t.EndedBy.Length == 0) {
            try {
                if (!reader.Next(timeout)) {
                    t.EndedBy = "closed";
                    t.End = t.Received > 0 ? Libc.Now() : 0;
                    break;
                }
            } catch (TimedOut) {
                if (progress.PollControl != null) progress.PollControl();
                if (Volatile.Read(ref progress.PeerSent) >= 0) {
                    t.EndedBy = "sender-done";
                    t.End = last;
                }
                continue;
            }
            if (Take(t, m, 0, job, pattern, progress, usage, stamp, ref last)) break;
        }
    }

    /// <summary>Counts the message at m[at]; true when it was the end marker (the loop ends).</summary>
    internal static bool Take(Tally t, byte[] m, int at, Job job, DataPlane.Pattern pattern, Progress progress, Usage usage,
                              bool stamp, ref long last) {
        long header = DataPlane.GetLong(m, at);
        if ((header & DataPlane.FlagEnd) != 0) {
            t.End = Libc.Now();
            t.EndedBy = "end-marker";
            return true;
        }
        if ((header & DataPlane.FlagWarmup) != 0) {
            t.Warm++;
            return false;
        }
        if (t.Received == 0) {
            t.First = Libc.Now();
            usage.Start();
        }
        if (stamp) last = Libc.Now();
        t.Received++;
        var tracker = t.Tracker;
        long seq = header & DataPlane.SequenceMask;
        bool fresh;
        if (seq == tracker.Expected && tracker.Any) {
            tracker.Expected = seq + 1;
            fresh = true;
        } else {
            fresh = tracker.Record(seq);
        }
        if (job.C.Verify && fresh && !pattern.Matches(m, at, seq)) t.Corrupted++;
        if (t.OneWay != null) t.OneWay.Record(last - DataPlane.GetLong(m, at + DataPlane.TimestampOffset));
        Volatile.Write(ref progress.Messages, t.Received);
        Volatile.Write(ref progress.ExpectedNext, tracker.Expected);
        return false;
    }

    public static LoopResult Receiver(Endpoint ep, Job job, Progress progress) {
        return ReceiverAsync(ep, job, progress).GetAwaiter().GetResult();
    }

    public static async Task<LoopResult> ReceiverAsync(Endpoint ep, Job job, Progress progress) {
        Run.NoteThreads();
        CaseSettings c = job.C;
        bool paced = c.RatePerS > 0;
        var pattern = new DataPlane.Pattern(c.SizeBytes, DataPlane.PatternOffset(paced));
        var r = new LoopResult("receive", ep.RecvCall);
        var t = new Tally();
        if (paced) t.OneWay = new DataPlane.Histogram();
        bool awaited = ReceiveAwaited(ep, job);
        var usage = Usage.ForLoop(awaited);
        r.UsageShared = awaited;
        try {
            if (awaited && job.Reliable) await AsyncLoops.Receive(ep, job, pattern, t, progress, usage);
#if NET8_0_OR_GREATER
            else if (awaited) await AsyncLoops.ReceiveDatagrams(ep, job, pattern, t, progress, usage);
#endif
            else Receive(ep, job, pattern, t, progress, usage);
        } catch (Exception e) when (Expected(e)) {
            Failed(r, "recv", e);
        }
        Volatile.Write(ref progress.Messages, t.Received);
        Volatile.Write(ref progress.ExpectedNext, t.Tracker.Expected);
        r.UsageFigures = usage.Stop();
        r.Count[LoopResult.RECEIVED] = t.Received;
        r.Count[LoopResult.BYTES_RECEIVED] = t.Received * c.SizeBytes;
        r.Count[LoopResult.WARMUP] = t.Warm;
        r.Count[LoopResult.DUPLICATES] = t.Tracker.Duplicates;
        r.Count[LoopResult.OUT_OF_ORDER] = t.Tracker.OutOfOrder;
        r.Count[LoopResult.BEYOND_WINDOW] = t.Tracker.BeyondWindow;
        r.Count[LoopResult.CORRUPTED] = t.Corrupted;
        r.FirstNs = t.First;
        r.EndNs = t.Received > 0 ? t.End : t.First;
        r.EndedBy = t.EndedBy;
        // The window runs from the first timed arrival to the end marker: `received` intervals;
        // ended by the last arrival it covers one fewer.
        bool whole = t.EndedBy == "end-marker" || t.EndedBy == "closed";
        r.Count[LoopResult.COUNTED] = whole ? t.Received : Math.Max(0, t.Received - 1);
        r.Histogram = t.OneWay;
        return r;
    }

    // ---- latency ----

    internal const int MATCHED = 0, MISMATCHED_PONG = 1, WARMUP_PONG = 2, CORRUPTED_PONG = 3, STALE_PONG = 4;

    internal static int JudgePong(long ping, long pong, bool reliable) {
        if (!reliable && (pong & DataPlane.FlagsMask) == 0 && (ping & DataPlane.FlagsMask) == 0 &&
            (pong & DataPlane.SequenceMask) < (ping & DataPlane.SequenceMask))
            return STALE_PONG;
        if ((ping & DataPlane.FlagWarmup) != 0) return WARMUP_PONG;
        return (pong & DataPlane.SequenceMask) == (ping & DataPlane.SequenceMask) ? MATCHED : MISMATCHED_PONG;
    }

    /// <summary>One ping and its pong: a verdict; TimedOut when the pong was lost.</summary>
    static int RoundTrip(Endpoint output, Reader reader, byte[] buf, long header, Job job, DataPlane.Pattern pattern, long timeout,
                         ref long stale) {
        DataPlane.PutLong(buf, 0, header);
        if (job.C.Verify) pattern.Write(buf, 0, header & DataPlane.SequenceMask);
        output.Send(buf, 0, buf.Length);
        while (true) {
            if (!reader.Next(timeout)) throw new KitException(KitException.E_CLOSED, "the ponger closed the connection");
            long pong = DataPlane.GetLong(reader.Buf, 0);
            int verdict = JudgePong(header, pong, job.Reliable);
            if (verdict == STALE_PONG) {
                stale++;
                continue;
            }
            if (job.C.Verify && verdict == MATCHED && !pattern.Matches(reader.Buf, 0, pong & DataPlane.SequenceMask)) return CORRUPTED_PONG;
            return verdict;
        }
    }

    /// <summary>True when a pinger's or ponger's round trips are awaited (AsyncLoops): an
    /// asynchronous API on a reliable stream.</summary>
    static bool LatencyAwaited(Endpoint output, Endpoint input, Job job) {
        return output.Asynchronous && input.Asynchronous && input.Stream && job.Reliable;
    }

    public static LoopResult Pinger(Endpoint output, Endpoint input, Job job, Progress progress) {
        if (LatencyAwaited(output, input, job)) return AsyncLoops.Pinger(output, input, job, progress).GetAwaiter().GetResult();
        CaseSettings c = job.C;
        var pattern = new DataPlane.Pattern(c.SizeBytes, DataPlane.HeaderBytes);
        var buf = output.NewBuffer(c.SizeBytes);
        pattern.Write(buf, 0, 0);
        var reader = new Reader(input, c.SizeBytes);
        long timeout = job.Reliable ? -1 : DataPlane.LostPingNs;
        var r = new LoopResult("ping", output.SendCall + " -> " + input.RecvCall);
        var histogram = new DataPlane.Histogram();
        long stale = 0, warm = 0, seq = 0, lost = 0, mismatched = 0, corrupted = 0;
        try {
            long warmEnd = Libc.Now() + (long)(c.WarmupS * 1e9);
            while (c.WarmupS > 0 && Libc.Now() < warmEnd) {
                try {
                    RoundTrip(output, reader, buf, DataPlane.FlagWarmup | warm, job, pattern, timeout, ref stale);
                    warm++;
                } catch (TimedOut) {
                    // a lost warm-up ping: the next one
                }
            }
            var usage = new Usage();
            long start = Libc.Now(), end = start + DataPlane.WindowNs(c.DurationS), t = start;
            while (true) {
                long t0 = t;
                try {
                    int verdict = RoundTrip(output, reader, buf, seq, job, pattern, timeout, ref stale);
                    t = Libc.Now();
                    histogram.Record(t - t0);
                    if (verdict == MISMATCHED_PONG) mismatched++;
                    else if (verdict == CORRUPTED_PONG) corrupted++;
                } catch (TimedOut) {
                    t = Libc.Now();
                    lost++;
                }
                seq++;
                Volatile.Write(ref progress.Messages, seq);
                if (DataPlane.PingsDone(c.Count, seq, t, end)) break;
            }
            r.EndNs = Libc.Now();
            r.FirstNs = start;
            r.UsageFigures = usage.Stop();
            for (int i = 0; i < DataPlane.EndMarkers(job.Reliable); i++) {
                DataPlane.PutLong(buf, 0, DataPlane.FlagEnd | seq);
                output.Send(buf, 0, buf.Length);
            }
        } catch (Exception e) when (Expected(e)) {
            Failed(r, "ping", e);
        }
        return PingCounts(r, histogram, seq, lost, mismatched, stale, corrupted, warm);
    }

    /// <summary>A pinger's counters, whichever loop ran it.</summary>
    internal static LoopResult PingCounts(LoopResult r, DataPlane.Histogram histogram, long seq, long lost, long mismatched,
                                          long stale, long corrupted, long warm) {
        r.Count[LoopResult.ROUND_TRIPS] = histogram.Count;
        r.Count[LoopResult.PINGS] = seq;
        r.Count[LoopResult.LOST] = lost;
        r.Count[LoopResult.MISMATCHED] = mismatched;
        r.Count[LoopResult.STALE] = stale;
        r.Count[LoopResult.CORRUPTED] = corrupted;
        r.Count[LoopResult.WARMUP] = warm;
        r.Histogram = histogram;
        return r;
    }

    public static LoopResult Ponger(Endpoint input, Endpoint output, Job job, Progress progress) {
        if (LatencyAwaited(output, input, job)) return AsyncLoops.Ponger(input, output, job, progress).GetAwaiter().GetResult();
        int size = job.C.SizeBytes;
        var reader = new Reader(input, size);
        long timeout = job.Reliable ? -1 : DataPlane.PongerSilenceNs;
        var r = new LoopResult("pong", input.RecvCall + " -> " + output.SendCall);
        var usage = new Usage();
        long start = Libc.Now(), echoed = 0;
        bool timed = false;
        try {
            while (true) {
                try {
                    if (!reader.Next(timeout)) break;
                } catch (TimedOut) {
                    break; // the pinger's end markers may all be lost
                }
                int step = DataPlane.PongerStep(DataPlane.GetLong(reader.Buf, 0), timed);
                if (step == DataPlane.PongEnd) break;
                if (step == DataPlane.EchoFirstTimed) {
                    timed = true;
                    usage.Start();
                    start = Libc.Now();
                }
                output.Send(reader.Buf, 0, size);
                echoed++;
                Volatile.Write(ref progress.Messages, echoed);
            }
        } catch (Exception e) when (Expected(e)) {
            Failed(r, "pong", e);
        }
        Volatile.Write(ref progress.Messages, echoed);
        r.EndNs = Libc.Now();
        r.FirstNs = start;
        r.UsageFigures = usage.Stop();
        r.Count[LoopResult.ECHOED] = echoed;
        return r;
    }
}
}
