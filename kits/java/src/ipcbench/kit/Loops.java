package ipcbench.kit;

import static ipcbench.kit.DataPlane.FLAG_END;
import static ipcbench.kit.DataPlane.FLAG_WARMUP;
import static ipcbench.kit.DataPlane.SEQUENCE_MASK;
import static ipcbench.kit.LoopResult.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * The timed loops: what a sender, receiver, pinger and ponger do between the clock reads, by
 * the rules of docs/worker-protocol.md ("The timed side"). The hot loops make the calls a
 * plain Java loop makes and no more: one write or read of a direct ByteBuffer a message, the
 * header put or got little-endian, the clock read every 16 small messages.
 */
final class Loops {
    private Loops() {}

    /** What a running stream shows the control thread (interval reports, sender counts). */
    static final class Progress {
        volatile long messages;
        volatile long expectedNext;
        volatile long peerSent = -1; // the sender's count, once the orchestrator passed it on
        volatile boolean finished;
        volatile LoopResult result;
        Runnable pollControl; // a single stream on the main thread polls the channel
    }

    /** One part of one stream: what the loops read of the run job. */
    static final class Job {
        final CaseSettings c;
        final boolean reliable;

        Job(CaseSettings c, boolean reliable) {
            this.c = c;
            this.reliable = reliable;
        }
    }

    static ByteBuffer message(Endpoint ep, int size) {
        ByteBuffer b = ep.arrays() ? ByteBuffer.allocate(size) : ByteBuffer.allocateDirect(size);
        return b.order(ByteOrder.LITTLE_ENDIAN);
    }

    static void waitUntil(long when) {
        long left = when - System.nanoTime();
        if (left > 100_000) LockSupport.parkNanos(left - 50_000);
        while (System.nanoTime() < when) Thread.onSpinWait();
    }

    private static LoopResult failed(LoopResult r, String what, Exception e) {
        if (e instanceof KitException) return r.fail(((KitException) e).status, what + ": " + e.getMessage());
        String text = String.valueOf(e.getMessage());
        int status = text.contains("Broken pipe") || text.contains("reset") ? KitException.E_CLOSED : KitException.E_SYSTEM;
        return r.fail(status, what + ": " + e);
    }

    // ---- sender ----

    static LoopResult sender(Endpoint ep, Job job, Progress progress) {
        CaseSettings c = job.c;
        boolean paced = c.ratePerS > 0, batched = !paced && c.batch > 1 && ep.stream();
        // Messages between two looks at the schedule: the --batch of one write; else the clock
        // stride (a count needs no clock: 1024, the progress cadence).
        DataPlane.SendSchedule schedule = new DataPlane.SendSchedule(
                c, batched ? c.batch : c.count > 0 ? 1024 : DataPlane.clockStride(c.sizeBytes));
        DataPlane.Pattern pattern = new DataPlane.Pattern(c.sizeBytes, DataPlane.patternOffset(paced));
        ByteBuffer buf = message(ep, c.sizeBytes);
        pattern.write(buf, 0, 0);
        LoopResult r = new LoopResult("send", ep.sendCall());
        try {
            r.counters[WARMUP] = warmup(ep, c, buf, pattern);
            Usage usage = new Usage();
            long start = System.nanoTime();
            schedule.startNs = start;
            long seq;
            if (paced) seq = pacedSends(ep, c, schedule, buf, pattern, progress);
            else if (batched) seq = batchedSends(ep, c, schedule, pattern, progress);
            else seq = plainSends(ep, c, schedule, buf, pattern, progress);
            r.endNs = System.nanoTime();
            r.firstNs = start;
            r.usage = usage.stop();
            r.counters[SENT] = seq;
            r.counters[BYTES_SENT] = seq * c.sizeBytes;
            for (int i = 0; i < DataPlane.endMarkers(job.reliable); i++) {
                buf.putLong(0, FLAG_END | seq);
                if (c.verify) pattern.write(buf, 0, seq);
                buf.clear();
                ep.send(buf);
            }
        } catch (KitException | IOException e) {
            return failed(r, "send", e);
        }
        return r;
    }

