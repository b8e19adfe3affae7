"""The asyncio API (--api asyncio, `--impl python:asyncio`): the stream sockets as an asyncio
program uses them, through asyncio's streams (docs.python.org, "Streams"): a StreamReader and
StreamWriter from asyncio.open_connection(sock=...) / open_unix_connection(sock=...) on the
socket the kit connected, each message `writer.write(m)` then `await writer.drain()`, each
received message `await reader.readexactly(size)`. Every loop of the run (every stream, both
halves of --bidir) is a coroutine of one event loop on one thread, as an asyncio program runs
its connections, so the CPU of the event loop's thread is the run's, reported once.

The loops follow the timing rules of docs/worker-protocol.md ("The timed side") as loops.py
does; asyncio is offered on the reliable stream sockets only (socket.tcp, socket.unix).
"""

import asyncio
import functools
import socket
import threading

from . import dataplane as dp
from . import loops, transports
from .control import E_CLOSED, E_INTERNAL, KitError

U64 = dp.U64
now_ns = loops.now_ns
_state = {"in_use": False}


class _Window:
    """The event loop thread's CPU from the first loop's timed start to the last one's end:
    every loop of the run shares the thread, so its usage is reported once, over the span the
    loops time (the host divides it by that span)."""

    def __init__(self):
        self.open = 0
        self.usage = None
        self.figures = None

    def enter(self):
        if self.open == 0 and self.usage is None:
            self.usage = loops.Usage()
        self.open += 1

    def leave(self):
        self.open -= 1
        if self.open == 0 and self.usage is not None:
            self.figures = self.usage.stop()


_window = _Window()


def use():
    """Registers the asyncio form of the stream sockets; the other transports are not offered."""
    _state["in_use"] = True
    for tid in ("socket.unix", "socket.tcp"):
        transports.register(tid, functools.partial(_open, transports._TRANSPORTS[tid]))
    for tid in ("pipe.fifo", "udp.inet"):
        transports._TRANSPORTS.pop(tid, None)


def in_use():
    return _state["in_use"]


def _open(builtin, *args):
    ep = builtin(*args)
    ep.send_call = "StreamWriter.write+drain"
    ep.recv_call = "StreamReader.readexactly"
    ep.streams = None  # (reader, writer), made in the event loop
    return ep


async def _streams(ep):
    if ep.streams is None:
        sock = ep.sock
        if sock.family == socket.AF_UNIX:
            ep.streams = await asyncio.open_unix_connection(sock=sock)
        else:
            ep.streams = await asyncio.open_connection(sock=sock)
    return ep.streams


async def _read(reader, size):
    """One message, None when the peer closed."""
    try:
        return await reader.readexactly(size)
    except (asyncio.IncompleteReadError, ConnectionResetError):
        return None


async def _send(writer, buf):
    writer.write(buf)
    await writer.drain()


async def _flush(writer):
    """Waits until the transport has written everything: drain() returns once the buffer is
    below its high-water mark, and bytes still buffered when the event loop ends are never sent
    (the peer would wait for the end marker for ever)."""
    writer.transport.set_write_buffer_limits(high=0)
    await writer.drain()


async def _wait_until(when):
    left = when - now_ns()
    if left > 1_000_000:
        await asyncio.sleep((left - 500_000) / 1e9)
    while now_ns() < when:
        await asyncio.sleep(0)


