package ipcbench.kit;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The data plane of docs/worker-protocol.md ("Data plane"): what travels in every message.
 * Little-endian whatever the machine: [0, 8) the sequence number (low 56 bits) and flags (bit 62
 * warm-up, bit 63 end marker); [8, 16) paced runs only: the time the message was due,
 * CLOCK_MONOTONIC ns (System.nanoTime on Linux); then the payload pattern.
 */
public final class DataPlane {
    public static final long FLAG_WARMUP = 1L << 62;
    public static final long FLAG_END = 1L << 63;
    public static final long SEQUENCE_MASK = (1L << 56) - 1;
    public static final long FLAGS_MASK = ~SEQUENCE_MASK;
    public static final int HEADER_BYTES = 8;
    public static final int TIMESTAMP_OFFSET = 8;
    public static final int PATTERN_PERIOD = 251;

    // Unreliable transports (udp.inet): timing rules, ns.
    public static final long LOST_PING_NS = 200_000_000L;
    public static final long PONGER_SILENCE_NS = 2_000_000_000L;
    public static final long RECEIVER_QUIET_NS = 20_000_000L;

    private DataPlane() {}

    public static int endMarkers(boolean reliable) {
        return reliable ? 1 : 3;
    }

    /** Unpaced small messages look at the clock every 16 sends only. */
    public static int clockStride(int size) {
        return size >= 4096 ? 1 : 16;
    }

    public static int patternOffset(boolean paced) {
        return paced ? TIMESTAMP_OFFSET + 8 : HEADER_BYTES;
    }

    /**
     * Byte i of the table is (i * 131 + 7) & 0xff; message seq carries the table from seq % 251
     * on, after the header (and the timestamp when paced).
     */
    public static final class Pattern {
        final int offset;
        final int length;
        final ByteBuffer table;

        public Pattern(int size, int offset) {
            this.offset = Math.min(offset, size);
            this.length = size - this.offset;
            table = ByteBuffer.allocateDirect(length + PATTERN_PERIOD);
            for (int i = 0; i < length + PATTERN_PERIOD; i++) table.put(i, (byte) (i * 131 + 7));
        }

        public void write(ByteBuffer buf, int at, long seq) {
            if (length == 0) return;
            int k = (int) Long.remainderUnsigned(seq, PATTERN_PERIOD);
            buf.put(at + offset, table, k, length);
        }

        public boolean matches(ByteBuffer buf, int at, long seq) {
            if (length == 0) return true;
            int k = (int) Long.remainderUnsigned(seq, PATTERN_PERIOD);
            return buf.slice(at + offset, length).equals(table.slice(k, length));
        }
    }

    public static final int SUB_BITS = 8;
    static final int SUB_COUNT = 1 << SUB_BITS;
    static final int BUCKETS = SUB_COUNT * (64 - SUB_BITS + 1);

    /** The log-linear bucket of a value in ns: exact below 256, then 256 a power of two. */
    public static int bucketOf(long value) {
        if (value < SUB_COUNT) return (int) value;
        int shift = 63 - Long.numberOfLeadingZeros(value) - SUB_BITS;
        return (int) ((shift + 1) * SUB_COUNT + (value >>> shift) - SUB_COUNT);
    }

    public static final class Histogram {
        final long[] counts = new long[BUCKETS];
        long count;
        long sum;
        long min = Long.MAX_VALUE;
        long max;

        public void record(long value) {
            if (value < 0) value = 0;
            counts[bucketOf(value)]++;
            count++;
            sum += value;
            if (value < min) min = value;
            if (value > max) max = value;
        }

        public void merge(Histogram other) {
            for (int b = 0; b < BUCKETS; b++) counts[b] += other.counts[b];
            count += other.count;
            sum += other.sum;
            min = Math.min(min, other.min);
            max = Math.max(max, other.max);
        }

        public Map<String, Object> toJson() {
            List<Object> buckets = new ArrayList<>();
            for (int b = 0; b < BUCKETS; b++)
                if (counts[b] != 0) buckets.add(new long[] {b, counts[b]});
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("buckets", buckets);
            out.put("count", count);
            out.put("sum", sum);
            out.put("min", count == 0 ? 0L : min);
            out.put("max", max);
            out.put("sub_bits", (long) SUB_BITS);
            return out;
        }
    }

