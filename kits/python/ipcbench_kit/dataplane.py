"""The data plane of docs/worker-protocol.md ("Data plane"): what travels in every message.

Message layout, little-endian whatever the machine:
  [0, 8)    sequence number (low 56 bits) and flags (bit 62 warm-up, bit 63 end marker)
  [8, 16)   paced runs only: the time the message was scheduled to be sent, CLOCK_MONOTONIC ns
  [8 or 16, size)  the payload pattern, shifted by the sequence number
"""

import math
import struct

FLAG_WARMUP = 1 << 62
FLAG_END = 1 << 63
SEQUENCE_MASK = (1 << 56) - 1
FLAGS_MASK = ~SEQUENCE_MASK & ((1 << 64) - 1)
HEADER_BYTES = 8
TIMESTAMP_OFFSET = 8

U64 = struct.Struct("<Q")
PATTERN_PERIOD = 251

# Unreliable transports (udp.inet): timing rules in nanoseconds.
LOST_PING_NS = 200_000_000
PONGER_SILENCE_NS = 2_000_000_000
RECEIVER_QUIET_NS = 20_000_000


def end_markers(reliable):
    return 1 if reliable else 3


def clock_stride(size):
    """Unpaced small messages look at the clock every 16 sends only."""
    return 1 if size >= 4096 else 16


def pattern_offset(paced):
    return TIMESTAMP_OFFSET + 8 if paced else HEADER_BYTES


class Pattern:
    """Byte i of the table is (i * 131 + 7) & 0xff; message `seq` carries the table from
    seq % 251 on, after the header (and the timestamp when paced)."""

    def __init__(self, size, offset):
        self.offset = min(offset, size)
        self.length = size - self.offset
        table = bytes(((i * 131 + 7) & 0xFF) for i in range(self.length + PATTERN_PERIOD))
        self.table = memoryview(table)

    def write(self, buf, seq):
        if self.length:
            k = seq % PATTERN_PERIOD
            buf[self.offset:] = self.table[k:k + self.length]

    def matches(self, buf, seq):
        if not self.length:
            return True
        k = seq % PATTERN_PERIOD
        return buf[self.offset:self.offset + self.length] == self.table[k:k + self.length]


SUB_BITS = 8
SUB_COUNT = 1 << SUB_BITS
BUCKETS = SUB_COUNT * (64 - SUB_BITS + 1)


def bucket_of(value):
    """The log-linear bucket of a value in ns: exact below 256, then 256 buckets per power
    of two (docs/worker-protocol.md, "Histograms")."""
    if value < SUB_COUNT:
        return value
    shift = value.bit_length() - 1 - SUB_BITS
    return (shift + 1) * SUB_COUNT + (value >> shift) - SUB_COUNT


class Histogram:
    def __init__(self):
        self.counts = {}
        self.count = 0
        self.sum = 0
        self.min = None
        self.max = 0

    def record(self, value):
        """bucket_of inlined: it runs between a pinger's round trips, inside the next one's
        time."""
        if value < SUB_COUNT:
            if value < 0:
                value = 0
            b = value
        else:
            shift = value.bit_length() - 1 - SUB_BITS
            b = (shift + 1) * SUB_COUNT + (value >> shift) - SUB_COUNT
        counts = self.counts
        counts[b] = counts.get(b, 0) + 1
        self.count += 1
        self.sum += value
        if value > self.max:
            self.max = value
        if self.min is None or value < self.min:
            self.min = value

    def merge(self, other):
        for b, c in other.counts.items():
            self.counts[b] = self.counts.get(b, 0) + c
        self.count += other.count
        self.sum += other.sum
        if other.min is not None and (self.min is None or other.min < self.min):
            self.min = other.min
        self.max = max(self.max, other.max)

    def to_json(self):
        return {
            "buckets": [[b, self.counts[b]] for b in sorted(self.counts)],
            "count": self.count,
            "sum": self.sum,
            "min": self.min if self.min is not None else 0,
            "max": self.max,
            "sub_bits": SUB_BITS,
        }


