using System;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;

namespace IpcBench.Kit {
/// <summary>
/// The plain send and receive loops of an asynchronous API (Endpoint.Asynchronous), written as
/// a program of that API is: each operation awaited, the next started where the one before
/// completed (in the runtime's I/O thread, or at once when it completed synchronously), no
/// thread blocked per operation. A loop that blocked on every completion measured the
/// runtime's thread hand-offs instead: Mono's PipeStream at 0.06 of a callback program, pinned.
/// The same rules as Loops (docs/worker-protocol.md, "The timed side"); paced, batched and
/// latency loops stay Loops' (one operation waited at a time).
/// </summary>
static class AsyncLoops {
    public static async Task<long> Warmup(Endpoint ep, CaseSettings c, byte[] buf, DataPlane.Pattern pattern) {
        long warmupNs = (long)(c.WarmupS * 1e9);
        if (warmupNs <= 0) return 0;
        int stride = DataPlane.ClockStride(c.SizeBytes);
        long end = Libc.Now() + warmupNs;
        long warm = 0;
        while (true) {
            DataPlane.PutLong(buf, 0, DataPlane.FlagWarmup | warm);
            if (c.Verify) pattern.Write(buf, 0, warm);
            await ep.SendAsync(buf, 0, buf.Length);
            warm++;
            if (warm % stride == 0 && Libc.Now() >= end) return warm;
        }
    }

    public static async Task<long> PlainSends(Endpoint ep, CaseSettings c, DataPlane.SendSchedule schedule, byte[] buf,
                                              DataPlane.Pattern pattern, Progress progress) {
        bool verify = c.Verify;
        long seq = 0;
        int size = buf.Length;
        bool direct = ep.DirectOperations;
        while (true) {
            var step = schedule.Next(seq, Libc.Now());
            if (step.What == DataPlane.StepKind.End) break;
            for (long stop = seq + step.Count; seq < stop; seq++) {
                DataPlane.PutLong(buf, 0, seq);
                if (verify) pattern.Write(buf, 0, seq);
                if (!direct) {
                    await ep.SendAsync(buf, 0, size);
                    continue;
                }
                for (int off = 0; off < size;) {  // the operation awaited here: see IOperation
                    int n;
                    try {
                        n = await ep.SendOperation(buf, off, size - off);
                    } catch (SocketException e) when (StyledCalls.Gone(e)) {
                        n = -1;
                    }
                    if (n < 0) throw new KitException(KitException.E_CLOSED, ep.ClosedText);
                    off += n;
                }
            }
            Volatile.Write(ref progress.Messages, seq);
        }
        return seq;
    }

    /// <summary>
    /// Whole messages of a reliable stream until the end marker or the peer's close. Each read
    /// asks for one message's size into a buffer of two, whatever is left of the message before,
    /// as a program reading a stream into a message-sized buffer does (S0's read 256 KiB at a
    /// time): a read is not cut at a message's end, so a message larger than the socket's buffer
    /// costs the reads the program makes, not one more each. The bytes of a message begun are
    /// moved to the front only when the room left cannot take a whole read.
    /// </summary>
    public static async Task Receive(Endpoint ep, Job job, DataPlane.Pattern pattern, Loops.Tally t, Progress progress, Usage usage) {
        if (!job.C.Verify) {
            await ReceiveHeaders(ep, job, pattern, t, progress, usage);
            return;
        }
        int size = job.C.SizeBytes;
        var buf = new byte[2 * size];
        int start = 0, end = 0;
        long last = 0;
        bool stamp = t.OneWay != null;
        while (true) {
            for (; end - start >= size; start += size)
                if (Loops.Take(t, buf, start, job, pattern, progress, usage, stamp, ref last)) return;
            if (start == end) {
                start = end = 0;
            } else if (buf.Length - end < size) {
                Buffer.BlockCopy(buf, start, buf, 0, end - start);
                end -= start;
                start = 0;
            }
            int n = await ep.RecvAsync(buf, end, size);
            if (n < 0) {
                t.EndedBy = "closed";
                t.End = t.Received > 0 ? Libc.Now() : 0;
                return;
            }
            end += n;
        }
    }

