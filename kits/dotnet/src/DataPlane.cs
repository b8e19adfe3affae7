using System;
using System.Collections.Generic;

namespace IpcBench.Kit {
/// <summary>
/// The data plane of docs/worker-protocol.md ("Data plane"): what travels in every message.
/// Little-endian whatever the machine: [0, 8) the sequence number (low 56 bits) and flags (bit 62
/// warm-up, bit 63 end marker); [8, 16) paced runs only: the time the message was due,
/// CLOCK_MONOTONIC ns; then the payload pattern.
/// </summary>
public static unsafe class DataPlane {
    public const long FlagWarmup = 1L << 62;
    public const long FlagEnd = unchecked((long)(1UL << 63));
    public const long SequenceMask = (1L << 56) - 1;
    public const long FlagsMask = ~SequenceMask;
    public const int HeaderBytes = 8;
    public const int TimestampOffset = 8;
    public const int PatternPeriod = 251;

    // Unreliable transports (udp.inet): timing rules, ns.
    public const long LostPingNs = 200000000L;
    public const long PongerSilenceNs = 2000000000L;
    public const long ReceiverQuietNs = 20000000L;

    public static int EndMarkers(bool reliable) {
        return reliable ? 1 : 3;
    }

    /// <summary>Unpaced small messages look at the clock every 16 sends only.</summary>
    public static int ClockStride(int size) {
        return size >= 4096 ? 1 : 16;
    }

    public static int PatternOffset(bool paced) {
        return paced ? TimestampOffset + 8 : HeaderBytes;
    }

    // Little-endian words: the kit refuses to start on a big-endian machine (Worker.Main).
    public static long GetLong(byte[] b, int at) {
        fixed (byte* p = &b[at]) return *(long*)p;
    }

    public static void PutLong(byte[] b, int at, long v) {
        fixed (byte* p = &b[at]) *(long*)p = v;
    }

    /// <summary>
    /// Byte i of the table is (i * 131 + 7) &amp; 0xff; message seq carries the table from
    /// seq % 251 on, after the header (and the timestamp when paced).
    /// </summary>
    public sealed class Pattern {
        readonly int offset;
        readonly int length;
        readonly byte[] table;

        public Pattern(int size, int offset) {
            this.offset = Math.Min(offset, size);
            length = size - this.offset;
            table = new byte[length + PatternPeriod];
            for (int i = 0; i < table.Length; i++) table[i] = (byte)(i * 131 + 7);
        }

        public void Write(byte[] buf, int at, long seq) {
            if (length == 0) return;
            Buffer.BlockCopy(table, (int)((ulong)seq % PatternPeriod), buf, at + offset, length);
        }

        public bool Matches(byte[] buf, int at, long seq) {
            if (length == 0) return true;
            int k = (int)((ulong)seq % PatternPeriod);
            fixed (byte* a = &buf[at + offset], b = &table[k]) return Libc.memcmp(a, b, (IntPtr)length) == 0;
        }
    }

    public const int SubBits = 8;
    const int SubCount = 1 << SubBits;
    const int Buckets = SubCount * (64 - SubBits + 1);

    static int LeadingZeros(long v) {
        int n = 0;
        for (ulong u = (ulong)v; (u & (1UL << 63)) == 0 && n < 64; u <<= 1) n++;
        return n;
    }

    /// <summary>The log-linear bucket of a value in ns: exact below 256, then 256 a power of two.</summary>
    public static int BucketOf(long value) {
        if (value < SubCount) return (int)value;
        int shift = 63 - LeadingZeros(value) - SubBits;
        return (int)((shift + 1) * SubCount + (long)((ulong)value >> shift) - SubCount);
    }

    public sealed class Histogram {
        readonly long[] counts = new long[Buckets];
        public long Count, Sum, Min = long.MaxValue, Max;

        public void Record(long value) {
            if (value < 0) value = 0;
            counts[BucketOf(value)]++;
            Count++;
            Sum += value;
            if (value < Min) Min = value;
            if (value > Max) Max = value;
        }

        public void Merge(Histogram other) {
            for (int b = 0; b < Buckets; b++) counts[b] += other.counts[b];
            Count += other.Count;
            Sum += other.Sum;
            Min = Math.Min(Min, other.Min);
            Max = Math.Max(Max, other.Max);
        }

        public Dictionary<string, object> ToJson() {
            var buckets = new List<object>();
            for (int b = 0; b < Buckets; b++)
                if (counts[b] != 0) buckets.Add(new List<object> { (long)b, counts[b] });
            return new Dictionary<string, object> {
                { "buckets", buckets }, { "count", Count }, { "sum", Sum }, { "min", Count == 0 ? 0L : Min },
                { "max", Max }, { "sub_bits", (long)SubBits } };
        }
    }

    /// <summary>
    /// First arrivals, duplicates and out-of-order arrivals over a window of 65,536 sequence
    /// numbers below the highest seen (the native tracker's rules). In order is the fast path:
    /// the caller checks seq == Expected itself.
    /// </summary>
    public sealed class SequenceTracker {
        public const long Window = 1 << 16;
        public long Expected; // highest seen + 1
        public bool Any;
        readonly HashSet<long> missing = new HashSet<long>();
        public long Duplicates, OutOfOrder, BeyondWindow;

        /// <summary>The numbers within the window below seq are not seen yet (a first arrival, a wide gap).</summary>
        void UnseenBelow(long seq) {
            missing.Clear();
            for (long s = Math.Max(0, seq - Window + 1); s < seq; s++) missing.Add(s);
        }

