package ipcbench.kit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The shared vectors of protocol/vectors (docs/worker-protocol.md, "Shared vectors"): the tables
 * the host's unit tests run, here against this kit's schedule, latency steps, histogram, pattern,
 * sequence tracker and reader. A test runner from the JDK alone: java -cp KIT_JAR:THIS
 * ipcbench.kit.VectorsTest VECTORS_DIR; exits 1 and names each row that differs.
 */
public final class VectorsTest {
    private static int rows;
    private static final List<String> failures = new ArrayList<>();

    private static void check(boolean ok, String what) {
        rows++;
        if (!ok) failures.add(what);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    private static long num(Map<String, Object> m, String key) {
        return ((Number) m.get(key)).longValue();
    }

    private static long header(Object o) {
        Map<String, Object> h = map(o);
        long v = num(h, "seq");
        for (Object f : h.containsKey("flags") ? list(h.get("flags")) : List.of()) {
            if (f.equals("warmup")) v |= DataPlane.FLAG_WARMUP;
            else if (f.equals("end")) v |= DataPlane.FLAG_END;
            else throw new IllegalArgumentException("unknown flag " + f);
        }
        return v;
    }

    private static void sendSchedule(Map<String, Object> v) {
        String[] names = {"send", "wait", "end"};
        for (Object co : list(v.get("cases"))) {
            Map<String, Object> c = map(co), in = map(c.get("settings"));
            DataPlane.SendSchedule s = new DataPlane.SendSchedule(num(in, "count"),
                    ((Number) in.get("rate_per_s")).doubleValue(), num(in, "burst"),
                    ((Number) in.get("duration_s")).doubleValue(), num(c, "batch"));
            s.startNs = num(c, "start_ns");
            for (Object ro : list(c.get("steps"))) {
                Map<String, Object> row = map(ro);
                DataPlane.Step got = s.next(num(row, "seq"), num(row, "now_ns"), num(c, "slot_offset_ns"));
                boolean ok = names[got.what].equals(row.get("step"))
                        && (!row.containsKey("count") || got.count == num(row, "count"))
                        && (!row.containsKey("due_ns") || got.due == num(row, "due_ns"));
                check(ok, c.get("name") + ": " + Json.write(row) + " got " + names[got.what] + " "
                        + got.count + " " + got.due);
            }
        }
    }

    private static void latencySteps(Map<String, Object> v) {
        String[] verdicts = new String[5];
        verdicts[Loops.MATCHED] = "matched";
        verdicts[Loops.MISMATCHED_PONG] = "mismatched";
        verdicts[Loops.WARMUP_PONG] = "warmup";
        verdicts[Loops.STALE_PONG] = "stale";
        for (Object ro : list(v.get("judge_pong"))) {
            Map<String, Object> r = map(ro);
            int got = Loops.judgePong(header(r.get("ping")), header(r.get("pong")), (Boolean) r.get("reliable"));
            check(r.get("verdict").equals(verdicts[got]), "judge_pong " + Json.write(r) + " got " + verdicts[got]);
        }
        String[] steps = {"echo", "echo_first_timed", "end"};
        for (Object ro : list(v.get("ponger_step"))) {
            Map<String, Object> r = map(ro);
            int got = DataPlane.pongerStep(header(r.get("header")), (Boolean) r.get("timed_already"));
            check(r.get("step").equals(steps[got]), "ponger_step " + Json.write(r) + " got " + steps[got]);
        }
        for (Object ro : list(v.get("pings_done"))) {
            Map<String, Object> r = map(ro);
            boolean got = DataPlane.pingsDone(num(r, "count"), num(r, "seq"), num(r, "now_ns"), num(r, "window_end_ns"));
            check(got == (Boolean) r.get("done"), "pings_done " + Json.write(r));
        }
        for (Object ro : list(v.get("end_markers"))) {
            Map<String, Object> r = map(ro);
            check(DataPlane.endMarkers((Boolean) r.get("reliable")) == num(r, "markers"), "end_markers " + Json.write(r));
        }
        for (Object ro : list(v.get("clock_stride"))) {
            Map<String, Object> r = map(ro);
            check(DataPlane.clockStride((int) num(r, "size_bytes")) == num(r, "stride"), "clock_stride " + Json.write(r));
        }
    }

    private static void histogramAndPattern(Map<String, Object> v) {
        check(num(v, "sub_bits") == DataPlane.SUB_BITS, "sub_bits");
        for (Object ro : list(v.get("bucket_of"))) {
            Map<String, Object> r = map(ro);
            check(DataPlane.bucketOf(num(r, "value")) == num(r, "bucket"), "bucket_of " + Json.write(r));
        }
        for (Object ro : list(v.get("histograms"))) {
            Map<String, Object> r = map(ro);
            DataPlane.Histogram h = new DataPlane.Histogram();
            for (Object x : list(r.get("values"))) h.record(((Number) x).longValue());
            Object got = Json.parse(Json.write(h.toJson()));
            check(got.equals(r.get("document")), "histogram " + Json.write(r) + " got " + Json.write(got));
        }
        for (Object ro : list(v.get("patterns"))) {
            Map<String, Object> r = map(ro);
            int size = (int) num(r, "size_bytes");
            int offset = Math.min(size, DataPlane.patternOffset((Boolean) r.get("paced")));
            long seq = num(r, "seq");
            ByteBuffer m = ByteBuffer.allocate(size);
            DataPlane.Pattern p = new DataPlane.Pattern(size, offset);
            p.write(m, 0, seq);
            StringBuilder hex = new StringBuilder();
            for (int i = offset; i < size; i++) hex.append(String.format("%02x", m.get(i) & 0xff));
            check(hex.toString().equals(r.get("payload_hex")), "pattern " + Json.write(r) + " got " + hex);
            check(p.matches(m, 0, seq), "pattern " + size + " seq " + seq + ": its own payload does not match");
            if (offset < size) {
                m.put(size - 1, (byte) (m.get(size - 1) ^ 1));
                check(!p.matches(m, 0, seq), "pattern " + size + " seq " + seq + ": a corrupted byte matches");
            }
        }
    }

    private static void sequenceTracker(Map<String, Object> v) {
        check(num(v, "window") == DataPlane.SequenceTracker.WINDOW, "window");
        for (Object co : list(v.get("cases"))) {
            Map<String, Object> c = map(co);
            DataPlane.SequenceTracker t = new DataPlane.SequenceTracker();
            List<Object> fresh = new ArrayList<>();
            for (Object s : list(c.get("arrivals"))) fresh.add(t.record(((Number) s).longValue()));
            boolean ok = fresh.equals(c.get("fresh")) && t.duplicates == num(c, "duplicates")
                    && t.outOfOrder == num(c, "out_of_order") && t.beyondWindow == num(c, "beyond_window")
                    && t.expected == num(c, "highest_plus_one");
            check(ok, c.get("name") + ": fresh " + fresh + " dup " + t.duplicates + " ooo " + t.outOfOrder
                    + " beyond " + t.beyondWindow + " highest+1 " + t.expected);
        }
    }

    /** A byte stream handed over in pieces: a read takes at most the rest of a piece. */
    static final class Pieces extends Endpoint {
        final byte[] data;
        final List<Long> reads = new ArrayList<>();
        int at;

        Pieces(byte[] data, List<Object> pieces) {
            this.data = data;
            for (Object o : pieces) reads.add(((Number) o).longValue());
        }

        @Override public boolean stream() { return true; }
        @Override public String sendCall() { return ""; }
        @Override public String recvCall() { return ""; }
        @Override public String export() { return ""; }
        @Override public void connect(long timeoutNs) {}
        @Override public void send(ByteBuffer buf) {}
        @Override public void close() {}

        @Override
        public int recv(ByteBuffer buf, long timeoutNs) {
            while (!reads.isEmpty() && reads.get(0) == 0) reads.remove(0);
            if (reads.isEmpty()) return -1;
            int n = (int) Math.min(buf.remaining(), reads.get(0));
            buf.put(data, at, n);
            reads.set(0, reads.get(0) - n);
            at += n;
            return n;
        }
    }

    private static void reassembly(Map<String, Object> v) throws IOException, KitException, Endpoint.TimedOut {
        for (Object co : list(v.get("cases"))) {
            Map<String, Object> c = map(co);
            int size = (int) num(c, "size_bytes");
            byte[] data = new byte[(int) num(c, "stream_bytes")];
            for (int i = 0; i < data.length; i++) data[i] = (byte) (i + 1);
            Loops.Reader reader = new Loops.Reader(new Pieces(data, list(c.get("reads"))), size);
            List<Object> firsts = new ArrayList<>();
            boolean bytesOk = true;
            for (int k = 0; k <= num(c, "messages"); k++) {
                ByteBuffer m = reader.next(-1);
                if (m == null) break;
                for (int i = 0; i < size; i++) bytesOk &= m.get(i) == data[k * size + i];
                firsts.add((long) (m.get(0) & 0xff));
            }
            check(bytesOk && firsts.equals(c.get("first_bytes")), c.get("name") + ": first bytes " + firsts
                    + (bytesOk ? "" : ", a byte not the stream's"));
        }
    }

    private static Map<String, Object> load(Path dir, String name) throws IOException {
        return map(Json.parse(Files.readString(dir.resolve(name))));
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args.length > 0 ? args[0] : "protocol/vectors");
        sendSchedule(load(dir, "send_schedule.json"));
        latencySteps(load(dir, "latency_steps.json"));
        histogramAndPattern(load(dir, "histogram_and_pattern.json"));
        sequenceTracker(load(dir, "sequence_tracker.json"));
        reassembly(load(dir, "reassembly.json"));
        for (String f : failures) System.out.println("FAIL " + f);
        System.out.println((rows - failures.size()) + " of " + rows + " rows of " + dir + " agree with the Java kit");
        System.exit(failures.isEmpty() && rows > 0 ? 0 : 1);
    }
}