    /// <summary>
    /// Receive without --verify: each read takes whatever has come, up to a message's size, into
    /// one message-sized buffer, as S0's program reads (BeginReceive into its 512 KiB buffer), and
    /// only each message's first 16 bytes (its header, and the send time of a paced message) are
    /// kept aside as the reads pass message boundaries: no message is moved in memory. (With
    /// --verify a message is checked whole: Receive reassembles it.) Moving the bytes of a message
    /// cut by a read cost CoreCLR's TCP 512 KiB row up to a tenth of its throughput.
    /// </summary>
    static async Task ReceiveHeaders(Endpoint ep, Job job, DataPlane.Pattern pattern, Loops.Tally t, Progress progress,
                                     Usage usage) {
        int size = job.C.SizeBytes;
        var buf = new byte[size];
        int keep = Math.Min(size, DataPlane.TimestampOffset + 8);
        var head = new byte[DataPlane.TimestampOffset + 8];
        int into = 0;  // bytes of the current message seen so far
        long last = 0;
        bool stamp = t.OneWay != null;
        bool direct = ep.DirectOperations;
        while (true) {
            int n;
            if (!direct) {
                n = await ep.RecvAsync(buf, 0, size);
            } else {  // the operation awaited here: see IOperation
                try {
                    n = await ep.ReceiveOperation(buf, 0, size);
                } catch (SocketException e) when (StyledCalls.Gone(e)) {
                    n = -1;
                }
                if (n == 0) n = -1;
            }
            if (n < 0) {
                t.EndedBy = "closed";
                t.End = t.Received > 0 ? Libc.Now() : 0;
                return;
            }
            for (int pos = 0; pos < n;) {
                if (into < keep) {
                    int k = Math.Min(keep - into, n - pos);
                    Buffer.BlockCopy(buf, pos, head, into, k);
                    into += k;
                    pos += k;
                }
                int skip = Math.Min(size - into, n - pos);
                into += skip;
                pos += skip;
                if (into < size) continue;
                into = 0;
                if (Loops.Take(t, head, 0, job, pattern, progress, usage, stamp, ref last)) return;
            }
        }
    }

    /// <summary>A whole message of a reliable stream into buf, awaited; false when the peer closed.</summary>
    static async Task<bool> ReadWhole(Endpoint ep, byte[] buf, int size) {
        for (int got = 0; got < size;) {
            int n = await ep.RecvAsync(buf, got, size - got);
            if (n < 0) return false;
            got += n;
        }
        return true;
    }

    /// <summary>One ping and its pong, each awaited as a request–response program awaits them.</summary>
    static async Task<int> RoundTrip(Endpoint output, Endpoint input, byte[] buf, byte[] pong, long header, Job job,
                                     DataPlane.Pattern pattern) {
        DataPlane.PutLong(buf, 0, header);
        if (job.C.Verify) pattern.Write(buf, 0, header & DataPlane.SequenceMask);
        await output.SendAsync(buf, 0, buf.Length);
        if (!await ReadWhole(input, pong, buf.Length)) throw new KitException(KitException.E_CLOSED, "the ponger closed the connection");
        long got = DataPlane.GetLong(pong, 0);
        int verdict = Loops.JudgePong(header, got, true);
        if (job.C.Verify && verdict == Loops.MATCHED && !pattern.Matches(pong, 0, got & DataPlane.SequenceMask))
            return Loops.CORRUPTED_PONG;
        return verdict;
    }

    /// <summary>
    /// The pinger of an asynchronous API on a reliable stream: each round trip awaited (the send,
    /// then the pong's reads), where a blocked wait per operation would measure a thread waking
    /// instead of the API's completion path (dotnet:task was 0.81 of an awaiting program's p50).
    /// The rules are Loops.Pinger's (a reliable stream loses no ping).
    /// </summary>
    public static async Task<LoopResult> Pinger(Endpoint output, Endpoint input, Job job, Progress progress) {
        CaseSettings c = job.C;
        var pattern = new DataPlane.Pattern(c.SizeBytes, DataPlane.HeaderBytes);
        var buf = output.NewBuffer(c.SizeBytes);
        pattern.Write(buf, 0, 0);
        var pong = input.NewBuffer(c.SizeBytes);
        var r = new LoopResult("ping", output.SendCall + " -> " + input.RecvCall);
        var histogram = new DataPlane.Histogram();
        long warm = 0, seq = 0, mismatched = 0, corrupted = 0;
        try {
            long warmEnd = Libc.Now() + (long)(c.WarmupS * 1e9);
            for (; c.WarmupS > 0 && Libc.Now() < warmEnd; warm++)
                await RoundTrip(output, input, buf, pong, DataPlane.FlagWarmup | warm, job, pattern);
            var usage = Usage.ForLoop(true);
            usage.Start();
            r.UsageShared = true;
            long start = Libc.Now(), end = start + DataPlane.WindowNs(c.DurationS), t = start;
            while (true) {
                long t0 = t;
                int verdict = await RoundTrip(output, input, buf, pong, seq, job, pattern);
                t = Libc.Now();
                histogram.Record(t - t0);
                if (verdict == Loops.MISMATCHED_PONG) mismatched++;
                else if (verdict == Loops.CORRUPTED_PONG) corrupted++;
                seq++;
                Volatile.Write(ref progress.Messages, seq);
                if (DataPlane.PingsDone(c.Count, seq, t, end)) break;
            }
            r.EndNs = Libc.Now();
            r.FirstNs = start;
            r.UsageFigures = usage.Stop();
            DataPlane.PutLong(buf, 0, DataPlane.FlagEnd | seq);
            await output.SendAsync(buf, 0, buf.Length);
        } catch (Exception e) when (Loops.Expected(e)) {
            Loops.Failed(r, "ping", e);
        }
        return Loops.PingCounts(r, histogram, seq, 0, mismatched, 0, corrupted, warm);  // a reliable stream: none lost or stale
    }