        /// <summary>False for a duplicate.</summary>
        public bool Record(long seq) {
            if (!Any) {
                Any = true;
                Expected = seq + 1;
                UnseenBelow(seq);
                return true;
            }
            if (seq >= Expected) {
                long gap = seq - Expected;
                if (gap >= Window) {
                    UnseenBelow(seq);
                } else {
                    for (long s = Expected; s < seq; s++) missing.Add(s);
                    if (missing.Count > 2 * Window) {
                        long floor = seq - Window;
                        missing.RemoveWhere(s => s <= floor);
                    }
                }
                Expected = seq + 1;
                return true;
            }
            if (Expected - 1 - seq >= Window) {
                BeyondWindow++;
                OutOfOrder++;
                return true;
            }
            if (missing.Remove(seq)) {
                OutOfOrder++;
                return true;
            }
            Duplicates++;
            return false;
        }
    }

    /// <summary>A window in seconds as ns, rounded to the nearest (2.01 s is 2010000000 ns).</summary>
    public static long WindowNs(double seconds) {
        return (long)Math.Round(seconds * 1e9, MidpointRounding.AwayFromZero);
    }

    /// <summary>What a timed sender does next: Send Count messages (paced: one, stamped Due),
    /// Wait until Due, or End.</summary>
    public enum StepKind { Send, Wait, End }

    public struct Step {
        public StepKind What;
        public long Count, Due;
    }

    /// <summary>
    /// The schedule of one sending stream (the host's timing::send_schedule; tested by
    /// protocol/vectors/send_schedule.json). Unpaced: batches of up to `batch` messages until the
    /// count or the window's end, a count cutting the last batch. Paced (--rate): each message has
    /// a slot, a --burst shares the slot of its first, a slot is due however late the sender is,
    /// and the window still ends on time.
    /// </summary>
    public sealed class SendSchedule {
        readonly long count, batch, burst, durationNs;
        readonly double periodNs;
        public long StartNs;

        public SendSchedule(long count, double ratePerS, long burst, double durationS, long batch) {
            this.count = count;
            this.batch = Math.Max(1, batch);
            periodNs = ratePerS > 0 ? 1e9 / ratePerS : 0;
            this.burst = Math.Max(1, burst);
            durationNs = WindowNs(durationS);
        }

        public SendSchedule(CaseSettings c, long batch) : this(c.Count, c.RatePerS, c.Burst, c.DurationS, batch) {}

        public bool Paced {
            get { return periodNs > 0; }
        }

        public long Due(long seq, long offsetNs = 0) {
            long slot = seq - seq % burst;
            return StartNs + offsetNs + (long)(slot * periodNs);
        }

        public long WindowEnd {
            get { return StartNs + durationNs; }
        }

        /// <summary>What comes after `seq` timed messages at `now`.</summary>
        public Step Next(long seq, long now, long offsetNs = 0) {
            if (count > 0 ? seq >= count : now >= WindowEnd) return new Step { What = StepKind.End };
            if (!Paced) return new Step { What = StepKind.Send, Count = count > 0 ? Math.Min(batch, count - seq) : batch };
            long due = Due(seq, offsetNs);
            if (count == 0 && due >= WindowEnd) return new Step { What = StepKind.End };
            if (due > now) return new Step { What = StepKind.Wait, Due = due };
            return new Step { What = StepKind.Send, Count = 1, Due = due };
        }
    }

    /// <summary>Whether a pinger's timed part is over after `seq` round trips (lost ones included).</summary>
    public static bool PingsDone(long count, long seq, long now, long windowEnd) {
        return count > 0 ? seq >= count : now >= windowEnd;
    }

    /// <summary>What a ponger does with a ping: echo it, echo it and open its window, or end.</summary>
    public const int Echo = 0, EchoFirstTimed = 1, PongEnd = 2;

    public static int PongerStep(long header, bool timedAlready) {
        if ((header & FlagEnd) != 0) return PongEnd;
        if (!timedAlready && (header & FlagWarmup) == 0) return EchoFirstTimed;
        return Echo;
    }
}

/// <summary>The fields of a run job's case a kit uses (docs/worker-protocol.md, "run").</summary>
public sealed class CaseSettings {
    public readonly int SizeBytes;
    public readonly double DurationS, WarmupS, RatePerS, IntervalS;
    public readonly long Count, Burst;
    public readonly int Streams, Batch;
    public readonly bool Verify;

    public CaseSettings(Dictionary<string, object> c) {
        long size = Channel.Integer(c, "size_bytes", null);
        if (size < 8 || size > (1 << 30)) throw KitException.Protocol("case field 'size_bytes' is out of range (8 to 1 GiB)");
        SizeBytes = (int)size;
        DurationS = Channel.Number(c, "duration_s", 0.0);
        WarmupS = Channel.Number(c, "warmup_s", 0.0);
        Count = Channel.Integer(c, "count", 0L);
        long s = Channel.Integer(c, "streams", 1L);
        if (s < 1 || s > 20000) throw KitException.Protocol("case field 'streams' is out of range (1 to 20,000)");
        Streams = (int)s;
        RatePerS = Channel.Number(c, "rate_per_s", 0.0);
        Burst = Math.Max(1, Channel.Integer(c, "burst", 1L));
        Batch = (int)Math.Max(1, Math.Min(1 << 20, Channel.Integer(c, "batch", 1L)));
        Verify = Channel.Bool(c, "verify", false);
        IntervalS = Channel.Number(c, "interval_s", 0.0);
        if (Count < 0 || DurationS < 0 || WarmupS < 0 || RatePerS < 0 || IntervalS < 0)
            throw KitException.Protocol("case fields count, duration_s, warmup_s, rate_per_s and interval_s must not be negative");
        if ((long)SizeBytes * Batch > (1L << 30))
            throw KitException.Protocol("case fields size_bytes x batch are over 1 GiB");
    }
}
}
