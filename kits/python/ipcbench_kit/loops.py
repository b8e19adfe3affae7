"""The timed loops: what a sender, receiver, pinger and ponger do between the clock reads, on
one Endpoint, by the rules of docs/worker-protocol.md ("The timed side"). The hot loops do
what a plain Python loop making the same calls would do, and no more: one call per message,
a header written with struct (read as a cast u64 where it can be), the clock read every
16 small messages."""

import resource
import sys
import threading
import time

from . import dataplane as dp
from .control import E_CLOSED, E_INTERNAL, E_TIMEOUT, KitError

now_ns = time.monotonic_ns  # CLOCK_MONOTONIC on Linux: the clock the host and plugins use
U64 = dp.U64


class Progress:
    """What a running stream shows the control thread (interval reports, sender counts)."""

    def __init__(self):
        self.messages = 0
        self.expected_next = 0
        self.peer_sent = -1  # the sender's count, once the orchestrator passed it on
        self.finished = False
        self.result = None
        self.poll_control = None  # a single stream on the main thread polls the channel


def cpu_now():
    """The CPU this thread runs on, from /proc/thread-self/stat (field 39)."""
    try:
        with open("/proc/thread-self/stat", "rb") as f:
            text = f.read()
        return int(text[text.rindex(b")") + 2:].split()[36])
    except (OSError, ValueError, IndexError):
        return -1


class Usage:
    """The calling thread's CPU between start() and stop(), and the CPUs it was seen on."""

    def __init__(self):
        self.before = resource.getrusage(resource.RUSAGE_THREAD)
        self.cpus = 0
        self._see()

    def _see(self):
        cpu = cpu_now()
        if 0 <= cpu < 64:
            self.cpus |= 1 << cpu

    def start(self):
        self.before = resource.getrusage(resource.RUSAGE_THREAD)
        self._see()

    def stop(self):
        after = resource.getrusage(resource.RUSAGE_THREAD)
        self._see()
        b = self.before
        return {"cpu_user_s": max(0.0, after.ru_utime - b.ru_utime),
                "cpu_sys_s": max(0.0, after.ru_stime - b.ru_stime),
                "max_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                "voluntary_ctx_switches": max(0, after.ru_nvcsw - b.ru_nvcsw),
                "involuntary_ctx_switches": max(0, after.ru_nivcsw - b.ru_nivcsw),
                "cpus_seen": self.cpus}


def blank_result(part, path):
    r = {"part": part, "ended_by": "", "first_ns": 0, "end_ns": 0, "path": path,
         "usage": None, "histogram": None, "thread_id": threading.get_native_id(),
         "error": "", "status": 0}
    for name in COUNTERS:
        r[name] = 0
    return r


COUNTERS = ("warmup_messages", "messages_sent", "bytes_sent", "messages_received",
            "bytes_received", "counted_messages", "duplicates", "out_of_order", "beyond_window",
            "corrupted", "pings_sent", "round_trips", "lost", "mismatched", "stale_pongs",
            "echoed")


def failed(result, status, text):
    result["error"] = text
    result["status"] = status
    return result


def wait_until(when):
    """Sleeps for the bulk, spins the last 50 µs."""
    left = when - now_ns()
    if left > 100_000:
        time.sleep((left - 50_000) / 1e9)
    while now_ns() < when:
        pass


def send_warmup(ep, job, buf, batch_buf, pattern, write_payload):
    settings = job["case"]
    warmup_ns = int(settings["warmup_s"] * 1e9)
    if warmup_ns <= 0:
        return 0
    size = settings["size_bytes"]
    stride = dp.clock_stride(size)
    end = now_ns() + warmup_ns
    warm = 0
    send = ep.send
    while True:
        U64.pack_into(buf, 0, dp.FLAG_WARMUP | warm)
        if write_payload:
            pattern.write(buf, warm)
        send(buf)
        warm += 1
        if warm % stride == 0 and now_ns() >= end:
            return warm