    /// <summary>The ponger of an asynchronous API on a reliable stream: each ping's reads and
    /// its echo awaited. The rules are Loops.Ponger's.</summary>
    public static async Task<LoopResult> Ponger(Endpoint input, Endpoint output, Job job, Progress progress) {
        int size = job.C.SizeBytes;
        var buf = input.NewBuffer(size);
        var r = new LoopResult("pong", input.RecvCall + " -> " + output.SendCall);
        var usage = Usage.ForLoop(true);
        r.UsageShared = true;
        long start = Libc.Now(), echoed = 0;
        bool timed = false;
        try {
            while (await ReadWhole(input, buf, size)) {
                int step = DataPlane.PongerStep(DataPlane.GetLong(buf, 0), timed);
                if (step == DataPlane.PongEnd) break;
                if (step == DataPlane.EchoFirstTimed) {
                    timed = true;
                    usage.Start();
                    start = Libc.Now();
                }
                await output.SendAsync(buf, 0, size);
                echoed++;
                Volatile.Write(ref progress.Messages, echoed);
            }
        } catch (Exception e) when (Loops.Expected(e)) {
            Loops.Failed(r, "pong", e);
        }
        Volatile.Write(ref progress.Messages, echoed);
        r.EndNs = Libc.Now();
        r.FirstNs = start;
        r.UsageFigures = usage.Stop();
        r.Count[LoopResult.ECHOED] = echoed;
        return r;
    }

#if NET8_0_OR_GREATER
    /// <summary>The datagrams counted since the last tick of the quiet timer.</summary>
    sealed class Quiet : IDisposable {
        public long Heard, Seen = -1;
        public CancellationTokenSource Source = new CancellationTokenSource();
        readonly Timer timer;

        public Quiet(long periodNs) {
            int ms = (int)Math.Max(1, periodNs / 1000000);
            timer = new Timer(_ => {
                long now = Volatile.Read(ref Heard);
                if (now == Seen) Volatile.Read(ref Source).Cancel();
                Seen = now;
            }, null, ms, ms);
        }

        public void Renew() {
            Volatile.Write(ref Source, new CancellationTokenSource());
        }

        public void Dispose() {
            timer.Dispose();
        }
    }

    /// <summary>
    /// Unreliable datagrams, each receive awaited where the one before completed, as S1's
    /// receive loop is written (--api task on udp.inet). What Loops.Receive does on its receive
    /// timeout happens when one timer for the whole loop (not one per receive) finds a quiet
    /// spell of ReceiverQuietNs with no datagram: the pending receive is cancelled, the control
    /// channel polled, and the loop ends once the sender is done.
    /// </summary>
    public static async Task ReceiveDatagrams(Endpoint ep, Job job, DataPlane.Pattern pattern, Loops.Tally t,
                                              Progress progress, Usage usage) {
        byte[] buf = ep.NewBuffer(Math.Max(job.C.SizeBytes, 64));
        int size = job.C.SizeBytes;
        long last = 0;
        using (var quiet = new Quiet(DataPlane.ReceiverQuietNs)) {
            while (t.EndedBy.Length == 0) {
                int n;
                try {
                    n = await ep.RecvDatagramAsync(buf, 0, buf.Length, Volatile.Read(ref quiet.Source).Token);
                } catch (OperationCanceledException) {
                    quiet.Renew();
                    if (progress.PollControl != null) progress.PollControl();
                    if (Volatile.Read(ref progress.PeerSent) >= 0) {
                        t.EndedBy = "sender-done";
                        t.End = last;
                    }
                    continue;
                }
                Volatile.Write(ref quiet.Heard, quiet.Heard + 1);
                if (n == size && Loops.Take(t, buf, 0, job, pattern, progress, usage, true, ref last)) return;
            }
        }
    }
#endif
}
}