    /**
     * First arrivals, duplicates and out-of-order arrivals over a window of 65,536 sequence
     * numbers below the highest seen (the native tracker's rules). In order is the fast path:
     * the caller checks {@code seq == expected} itself.
     */
    public static final class SequenceTracker {
        static final long WINDOW = 1 << 16;
        long expected; // highest seen + 1
        boolean any;
        final HashSet<Long> missing = new HashSet<>();
        long duplicates;
        long outOfOrder;
        long beyondWindow;

        /** The numbers within the window below seq are not seen yet (a first arrival, a wide gap). */
        private void unseenBelow(long seq) {
            missing.clear();
            for (long s = Math.max(0, seq - WINDOW + 1); s < seq; s++) missing.add(s);
        }

        /** False for a duplicate. */
        public boolean record(long seq) {
            if (!any) {
                any = true;
                expected = seq + 1;
                unseenBelow(seq);
                return true;
            }
            if (seq >= expected) {
                long gap = seq - expected;
                if (gap >= WINDOW) {
                    unseenBelow(seq);
                } else {
                    for (long s = expected; s < seq; s++) missing.add(s);
                    if (missing.size() > 2 * WINDOW) {
                        long floor = seq - WINDOW;
                        missing.removeIf(s -> s <= floor);
                    }
                }
                expected = seq + 1;
                return true;
            }
            if (expected - 1 - seq >= WINDOW) {
                beyondWindow++;
                outOfOrder++;
                return true;
            }
            if (missing.remove(seq)) {
                outOfOrder++;
                return true;
            }
            duplicates++;
            return false;
        }
    }

    /** A window in seconds as ns, rounded to the nearest (2.01 s is 2010000000 ns). */
    public static long windowNs(double seconds) {
        return Math.round(seconds * 1e9);
    }

    /** What a timed sender does next: SEND count messages (paced: one, due), WAIT until due, or END. */
    public static final int SEND = 0, WAIT = 1, END = 2;

    public static final class Step {
        public int what;
        public long count;
        public long due;
    }

    /**
     * The schedule of one sending stream (the host's timing::send_schedule; tested by
     * protocol/vectors/send_schedule.json). Unpaced: batches of up to {@code batch} messages
     * until the count or the window's end, a count cutting the last batch. Paced (--rate): each
     * message has a slot, a --burst shares the slot of its first, a slot is due however late the
     * sender is, and the window still ends on time.
     */
    public static final class SendSchedule {
        final long count;
        final long batch;
        final double periodNs;
        final long burst;
        final long durationNs;
        long startNs;
        private final Step step = new Step();

        public SendSchedule(long count, double ratePerS, long burst, double durationS, long batch) {
            this.count = count;
            this.batch = Math.max(1, batch);
            periodNs = ratePerS > 0 ? 1e9 / ratePerS : 0;
            this.burst = Math.max(1, burst);
            durationNs = windowNs(durationS);
        }

        public SendSchedule(CaseSettings c, long batch) {
            this(c.count, c.ratePerS, c.burst, c.durationS, batch);
        }

        public boolean paced() {
            return periodNs > 0;
        }

        public long due(long seq, long offsetNs) {
            long slot = seq - seq % burst;
            return startNs + offsetNs + (long) (slot * periodNs);
        }

        public long windowEnd() {
            return startNs + durationNs;
        }

        /** What comes after {@code seq} timed messages at {@code now} (one Step, reused). */
        public Step next(long seq, long now, long offsetNs) {
            step.count = 0;
            step.due = 0;
            step.what = END;
            if (count > 0 ? seq >= count : now >= windowEnd()) return step;
            if (!paced()) {
                step.what = SEND;
                step.count = count > 0 ? Math.min(batch, count - seq) : batch;
                return step;
            }
            long due = due(seq, offsetNs);
            if (count == 0 && due >= windowEnd()) return step;
            step.due = due;
            step.what = due > now ? WAIT : SEND;
            step.count = due > now ? 0 : 1;
            return step;
        }
    }

    /** Whether a pinger's timed part is over after {@code seq} round trips (lost ones included). */
    public static boolean pingsDone(long count, long seq, long now, long windowEnd) {
        return count > 0 ? seq >= count : now >= windowEnd;
    }

    /** What a ponger does with a ping: echo it, echo it and open its window, or end. */
    public static final int ECHO = 0, ECHO_FIRST_TIMED = 1, PONG_END = 2;

    public static int pongerStep(long header, boolean timedAlready) {
        if ((header & FLAG_END) != 0) return PONG_END;
        if (!timedAlready && (header & FLAG_WARMUP) == 0) return ECHO_FIRST_TIMED;
        return ECHO;
    }
}