def run_sender(ep, job, progress):
    c = job["case"]
    size, count, batch = c["size_bytes"], c["count"], max(1, c["batch"])
    batched = batch > 1 and ep.stream and not c["rate_per_s"] > 0
    # Messages between two looks at the schedule: the --batch of one write; else the clock
    # stride (a count needs no clock: 1024, the progress cadence).
    schedule = dp.SendSchedule(c, batch if batched else 1024 if count else dp.clock_stride(size))
    paced = schedule.paced()
    pattern = dp.Pattern(size, dp.pattern_offset(paced))
    buf = bytearray(size)
    pattern.write(buf, 0)
    write_payload = c["verify"]
    result = blank_result("send", ep.send_call)
    try:
        result["warmup_messages"] = send_warmup(ep, job, buf, None, pattern, write_payload)
        usage = Usage()
        start = now_ns()
        schedule.start_ns = start
        if paced:
            seq = paced_sends(ep, schedule, buf, pattern, write_payload, progress)
        elif batched:
            seq = batched_sends(ep, schedule, buf, pattern, write_payload, progress)
        else:
            seq = plain_sends(ep, schedule, buf, pattern, write_payload, progress)
        result["end_ns"] = now_ns()
        result["first_ns"] = start
        result["usage"] = usage.stop()
        result["messages_sent"] = seq
        result["bytes_sent"] = seq * size
        for _ in range(dp.end_markers(job["reliable"])):
            U64.pack_into(buf, 0, dp.FLAG_END | seq)
            if write_payload:
                pattern.write(buf, seq)
            ep.send(buf)
    except KitError as e:
        return failed(result, e.status, f"send: {e}")
    except OSError as e:
        return failed(result, E_CLOSED if isinstance(e, BrokenPipeError) else -11, f"send: {e}")
    return result


def plain_sends(ep, schedule, buf, pattern, write_payload, progress):
    """Unpaced, one message a call: the loop a plain program writes; the schedule is asked
    every `batch` messages."""
    raw = getattr(ep, "raw_send", None)
    if raw is not None:
        try:
            return raw_sends(raw, len(buf), schedule, buf, pattern, write_payload, progress)
        except (BrokenPipeError, ConnectionRefusedError):
            raise KitError(E_CLOSED, ep.raw_send_gone) from None
    send, header, nxt, end = ep.send, header_writer(buf), schedule.next, dp.END
    seq = 0
    while True:
        step, n, _ = nxt(seq, now_ns())
        if step == end:
            break
        stop = seq + n
        while seq < stop:
            header[0] = seq
            if write_payload:
                pattern.write(buf, seq)
            send(buf)
            seq += 1
        progress.messages = seq
    return seq


def raw_sends(raw, size, schedule, buf, pattern, write_payload, progress):
    """plain_sends over a raw write (os.write on a FIFO, a connected UDP socket's send): one
    call a message, as a plain loop makes it, with no Python frame around it; a short write
    (a stream's) is finished inline."""
    header, nxt, end, seq = header_writer(buf), schedule.next, dp.END, 0
    while True:
        step, n, _ = nxt(seq, now_ns())
        if step == end:
            break
        stop = seq + n
        while seq < stop:
            header[0] = seq
            if write_payload:
                pattern.write(buf, seq)
            n = raw(buf)
            if n != size:  # a short write (a signal, or more than the pipe took): the rest
                view = memoryview(buf)
                while n < size:
                    n += raw(view[n:])
            seq += 1
        progress.messages = seq
    return seq


def batched_sends(ep, schedule, buf, pattern, write_payload, progress):
    """--batch N on a stream: N messages in one write (the schedule cuts the last by --count)."""
    size, batch = len(buf), schedule.batch
    block = bytearray(buf) * batch
    view = memoryview(block)
    seq = 0
    while True:
        step, n, _ = schedule.next(seq, now_ns())
        if step == dp.END:
            break
        for i in range(n):
            U64.pack_into(block, i * size, seq + i)
            if write_payload:
                pattern.write(view[i * size:(i + 1) * size], seq + i)
        ep.send(view[:n * size])
        seq += n
        progress.messages = seq
    return seq


def paced_sends(ep, schedule, buf, pattern, write_payload, progress):
    """--rate: each message in its slot, the slot (not the send time) written at offset 8."""
    seq = 0
    while True:
        step, _, due = schedule.next(seq, now_ns())
        if step == dp.END:
            break
        if step == dp.WAIT:
            wait_until(due)
            continue
        U64.pack_into(buf, 0, seq)
        U64.pack_into(buf, dp.TIMESTAMP_OFFSET, due)
        if write_payload:
            pattern.write(buf, seq)
        ep.send(buf)
        seq += 1
        progress.messages = seq
    return seq


