using System;
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

    public static async Task<long> PlainSends(Endpoint ep, CaseSettings c, long start, byte[] buf, DataPlane.Pattern pattern,
                                              Progress progress) {
        long end = start + (long)(c.DurationS * 1e9);
        int stride = DataPlane.ClockStride(c.SizeBytes);
        bool verify = c.Verify;
        long count = c.Count, seq = 0;
        int size = buf.Length;
        while (true) {
            DataPlane.PutLong(buf, 0, seq);
            if (verify) pattern.Write(buf, 0, seq);
            await ep.SendAsync(buf, 0, size);
            seq++;
            if (count > 0) {
                if ((seq & 0x3FF) == 0) Volatile.Write(ref progress.Messages, seq);
                if (seq >= count) break;
            } else if (seq % stride == 0) {
                Volatile.Write(ref progress.Messages, seq);
                if (Libc.Now() >= end) break;
            }
        }
        Volatile.Write(ref progress.Messages, seq);
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