async def sender(ep, job, progress):
    c = job["case"]
    size, count, batch = c["size_bytes"], c["count"], max(1, c["batch"])
    paced = c["rate_per_s"] > 0
    # Messages between two looks at the schedule: the --batch of one write; one write a message
    # otherwise, the schedule asked every clock stride (a count needs no clock: 1024), as the
    # plain loop does and as a program writes its loop (a clock read and a schedule call a
    # message were a tenth of this loop's time).
    batched = batch > 1 and not paced
    schedule = dp.SendSchedule(c, batch if batched else 1 if paced else 1024 if count
                               else dp.clock_stride(size))
    pattern = dp.Pattern(size, dp.pattern_offset(paced))
    buf = bytearray(size)
    pattern.write(buf, 0)
    verify = c["verify"]
    result = loops.blank_result("send", ep.send_call)
    _, writer = await _streams(ep)
    pack, header = U64.pack_into, loops.header_writer(buf)
    write, drain = writer.write, writer.drain
    warm = 0
    warm_end = now_ns() + int(c["warmup_s"] * 1e9)
    while c["warmup_s"] > 0 and now_ns() < warm_end:
        pack(buf, 0, dp.FLAG_WARMUP | warm)
        if verify:
            pattern.write(buf, warm)
        await _send(writer, buf)
        warm += 1
    result["warmup_messages"] = warm
    _window.enter()
    start = now_ns()
    schedule.start_ns = start
    seq = 0
    while True:
        step, n, due = schedule.next(seq, now_ns())
        if step == dp.END:
            break
        if step == dp.WAIT:
            await _wait_until(due)
            continue
        if paced:
            pack(buf, dp.TIMESTAMP_OFFSET, due)
        if not batched:  # as a program writes a message: write, then drain (no wrapper, no copy)
            for i in range(seq, seq + n):
                header[0] = i
                if verify:
                    pattern.write(buf, i)
                write(buf)
                await drain()
        else:
            block = bytearray()
            for i in range(n):
                pack(buf, 0, seq + i)
                if verify:
                    pattern.write(buf, seq + i)
                block += buf
            await _send(writer, block)
        seq += n
        progress.messages = seq
    result.update(end_ns=now_ns(), first_ns=start, messages_sent=seq, bytes_sent=seq * size)
    _window.leave()
    pack(buf, 0, dp.FLAG_END | seq)
    if verify:
        pattern.write(buf, seq)
    await _send(writer, buf)
    await _flush(writer)
    return result


def _checked(m, seq, pattern, verify, one_way):
    """1 if `verify` and message `seq` is corrupted; its one-way delay recorded if paced."""
    if one_way is not None:
        one_way.record(now_ns() - U64.unpack_from(m, dp.TIMESTAMP_OFFSET)[0])
    return 1 if verify and not pattern.matches(m, seq) else 0


async def receiver(ep, job, progress):
    c = job["case"]
    size = c["size_bytes"]
    paced = c["rate_per_s"] > 0
    pattern = dp.Pattern(size, dp.pattern_offset(paced))
    result = loops.blank_result("receive", ep.recv_call)
    one_way = dp.Histogram() if paced else None
    tracker = dp.SequenceTracker()
    reader, _ = await _streams(ep)
    received = warm = corrupted = first = end = 0
    ended_by = "closed"
    unpack = U64.unpack_from
    readexactly = reader.readexactly
    verify = c["verify"]
    expected = -1  # the next sequence number in order: the tracker sees only the others
    checks = verify or one_way is not None
    while True:
        # As a program reads a message: await readexactly in the loop itself (a coroutine
        # wrapped around it, a clock read and a tracker call a message cost a quarter of the
        # rate), and a message in order only counted (instructions.sh: the general path below
        # for every message made this loop 1.12 x a program's instructions a message).
        try:
            m = await readexactly(size)
        except (asyncio.IncompleteReadError, ConnectionResetError):
            end = now_ns() if received else 0
            break
        header = unpack(m)[0]
        if header == expected:
            expected += 1
            received += 1
            progress.messages = received
            if checks:
                corrupted += _checked(m, header, pattern, verify, one_way)
            continue
        if header >> 62:
            if header & dp.FLAG_END:
                end, ended_by = now_ns(), "end-marker"
                break
            warm += 1
            continue
        if not received:
            first = now_ns()
            _window.enter()
        received += 1
        tracker.expected = max(expected, 0)
        fresh = tracker.record(header & dp.SEQUENCE_MASK)
        expected = tracker.expected
        corrupted += _checked(m, header & dp.SEQUENCE_MASK, pattern, verify and fresh, one_way)
        progress.messages = received
    tracker.expected = max(expected, 0)
    progress.expected_next = tracker.expected
    if received:
        _window.leave()
    result.update(messages_received=received, bytes_received=received * size,
                  warmup_messages=warm, duplicates=tracker.duplicates,
                  out_of_order=tracker.out_of_order, beyond_window=tracker.beyond_window,
                  corrupted=corrupted, first_ns=first, end_ns=end if received else first,
                  ended_by=ended_by, counted_messages=received,
                  histogram=one_way.to_json() if one_way is not None else None)
    return result