    private static long warmup(Endpoint ep, CaseSettings c, ByteBuffer buf, DataPlane.Pattern pattern)
            throws IOException, KitException {
        long warmupNs = (long) (c.warmupS * 1e9);
        if (warmupNs <= 0) return 0;
        int stride = DataPlane.clockStride(c.sizeBytes);
        long end = System.nanoTime() + warmupNs;
        long warm = 0;
        while (true) {
            buf.putLong(0, FLAG_WARMUP | warm);
            if (c.verify) pattern.write(buf, 0, warm);
            buf.clear();
            ep.send(buf);
            warm++;
            if (warm % stride == 0 && System.nanoTime() >= end) return warm;
        }
    }

    /** Unpaced, one message a call: the loop a plain program writes; the schedule asked every batch. */
    private static long plainSends(Endpoint ep, CaseSettings c, DataPlane.SendSchedule schedule, ByteBuffer buf,
                                   DataPlane.Pattern pattern, Progress progress) throws IOException, KitException {
        boolean verify = c.verify;
        long seq = 0;
        while (true) {
            DataPlane.Step step = schedule.next(seq, System.nanoTime(), 0);
            if (step.what == DataPlane.END) break;
            for (long stop = seq + step.count; seq < stop; seq++) {
                buf.putLong(0, seq);
                if (verify) pattern.write(buf, 0, seq);
                buf.clear();
                ep.send(buf);
            }
            progress.messages = seq;
        }
        return seq;
    }

    /** --batch N on a stream: N messages in one write (the schedule cuts the last by --count). */
    private static long batchedSends(Endpoint ep, CaseSettings c, DataPlane.SendSchedule schedule,
                                     DataPlane.Pattern pattern, Progress progress) throws IOException, KitException {
        int size = c.sizeBytes;
        ByteBuffer block = message(ep, size * c.batch);
        for (int i = 0; i < c.batch; i++) pattern.write(block, i * size, 0);
        long seq = 0;
        while (true) {
            DataPlane.Step step = schedule.next(seq, System.nanoTime(), 0);
            if (step.what == DataPlane.END) break;
            long n = step.count;
            for (int i = 0; i < n; i++) {
                block.putLong(i * size, seq + i);
                if (c.verify) pattern.write(block, i * size, seq + i);
            }
            block.clear().limit((int) n * size);
            ep.send(block);
            seq += n;
            progress.messages = seq;
        }
        return seq;
    }

    /** --rate: each message in its slot, the slot (not the send time) written at offset 8. */
    private static long pacedSends(Endpoint ep, CaseSettings c, DataPlane.SendSchedule schedule, ByteBuffer buf,
                                   DataPlane.Pattern pattern, Progress progress) throws IOException, KitException {
        long seq = 0;
        while (true) {
            DataPlane.Step step = schedule.next(seq, System.nanoTime(), 0);
            if (step.what == DataPlane.END) break;
            if (step.what == DataPlane.WAIT) {
                waitUntil(step.due);
                continue;
            }
            buf.putLong(0, seq);
            buf.putLong(DataPlane.TIMESTAMP_OFFSET, step.due);
            if (c.verify) pattern.write(buf, 0, seq);
            buf.clear();
            ep.send(buf);
            seq++;
            progress.messages = seq;
        }
        return seq;
    }

    // ---- receiver ----

    /** Whole messages: on a stream, reads until size bytes are in; else one datagram each. */
    static final class Reader {
        final Endpoint ep;
        final int size;
        final ByteBuffer buf;
        final boolean stream;

        Reader(Endpoint ep, int size) {
            this.ep = ep;
            this.size = size;
            this.stream = ep.stream();
            buf = message(ep, stream ? size : Math.max(size, 64));
        }

        /** The next message (valid until the next call), null when the peer closed. */
        ByteBuffer next(long timeoutNs) throws IOException, KitException, Endpoint.TimedOut {
            if (!stream) {
                while (true) {
                    buf.clear();
                    if (ep.recv(buf, timeoutNs) == size) return buf;
                }
            }
            buf.clear();
            if (ep.recv(buf, timeoutNs) < 0) return null;
            while (buf.hasRemaining()) // a message begun is finished
                if (ep.recv(buf, -1) < 0) return null;
            return buf;
        }
    }