class Reader:
    """Whole messages from an endpoint: on a stream, reads until `size` bytes are in (a read
    may cut a message anywhere); otherwise one datagram is one message."""

    def __init__(self, ep, size):
        self.ep, self.size = ep, size
        self.buf = bytearray(max(size, 64) if not ep.stream else size)
        self.view = memoryview(self.buf)
        self.message = self.view[:size]

    def next(self, timeout_s=None):
        """The next message (a view, valid until the next call); None when the peer closed;
        TimeoutError when timeout_s passed first."""
        size, view = self.size, self.view
        if not self.ep.stream:
            while True:
                n = self.ep.recv_into(view, timeout_s)
                if n == size:
                    return self.message
        got = self.ep.recv_into(view, timeout_s)
        if got == size:
            return self.message
        while got < size:
            if got and timeout_s is not None:
                timeout_s = None  # a message begun is finished
            n = self.ep.recv_into(view[got:], timeout_s)
            if n == 0:
                return None
            got += n
        return self.message


def header_writer(buf):
    """Item 0 of what this returns, assigned, is the message header (little-endian u64): on a
    little-endian machine the buffer's first 8 bytes cast to one unsigned 64-bit integer, whose
    index assignment costs a fraction of struct's pack_into (the kit's sender ran 1.24 x a
    plain writer's instructions a message with it: scripts/bench/fidelity/python/
    instructions.sh), elsewhere through struct."""
    if sys.byteorder == "little":
        return memoryview(buf)[:8].cast("Q")

    class Packed:
        def __setitem__(self, _, value):
            U64.pack_into(buf, 0, value)
    return Packed()


def header_reader(view):
    """The message header (little-endian u64) as item 0 of what this returns: on a
    little-endian machine the buffer's first 8 bytes cast to one unsigned 64-bit integer (an
    index: a third of struct's unpack_from in the receive loop), elsewhere through struct."""
    if sys.byteorder == "little":
        return view[:8].cast("Q")

    class Unpacked:
        def __getitem__(self, _):
            return U64.unpack_from(view, 0)[0]
    return Unpacked()


def fast_receive(ep, size, pattern, verify, tally, progress, usage):
    """A reliable byte stream, unpaced: each message read straight into the buffer with the
    endpoint's own call (FileIO.readinto, socket.recv_into), the header unpacked, counted.
    The loop a plain Python reader runs, plus the header and the count."""
    buf = bytearray(size)
    view = memoryview(buf)
    read = ep.raw_recv_into
    header_of = header_reader(view)
    received = warm = corrupted = 0
    expected = -1  # the next sequence number in order; -1 before the first
    tracker = tally["tracker"]
    first = end = 0
    ended_by = "closed"
    while True:
        try:
            n = read(view)
        except ConnectionResetError:
            n = 0
        if n != size:
            while 0 < n < size:
                try:
                    more = read(view[n:])
                except ConnectionResetError:
                    more = 0
                if not more:
                    n = 0
                    break
                n += more
            if n != size:
                end = now_ns() if received else 0
                break
        header = header_of[0]
        if header == expected:  # the next in order, the one test most messages need
            expected += 1
        elif header >> 62:
            if header & dp.FLAG_END:
                end, ended_by = now_ns(), "end-marker"
                break
            warm += 1
            continue
        elif not received:
            first = now_ns()
            usage.start()
            tracker.record(header)
            expected = header + 1
        else:
            tracker.expected = expected
            fresh = tracker.record(header)
            expected = tracker.expected
            if verify and fresh and not pattern.matches(buf, header):
                corrupted += 1
            received += 1
            progress.messages = received
            continue
        received += 1
        if verify and not pattern.matches(buf, header):
            corrupted += 1
        progress.messages = received
    tracker.expected = max(expected, 0)
    progress.expected_next = tracker.expected
    tally.update(received=received, warm=warm, corrupted=corrupted, first=first, end=end,
                 ended_by=ended_by)


def general_receive(ep, job, pattern, tally, progress, usage):
    """Any transport: datagrams, unreliable (polled every 20 ms), paced (one-way delays)."""
    c = job["case"]
    size, reliable, verify = c["size_bytes"], job["reliable"], c["verify"]
    reader = Reader(ep, size)
    timeout = None if reliable else dp.RECEIVER_QUIET_NS / 1e9
    one_way = tally["one_way"]
    tracker = tally["tracker"]
    received = warm = corrupted = 0
    first = last = end = 0
    ended_by = ""
    unpack = U64.unpack_from
    next_message = reader.next
    while not ended_by:
        try:
            m = next_message(timeout)
        except TimeoutError:
            if progress.poll_control:
                progress.poll_control()
            if progress.peer_sent >= 0:
                ended_by, end = "sender-done", last
            continue
        if m is None:
            ended_by = "closed"
            end = now_ns() if received else 0
            break
        header = unpack(m, 0)[0]
        if header & dp.FLAG_END:
            end, ended_by = now_ns(), "end-marker"
            break
        if header & dp.FLAG_WARMUP:
            warm += 1
            continue
        if not received:
            first = now_ns()
            usage.start()
        if one_way is not None or not reliable:
            last = now_ns()
        received += 1
        seq = header & dp.SEQUENCE_MASK
        if seq == tracker.expected and tracker.any:
            tracker.expected = seq + 1
            fresh = True
        else:
            fresh = tracker.record(seq)
        if verify and fresh and not pattern.matches(m, seq):
            corrupted += 1
        if one_way is not None:
            one_way.record(last - unpack(m, dp.TIMESTAMP_OFFSET)[0])
        progress.messages = received
        progress.expected_next = tracker.expected
    tally.update(received=received, warm=warm, corrupted=corrupted, first=first, end=end,
                 ended_by=ended_by)


