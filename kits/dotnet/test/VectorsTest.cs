// The shared vectors of protocol/vectors (docs/worker-protocol.md, "Shared vectors"): the tables
// the host's unit tests run, here against this kit's schedule, latency steps, histogram,
// pattern, sequence tracker and reader. A test runner from the SDK (or Mono) alone, compiled
// with the kit's sources and this file as the entry point (kits/dotnet/test/vectors.csproj.in;
// mcs -main:IpcBench.Kit.VectorsTest): VectorsTest VECTORS_DIR exits 1 and names each row that
// differs.
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;

namespace IpcBench.Kit {

static class VectorsTest {
    static int rows;
    static readonly List<string> failures = new List<string>();

    static void Check(bool ok, string what) {
        rows++;
        if (!ok) failures.Add(what);
    }

    static Dictionary<string, object> Map(object o) { return (Dictionary<string, object>)o; }
    static List<object> List(object o) { return (List<object>)o; }
    static long Num(Dictionary<string, object> m, string key) { return Convert.ToInt64(m[key]); }
    static double Real(Dictionary<string, object> m, string key) { return Convert.ToDouble(m[key]); }

    static long Header(object o) {
        var h = Map(o);
        long v = Num(h, "seq");
        if (h.ContainsKey("flags"))
            foreach (object f in List(h["flags"])) {
                if ((string)f == "warmup") v |= DataPlane.FlagWarmup;
                else if ((string)f == "end") v |= DataPlane.FlagEnd;
                else throw new ArgumentException("unknown flag " + f);
            }
        return v;
    }

    static void SendSchedule(Dictionary<string, object> v) {
        string[] names = { "send", "wait", "end" };
        foreach (object co in List(v["cases"])) {
            var c = Map(co);
            var input = Map(c["settings"]);
            var s = new DataPlane.SendSchedule(Num(input, "count"), Real(input, "rate_per_s"), Num(input, "burst"),
                                               Real(input, "duration_s"), Num(c, "batch"));
            s.StartNs = Num(c, "start_ns");
            foreach (object ro in List(c["steps"])) {
                var row = Map(ro);
                var got = s.Next(Num(row, "seq"), Num(row, "now_ns"), Num(c, "slot_offset_ns"));
                bool ok = names[(int)got.What] == (string)row["step"] &&
                          (!row.ContainsKey("count") || got.Count == Num(row, "count")) &&
                          (!row.ContainsKey("due_ns") || got.Due == Num(row, "due_ns"));
                Check(ok, c["name"] + ": " + Json.Write(row) + " got " + names[(int)got.What] + " " + got.Count + " " + got.Due);
            }
        }
    }

    static void LatencySteps(Dictionary<string, object> v) {
        var verdicts = new string[5];
        verdicts[Loops.MATCHED] = "matched";
        verdicts[Loops.MISMATCHED_PONG] = "mismatched";
        verdicts[Loops.WARMUP_PONG] = "warmup";
        verdicts[Loops.STALE_PONG] = "stale";
        foreach (object ro in List(v["judge_pong"])) {
            var r = Map(ro);
            int got = Loops.JudgePong(Header(r["ping"]), Header(r["pong"]), (bool)r["reliable"]);
            Check((string)r["verdict"] == verdicts[got], "judge_pong " + Json.Write(r) + " got " + verdicts[got]);
        }
        string[] steps = { "echo", "echo_first_timed", "end" };
        foreach (object ro in List(v["ponger_step"])) {
            var r = Map(ro);
            int got = DataPlane.PongerStep(Header(r["header"]), (bool)r["timed_already"]);
            Check((string)r["step"] == steps[got], "ponger_step " + Json.Write(r) + " got " + steps[got]);
        }
        foreach (object ro in List(v["pings_done"])) {
            var r = Map(ro);
            bool got = DataPlane.PingsDone(Num(r, "count"), Num(r, "seq"), Num(r, "now_ns"), Num(r, "window_end_ns"));
            Check(got == (bool)r["done"], "pings_done " + Json.Write(r));
        }
        foreach (object ro in List(v["end_markers"])) {
            var r = Map(ro);
            Check(DataPlane.EndMarkers((bool)r["reliable"]) == Num(r, "markers"), "end_markers " + Json.Write(r));
        }
        foreach (object ro in List(v["clock_stride"])) {
            var r = Map(ro);
            Check(DataPlane.ClockStride((int)Num(r, "size_bytes")) == Num(r, "stride"), "clock_stride " + Json.Write(r));
        }
    }