    /** What a receive loop counted, whichever loop ran. */
    static final class Tally {
        final DataPlane.SequenceTracker tracker = new DataPlane.SequenceTracker();
        DataPlane.Histogram oneWay;
        long received, warm, corrupted, first, end;
        String endedBy = "";
    }

    /**
     * A reliable byte stream, unpaced: each message read straight into the buffer with the
     * channel's own read, the header got, counted. The loop a plain Java reader runs, plus the
     * header and the count.
     */
    private static void fastReceive(ReadableByteChannel ch, CaseSettings c, DataPlane.Pattern pattern, Tally t,
                                    Progress progress, Usage usage) throws IOException {
        int size = c.sizeBytes;
        boolean verify = c.verify;
        ByteBuffer buf = ByteBuffer.allocateDirect(size).order(ByteOrder.LITTLE_ENDIAN);
        long received = 0, warm = 0, corrupted = 0, expected = -1;
        DataPlane.SequenceTracker tracker = t.tracker;
        t.endedBy = "closed";
        while (true) {
            buf.clear();
            int n;
            do {
                n = read(ch, buf);
            } while (n >= 0 && buf.hasRemaining());
            if (n < 0) {
                t.end = received > 0 ? System.nanoTime() : 0;
                break;
            }
            long header = buf.getLong(0);
            if ((header >>> 62) != 0) {
                if ((header & FLAG_END) != 0) {
                    t.end = System.nanoTime();
                    t.endedBy = "end-marker";
                    break;
                }
                warm++;
                continue;
            }
            boolean fresh = true;
            if (received == 0) {
                t.first = System.nanoTime();
                usage.start();
                tracker.record(header);
                expected = header + 1;
            } else if (header == expected) {
                expected++;
            } else {
                tracker.expected = expected;
                fresh = tracker.record(header);
                expected = tracker.expected;
            }
            received++;
            if (verify && fresh && !pattern.matches(buf, 0, header)) corrupted++;
            progress.messages = received;
        }
        tracker.expected = Math.max(expected, 0);
        progress.expectedNext = tracker.expected;
        t.received = received;
        t.warm = warm;
        t.corrupted = corrupted;
    }

    private static int read(ReadableByteChannel ch, ByteBuffer buf) throws IOException {
        try {
            return ch.read(buf);
        } catch (IOException e) {
            if (String.valueOf(e.getMessage()).contains("reset")) return -1;
            throw e;
        }
    }

    /** Any transport: datagrams, unreliable (polled every 20 ms), paced (one-way delays). */
    private static void generalReceive(Endpoint ep, Job job, DataPlane.Pattern pattern, Tally t,
                                       Progress progress, Usage usage) throws IOException, KitException {
        CaseSettings c = job.c;
        Reader reader = new Reader(ep, c.sizeBytes);
        long timeout = job.reliable ? -1 : DataPlane.RECEIVER_QUIET_NS;
        DataPlane.SequenceTracker tracker = t.tracker;
        long last = 0;
        while (t.endedBy.isEmpty()) {
            ByteBuffer m;
            try {
                m = reader.next(timeout);
            } catch (Endpoint.TimedOut e) {
                if (progress.pollControl != null) progress.pollControl.run();
                if (progress.peerSent >= 0) {
                    t.endedBy = "sender-done";
                    t.end = last;
                }
                continue;
            }
            if (m == null) {
                t.endedBy = "closed";
                t.end = t.received > 0 ? System.nanoTime() : 0;
                break;
            }
            long header = m.getLong(0);
            if ((header & FLAG_END) != 0) {
                t.end = System.nanoTime();
                t.endedBy = "end-marker";
                break;
            }
            if ((header & FLAG_WARMUP) != 0) {
                t.warm++;
                continue;
            }
            if (t.received == 0) {
                t.first = System.nanoTime();
                usage.start();
            }
            if (t.oneWay != null || !job.reliable) last = System.nanoTime();
            t.received++;
            long seq = header & SEQUENCE_MASK;
            boolean fresh;
            if (seq == tracker.expected && tracker.any) {
                tracker.expected = seq + 1;
                fresh = true;
            } else {
                fresh = tracker.record(seq);
            }
            if (c.verify && fresh && !pattern.matches(m, 0, seq)) t.corrupted++;
            if (t.oneWay != null) t.oneWay.record(last - m.getLong(DataPlane.TIMESTAMP_OFFSET));
            progress.messages = t.received;
            progress.expectedNext = tracker.expected;
        }
    }