def run_receiver(ep, job, progress):
    c = job["case"]
    size = c["size_bytes"]
    paced = c["rate_per_s"] > 0
    pattern = dp.Pattern(size, dp.pattern_offset(paced))
    result = blank_result("receive", ep.recv_call)
    tally = {"tracker": dp.SequenceTracker(), "one_way": dp.Histogram() if paced else None,
             "received": 0, "warm": 0, "corrupted": 0, "first": 0, "end": 0, "ended_by": ""}
    usage = Usage()
    fast = (job["reliable"] and ep.stream and not paced and
            getattr(ep, "raw_recv_into", None) is not None)
    try:
        if fast:
            fast_receive(ep, size, pattern, c["verify"], tally, progress, usage)
        else:
            general_receive(ep, job, pattern, tally, progress, usage)
    except KitError as e:
        failed(result, e.status, f"recv: {e}")
    except OSError as e:
        failed(result, -11, f"recv: {e}")
    tracker, received = tally["tracker"], tally["received"]
    progress.messages = received
    progress.expected_next = tracker.expected
    result["usage"] = usage.stop()
    result.update(messages_received=received, bytes_received=received * size,
                  warmup_messages=tally["warm"], duplicates=tracker.duplicates,
                  out_of_order=tracker.out_of_order, beyond_window=tracker.beyond_window,
                  corrupted=tally["corrupted"], first_ns=tally["first"],
                  end_ns=tally["end"] if received else tally["first"], ended_by=tally["ended_by"])
    # The window runs from the first timed arrival to the end marker: `received` intervals;
    # ended by the last arrival it covers one fewer.
    whole = tally["ended_by"] in ("end-marker", "closed")
    result["counted_messages"] = received if whole else max(0, received - 1)
    if tally["one_way"] is not None:
        result["histogram"] = tally["one_way"].to_json()
    return result


judge_pong = dp.judge_pong


def stream_round_trip(send, read, buf, size):
    """round_trip on a reliable byte stream without --verify: the ping written, the pong read
    straight into a buffer with the channel's own call, its sequence compared; the calls a
    plain ping-pong loop makes, with no Reader or verdict function between them. The verdicts
    are judge_pong's for a reliable transport (a stale pong cannot come)."""
    pong_buf = bytearray(size)
    view = memoryview(pong_buf)
    pack, unpack = U64.pack_into, U64.unpack_from
    mask, warmup = dp.SEQUENCE_MASK, dp.FLAG_WARMUP

    def round_trip(header):
        pack(buf, 0, header)
        send(buf)
        try:
            got = read(view)
            while 0 < got < size:
                n = read(view[got:])
                got = got + n if n else 0
        except ConnectionResetError:
            got = 0
        if not got:
            raise KitError(E_CLOSED, "the ponger closed the connection")
        if header & warmup:
            return "warmup"
        return "matched" if not (unpack(pong_buf, 0)[0] ^ header) & mask else "mismatched"
    return round_trip