    static void HistogramAndPattern(Dictionary<string, object> v) {
        Check(Num(v, "sub_bits") == DataPlane.SubBits, "sub_bits");
        foreach (object ro in List(v["bucket_of"])) {
            var r = Map(ro);
            Check(DataPlane.BucketOf(Num(r, "value")) == Num(r, "bucket"), "bucket_of " + Json.Write(r));
        }
        foreach (object ro in List(v["histograms"])) {
            var r = Map(ro);
            var h = new DataPlane.Histogram();
            foreach (object x in List(r["values"])) h.Record(Convert.ToInt64(x));
            // The document's fields in the vectors' order, so the written forms compare.
            string got = Json.Write(h.ToJson()), want = Json.Write(r["document"]);
            Check(got == want, "histogram " + Json.Write(r["values"]) + ": " + got + ", want " + want);
        }
        foreach (object ro in List(v["patterns"])) {
            var r = Map(ro);
            int size = (int)Num(r, "size_bytes");
            int offset = Math.Min(size, DataPlane.PatternOffset((bool)r["paced"]));
            long seq = Num(r, "seq");
            var m = new byte[size];
            var p = new DataPlane.Pattern(size, offset);
            p.Write(m, 0, seq);
            var hex = new StringBuilder();
            for (int i = offset; i < size; i++) hex.Append(m[i].ToString("x2"));
            Check(hex.ToString() == (string)r["payload_hex"], "pattern " + Json.Write(r) + " got " + hex);
            Check(p.Matches(m, 0, seq), "pattern " + size + " seq " + seq + ": its own payload does not match");
            if (offset < size) {
                m[size - 1] ^= 1;
                Check(!p.Matches(m, 0, seq), "pattern " + size + " seq " + seq + ": a corrupted byte matches");
            }
        }
    }

    static void SequenceTracker(Dictionary<string, object> v) {
        Check(Num(v, "window") == DataPlane.SequenceTracker.Window, "window");
        foreach (object co in List(v["cases"])) {
            var c = Map(co);
            var t = new DataPlane.SequenceTracker();
            var fresh = new List<string>();
            foreach (object s in List(c["arrivals"])) fresh.Add(t.Record(Convert.ToInt64(s)) ? "true" : "false");
            bool ok = string.Join(",", fresh) == Json.Write(c["fresh"]).Trim('[', ']') &&
                      t.Duplicates == Num(c, "duplicates") && t.OutOfOrder == Num(c, "out_of_order") &&
                      t.BeyondWindow == Num(c, "beyond_window") && t.Expected == Num(c, "highest_plus_one");
            Check(ok, c["name"] + ": fresh " + string.Join(",", fresh) + " dup " + t.Duplicates + " ooo " + t.OutOfOrder +
                      " beyond " + t.BeyondWindow + " highest+1 " + t.Expected);
        }
    }

    /// <summary>A byte stream handed over in pieces: a read takes at most the rest of a piece.</summary>
    sealed class Pieces : Endpoint {
        readonly byte[] data;
        readonly List<long> reads = new List<long>();
        int at;

        public Pieces(byte[] data, List<object> pieces) {
            this.data = data;
            foreach (object o in pieces) reads.Add(Convert.ToInt64(o));
        }

        public override bool Stream { get { return true; } }
        public override string SendCall { get { return ""; } }
        public override string RecvCall { get { return ""; } }
        public override string Export() { return ""; }
        public override void Connect(long timeoutNs) {}
        public override void Send(byte[] buf, int offset, int count) {}
        public override void Close() {}

        public override int Recv(byte[] buf, int offset, int count, long timeoutNs) {
            while (reads.Count > 0 && reads[0] == 0) reads.RemoveAt(0);
            if (reads.Count == 0) return -1;
            int n = (int)Math.Min(count, reads[0]);
            Buffer.BlockCopy(data, at, buf, offset, n);
            reads[0] -= n;
            at += n;
            return n;
        }
    }

    static void Reassembly(Dictionary<string, object> v) {
        foreach (object co in List(v["cases"])) {
            var c = Map(co);
            int size = (int)Num(c, "size_bytes");
            var data = new byte[Num(c, "stream_bytes")];
            for (int i = 0; i < data.Length; i++) data[i] = (byte)(i + 1);
            var reader = new Loops.Reader(new Pieces(data, List(c["reads"])), size);
            var firsts = new List<object>();
            bool bytesOk = true;
            for (int k = 0; k <= Num(c, "messages"); k++) {
                if (!reader.Next(-1)) break;
                for (int i = 0; i < size; i++) bytesOk &= reader.Buf[i] == data[k * size + i];
                firsts.Add((long)reader.Buf[0]);
            }
            Check(bytesOk && Json.Write(firsts) == Json.Write(c["first_bytes"]),
                  c["name"] + ": first bytes " + Json.Write(firsts) + (bytesOk ? "" : ", a byte not the stream's"));
        }
    }

    static Dictionary<string, object> Load(string dir, string name) {
        return Map(Json.Parse(File.ReadAllText(Path.Combine(dir, name))));
    }

    static int Main(string[] args) {
        string dir = args.Length > 0 ? args[0] : "protocol/vectors";
        SendSchedule(Load(dir, "send_schedule.json"));
        LatencySteps(Load(dir, "latency_steps.json"));
        HistogramAndPattern(Load(dir, "histogram_and_pattern.json"));
        SequenceTracker(Load(dir, "sequence_tracker.json"));
        Reassembly(Load(dir, "reassembly.json"));
        foreach (string f in failures) Console.WriteLine("FAIL " + f);
        Console.WriteLine((rows - failures.Count) + " of " + rows + " rows of " + dir + " agree with the C# kit on " +
                          (Type.GetType("Mono.Runtime") != null ? "Mono" : ".NET " + Environment.Version));
        return failures.Count == 0 && rows > 0 ? 0 : 1;
    }
}
}