class SequenceTracker:
    """First arrivals, duplicates and out-of-order arrivals over a window of 65,536 sequence
    numbers below the highest seen (the native tracker's rules). In order is the fast path:
    the caller checks `seq == tracker.expected` itself and calls in_order()."""

    WINDOW = 1 << 16

    def __init__(self):
        self.expected = 0  # highest seen + 1
        self.any = False
        self.missing = set()  # numbers below the highest not seen yet, within the window
        self.duplicates = 0
        self.out_of_order = 0
        self.beyond_window = 0

    def _unseen_below(self, seq):
        """The numbers within the window below seq, not seen yet (a first arrival, or a gap
        wider than the window)."""
        self.missing = set(range(max(0, seq - self.WINDOW + 1), seq))

    def record(self, seq):
        """Returns False for a duplicate."""
        if not self.any:
            self.any = True
            self.expected = seq + 1
            if seq:
                self._unseen_below(seq)
            return True
        if seq >= self.expected:
            gap = seq - self.expected
            if gap >= self.WINDOW:
                self._unseen_below(seq)
            elif gap:
                self.missing.update(range(self.expected, seq))
                if len(self.missing) > 2 * self.WINDOW:
                    floor = seq - self.WINDOW
                    self.missing = {s for s in self.missing if s > floor}
            self.expected = seq + 1
            return True
        if self.expected - 1 - seq >= self.WINDOW:
            self.beyond_window += 1
            self.out_of_order += 1
            return True
        if seq in self.missing:
            self.missing.discard(seq)
            self.out_of_order += 1
            return True
        self.duplicates += 1
        return False


def window_ns(seconds):
    """A window in seconds as ns, rounded to the nearest (2.01 s is 2010000000 ns)."""
    return int(math.floor(seconds * 1e9 + 0.5))


SEND, WAIT, END = "send", "wait", "end"


class SendSchedule:
    """The schedule of one sending stream (the host's timing::send_schedule; tested by
    protocol/vectors/send_schedule.json). Unpaced: batches of up to `batch` messages until the
    count or the window's end, a count cutting the last batch. Paced (--rate): each message has
    a slot, a --burst of messages shares the slot of its first, a slot is due however late the
    sender is, and the window still ends on time."""

    def __init__(self, settings, batch=1):
        self.count = settings["count"]
        rate = settings["rate_per_s"]
        self.period_ns = 1e9 / rate if rate > 0 else 0.0
        self.burst = max(1, settings["burst"])
        self.batch = max(1, batch)
        self.duration_ns = window_ns(settings["duration_s"])
        self.start_ns = 0

    def paced(self):
        return self.period_ns > 0

    def due(self, seq, offset_ns=0):
        slot = seq - seq % self.burst
        return self.start_ns + offset_ns + int(slot * self.period_ns)

    def window_end(self):
        return self.start_ns + self.duration_ns

    def next(self, seq, now, offset_ns=0):
        """(SEND, messages, due) | (WAIT, 0, until) | (END, 0, 0) after `seq` timed messages."""
        count = self.count
        if (seq >= count) if count else (now >= self.start_ns + self.duration_ns):
            return END, 0, 0
        if not self.period_ns:
            return SEND, min(self.batch, count - seq) if count else self.batch, 0
        due = self.due(seq, offset_ns)
        if not count and due >= self.window_end():
            return END, 0, 0
        if due > now:
            return WAIT, 0, due
        return SEND, 1, due


def pings_done(count, seq, now, window_end):
    """Whether a pinger's timed part is over after `seq` round trips (lost ones included)."""
    return seq >= count if count else now >= window_end


def judge_pong(ping, pong, reliable):
    """What a pong means for the ping out: stale, warmup, matched or mismatched."""
    if (not reliable and not pong & FLAGS_MASK and not ping & FLAGS_MASK
            and (pong & SEQUENCE_MASK) < (ping & SEQUENCE_MASK)):
        return "stale"
    if ping & FLAG_WARMUP:
        return "warmup"
    return "matched" if (pong & SEQUENCE_MASK) == (ping & SEQUENCE_MASK) else "mismatched"


def ponger_step(header, timed_already):
    """echo, echo_first_timed (the ponger's window opens) or end (the pinger's end marker)."""
    if header & FLAG_END:
        return "end"
    if not timed_already and not header & FLAG_WARMUP:
        return "echo_first_timed"
    return "echo"