def run_pinger(out, inp, job, progress):
    c = job["case"]
    size, reliable, count = c["size_bytes"], job["reliable"], c["count"]
    verify = c["verify"]
    pattern = dp.Pattern(size, dp.HEADER_BYTES)
    buf = bytearray(size)
    pattern.write(buf, 0)
    reader = Reader(inp, size)
    timeout = None if reliable else dp.LOST_PING_NS / 1e9
    result = blank_result("ping", f"{out.send_call} -> {inp.recv_call}")
    histogram = dp.Histogram()
    stats = {"stale": 0}
    unpack, pack, send = U64.unpack_from, U64.pack_into, out.send

    def round_trip(header):
        """'matched', 'mismatched', 'warmup' or 'corrupted'; TimeoutError when lost."""
        pack(buf, 0, header)
        if verify:
            pattern.write(buf, header & dp.SEQUENCE_MASK)
        send(buf)
        while True:
            m = reader.next(timeout)
            if m is None:
                raise KitError(E_CLOSED, "the ponger closed the connection")
            pong = unpack(m, 0)[0]
            verdict = judge_pong(header, pong, reliable)
            if verdict == "stale":
                stats["stale"] += 1
                continue
            if verify and verdict == "matched" and not pattern.matches(m, pong & dp.SEQUENCE_MASK):
                return "corrupted"
            return verdict

    if reliable and inp.stream and not verify and getattr(inp, "raw_recv_into", None):
        round_trip = stream_round_trip(send, inp.raw_recv_into, buf, size)
    warm = seq = lost = mismatched = corrupted = 0
    try:
        warm_end = now_ns() + int(c["warmup_s"] * 1e9)
        while c["warmup_s"] > 0 and now_ns() < warm_end:
            try:
                round_trip(dp.FLAG_WARMUP | warm)
                warm += 1
            except TimeoutError:
                pass
        usage = Usage()
        start = now_ns()
        end = start + dp.window_ns(c["duration_s"])
        t = start
        while True:
            t0 = t
            try:
                verdict = round_trip(seq)
                t = now_ns()
                histogram.record(t - t0)
                if verdict == "mismatched":
                    mismatched += 1
                elif verdict == "corrupted":
                    corrupted += 1
            except TimeoutError:
                t = now_ns()
                lost += 1
            seq += 1
            progress.messages = seq
            if dp.pings_done(count, seq, t, end):
                break
        result.update(end_ns=now_ns(), first_ns=start, usage=usage.stop())
        for _ in range(dp.end_markers(reliable)):
            pack(buf, 0, dp.FLAG_END | seq)
            send(buf)
    except KitError as e:
        failed(result, e.status, f"ping: {e}")
    except OSError as e:
        failed(result, -11, f"ping: {e}")
    if result["usage"] is None:
        result["usage"] = Usage().stop()
    result.update(round_trips=histogram.count, pings_sent=seq, lost=lost, mismatched=mismatched,
                  stale_pongs=stats["stale"], corrupted=corrupted, warmup_messages=warm,
                  histogram=histogram.to_json())
    return result


def stream_reader(read, buf, size):
    """Reader.next on a reliable byte stream, never timed: the message read straight into buf
    with the channel's own call (a read may cut it), None when the peer closed."""
    view = memoryview(buf)
    message = view[:size]

    def next_message(_timeout_s=None):
        try:
            got = read(message)
            while 0 < got < size:
                n = read(view[got:size])
                got = got + n if n else 0
        except ConnectionResetError:
            got = 0
        return message if got else None
    return next_message


def run_ponger(inp, out, job, progress):
    c = job["case"]
    size, reliable = c["size_bytes"], job["reliable"]
    reader = Reader(inp, size)
    timeout = None if reliable else dp.PONGER_SILENCE_NS / 1e9
    result = blank_result("pong", f"{inp.recv_call} -> {out.send_call}")
    usage = Usage()
    start = now_ns()
    timed = False
    echoed = 0
    unpack, send, ponger_step = U64.unpack_from, out.send, dp.ponger_step
    next_ping = reader.next
    if reliable and inp.stream and getattr(inp, "raw_recv_into", None):
        next_ping = stream_reader(inp.raw_recv_into, reader.buf, size)
    try:
        while True:
            try:
                m = next_ping(timeout)
            except TimeoutError:
                break  # the pinger's end markers may all be lost
            if m is None:
                break
            step = ponger_step(unpack(m, 0)[0], timed)
            if step == "end":
                break
            if step == "echo_first_timed":
                timed = True
                usage.start()
                start = now_ns()
            send(m)
            echoed += 1
            progress.messages = echoed
    except KitError as e:
        failed(result, e.status, f"pong: {e}")
    except OSError as e:
        failed(result, -11, f"pong: {e}")
    progress.messages = echoed
    result.update(end_ns=now_ns(), first_ns=start, usage=usage.stop(), echoed=echoed)
    return result


def guarded(part, loop, progress, *args):
    """Runs a loop; whatever escapes becomes the stream's error, never a dead thread."""
    try:
        progress.result = loop(*args, progress)
    except Exception as e:  # noqa: BLE001 - a kit reports, it does not crash
        result = failed(blank_result(part, ""), E_INTERNAL, f"{type(e).__name__}: {e}")
        result["usage"] = Usage().stop()
        progress.result = result
    progress.finished = True