    static LoopResult receiver(Endpoint ep, Job job, Progress progress) {
        CaseSettings c = job.c;
        boolean paced = c.ratePerS > 0;
        DataPlane.Pattern pattern = new DataPlane.Pattern(c.sizeBytes, DataPlane.patternOffset(paced));
        LoopResult r = new LoopResult("receive", ep.recvCall());
        Tally t = new Tally();
        if (paced) t.oneWay = new DataPlane.Histogram();
        Usage usage = new Usage();
        ReadableByteChannel raw = ep.channel();
        try {
            if (job.reliable && ep.stream() && !paced && raw != null) fastReceive(raw, c, pattern, t, progress, usage);
            else generalReceive(ep, job, pattern, t, progress, usage);
        } catch (KitException | IOException e) {
            failed(r, "recv", e);
        }
        progress.messages = t.received;
        progress.expectedNext = t.tracker.expected;
        r.usage = usage.stop();
        r.counters[RECEIVED] = t.received;
        r.counters[BYTES_RECEIVED] = t.received * c.sizeBytes;
        r.counters[WARMUP] = t.warm;
        r.counters[DUPLICATES] = t.tracker.duplicates;
        r.counters[OUT_OF_ORDER] = t.tracker.outOfOrder;
        r.counters[BEYOND_WINDOW] = t.tracker.beyondWindow;
        r.counters[CORRUPTED] = t.corrupted;
        r.firstNs = t.first;
        r.endNs = t.received > 0 ? t.end : t.first;
        r.endedBy = t.endedBy;
        // The window runs from the first timed arrival to the end marker: `received` intervals;
        // ended by the last arrival it covers one fewer.
        boolean whole = t.endedBy.equals("end-marker") || t.endedBy.equals("closed");
        r.counters[COUNTED] = whole ? t.received : Math.max(0, t.received - 1);
        r.histogram = t.oneWay;
        return r;
    }

    // ---- latency ----

    static final int MATCHED = 0, MISMATCHED_PONG = 1, WARMUP_PONG = 2, CORRUPTED_PONG = 3, STALE_PONG = 4;

    static int judgePong(long ping, long pong, boolean reliable) {
        if (!reliable && (pong & DataPlane.FLAGS_MASK) == 0 && (ping & DataPlane.FLAGS_MASK) == 0
                && (pong & SEQUENCE_MASK) < (ping & SEQUENCE_MASK))
            return STALE_PONG;
        if ((ping & FLAG_WARMUP) != 0) return WARMUP_PONG;
        return (pong & SEQUENCE_MASK) == (ping & SEQUENCE_MASK) ? MATCHED : MISMATCHED_PONG;
    }

    /** One ping and its pong: a verdict; TimedOut when the pong was lost. */
    private static int roundTrip(Endpoint out, Reader reader, ByteBuffer buf, long header, Job job,
                                 DataPlane.Pattern pattern, long timeout, long[] stale)
            throws IOException, KitException, Endpoint.TimedOut {
        buf.putLong(0, header);
        if (job.c.verify) pattern.write(buf, 0, header & SEQUENCE_MASK);
        buf.clear();
        out.send(buf);
        while (true) {
            ByteBuffer m = reader.next(timeout);
            if (m == null) throw new KitException(KitException.E_CLOSED, "the ponger closed the connection");
            long pong = m.getLong(0);
            int verdict = judgePong(header, pong, job.reliable);
            if (verdict == STALE_PONG) {
                stale[0]++;
                continue;
            }
            if (job.c.verify && verdict == MATCHED && !pattern.matches(m, 0, pong & SEQUENCE_MASK)) return CORRUPTED_PONG;
            return verdict;
        }
    }