async def pinger(out, inp, job, progress):
    c = job["case"]
    size, count, verify = c["size_bytes"], c["count"], c["verify"]
    pattern = dp.Pattern(size, dp.HEADER_BYTES)
    buf = bytearray(size)
    pattern.write(buf, 0)
    result = loops.blank_result("ping", f"{out.send_call} -> {inp.recv_call}")
    histogram = dp.Histogram()
    _, writer = await _streams(out)
    reader, _ = await _streams(inp)
    pack, unpack = U64.pack_into, U64.unpack_from

    async def round_trip(header):
        pack(buf, 0, header)
        if verify:
            pattern.write(buf, header & dp.SEQUENCE_MASK)
        await _send(writer, buf)
        m = await _read(reader, size)
        if m is None:
            raise KitError(E_CLOSED, "the ponger closed the connection")
        verdict = dp.judge_pong(header, unpack(m, 0)[0], True)
        if verify and verdict == "matched" and not pattern.matches(m, header & dp.SEQUENCE_MASK):
            return "corrupted"
        return verdict

    warm = seq = mismatched = corrupted = 0
    warm_end = now_ns() + int(c["warmup_s"] * 1e9)
    while c["warmup_s"] > 0 and now_ns() < warm_end:
        await round_trip(dp.FLAG_WARMUP | warm)
        warm += 1
    _window.enter()
    start = t = now_ns()
    end = start + dp.window_ns(c["duration_s"])
    while True:
        t0 = t
        verdict = await round_trip(seq)
        t = now_ns()
        histogram.record(t - t0)
        mismatched += verdict == "mismatched"
        corrupted += verdict == "corrupted"
        seq += 1
        progress.messages = seq
        if dp.pings_done(count, seq, t, end):
            break
    result.update(end_ns=now_ns(), first_ns=start)
    _window.leave()
    pack(buf, 0, dp.FLAG_END | seq)
    await _send(writer, buf)
    await _flush(writer)
    result.update(round_trips=histogram.count, pings_sent=seq, mismatched=mismatched,
                  corrupted=corrupted, warmup_messages=warm, histogram=histogram.to_json())
    return result


async def ponger(inp, out, job, progress):
    size = job["case"]["size_bytes"]
    result = loops.blank_result("pong", f"{inp.recv_call} -> {out.send_call}")
    reader, _ = await _streams(inp)
    _, writer = await _streams(out)
    start, timed, echoed = now_ns(), False, 0
    while True:
        m = await _read(reader, size)
        if m is None:
            break
        step = dp.ponger_step(U64.unpack_from(m, 0)[0], timed)
        if step == "end":
            break
        if step == "echo_first_timed":
            timed, start = True, now_ns()
            _window.enter()
        await _send(writer, m)
        echoed += 1
        progress.messages = echoed
    if timed:
        _window.leave()
    result.update(end_ns=now_ns(), first_ns=start, echoed=echoed)
    return result


LOOPS = {"send": sender, "receive": receiver, "ping": pinger, "pong": ponger}


async def _guarded(part, args, progress):
    try:
        progress.result = await LOOPS[part](*args, progress)
    except KitError as e:
        progress.result = loops.failed(loops.blank_result(part, ""), e.status, f"{part}: {e}")
    except OSError as e:
        progress.result = loops.failed(loops.blank_result(part, ""), -11, f"{part}: {e}")
    except Exception as e:  # noqa: BLE001 - a kit reports, it does not crash
        progress.result = loops.failed(loops.blank_result(part, ""), E_INTERNAL,
                                       f"{type(e).__name__}: {e}")


def run_all(tasks):
    """Every loop of the run as a coroutine of one event loop, on this thread. The thread's CPU
    over the span the loops time (_Window) is the first loop's usage (the streams' sum counts it
    once); the others report none."""
    global _window
    _window = _Window()

    async def everything():
        await asyncio.gather(*(_guarded(part, args, progress)
                               for part, _, args, progress in tasks))
    try:
        asyncio.run(everything())
    finally:
        if _window.figures is None:  # no loop reached its timed part, or one failed inside it
            _window.figures = (_window.usage or loops.Usage()).stop()
        none = dict(_window.figures, cpu_user_s=0.0, cpu_sys_s=0.0, voluntary_ctx_switches=0,
                    involuntary_ctx_switches=0)
        for _, _, args, _ in tasks:
            for ep in args[:-1]:  # the endpoints: a later run makes its streams in its own loop
                ep.streams = None
        for i, (_, _, _, progress) in enumerate(tasks):
            if progress.result is not None:
                progress.result["usage"] = _window.figures if i == 0 else dict(none)
            progress.finished = True


def start(tasks):
    """The event loop's thread: the main thread serves the channel meanwhile."""
    thread = threading.Thread(target=run_all, args=(tasks,), daemon=True, name="asyncio")
    thread.start()
    return thread