    static LoopResult pinger(Endpoint out, Endpoint in, Job job, Progress progress) {
        CaseSettings c = job.c;
        DataPlane.Pattern pattern = new DataPlane.Pattern(c.sizeBytes, DataPlane.HEADER_BYTES);
        ByteBuffer buf = message(out, c.sizeBytes);
        pattern.write(buf, 0, 0);
        Reader reader = new Reader(in, c.sizeBytes);
        long timeout = job.reliable ? -1 : DataPlane.LOST_PING_NS;
        LoopResult r = new LoopResult("ping", out.sendCall() + " -> " + in.recvCall());
        DataPlane.Histogram histogram = new DataPlane.Histogram();
        long[] stale = new long[1];
        long warm = 0, seq = 0, lost = 0, mismatched = 0, corrupted = 0;
        try {
            long warmEnd = System.nanoTime() + (long) (c.warmupS * 1e9);
            while (c.warmupS > 0 && System.nanoTime() < warmEnd) {
                try {
                    roundTrip(out, reader, buf, FLAG_WARMUP | warm, job, pattern, timeout, stale);
                    warm++;
                } catch (Endpoint.TimedOut e) {
                    // a lost warm-up ping: the next one
                }
            }
            Usage usage = new Usage();
            long start = System.nanoTime();
            long end = start + DataPlane.windowNs(c.durationS);
            long t = start;
            while (true) {
                long t0 = t;
                try {
                    int verdict = roundTrip(out, reader, buf, seq, job, pattern, timeout, stale);
                    t = System.nanoTime();
                    histogram.record(t - t0);
                    if (verdict == MISMATCHED_PONG) mismatched++;
                    else if (verdict == CORRUPTED_PONG) corrupted++;
                } catch (Endpoint.TimedOut e) {
                    t = System.nanoTime();
                    lost++;
                }
                seq++;
                progress.messages = seq;
                if (DataPlane.pingsDone(c.count, seq, t, end)) break;
            }
            r.endNs = System.nanoTime();
            r.firstNs = start;
            r.usage = usage.stop();
            for (int i = 0; i < DataPlane.endMarkers(job.reliable); i++) {
                buf.putLong(0, FLAG_END | seq);
                buf.clear();
                out.send(buf);
            }
        } catch (KitException | IOException e) {
            failed(r, "ping", e);
        }
        r.counters[ROUND_TRIPS] = histogram.count;
        r.counters[PINGS] = seq;
        r.counters[LOST] = lost;
        r.counters[MISMATCHED] = mismatched;
        r.counters[STALE] = stale[0];
        r.counters[CORRUPTED] = corrupted;
        r.counters[WARMUP] = warm;
        r.histogram = histogram;
        return r;
    }

    static LoopResult ponger(Endpoint in, Endpoint out, Job job, Progress progress) {
        int size = job.c.sizeBytes;
        Reader reader = new Reader(in, size);
        long timeout = job.reliable ? -1 : DataPlane.PONGER_SILENCE_NS;
        LoopResult r = new LoopResult("pong", in.recvCall() + " -> " + out.sendCall());
        Usage usage = new Usage();
        long start = System.nanoTime();
        boolean timed = false;
        long echoed = 0;
        try {
            while (true) {
                ByteBuffer m;
                try {
                    m = reader.next(timeout);
                } catch (Endpoint.TimedOut e) {
                    break; // the pinger's end markers may all be lost
                }
                if (m == null) break;
                int step = DataPlane.pongerStep(m.getLong(0), timed);
                if (step == DataPlane.PONG_END) break;
                if (step == DataPlane.ECHO_FIRST_TIMED) {
                    timed = true;
                    usage.start();
                    start = System.nanoTime();
                }
                m.position(0).limit(size);
                out.send(m);
                echoed++;
                progress.messages = echoed;
            }
        } catch (KitException | IOException e) {
            failed(r, "pong", e);
        }
        progress.messages = echoed;
        r.endNs = System.nanoTime();
        r.firstNs = start;
        r.usage = usage.stop();
        r.counters[ECHOED] = echoed;
        return r;
    }
}
