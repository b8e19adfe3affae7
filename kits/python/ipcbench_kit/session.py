"""One worker's session with the orchestrator (docs/worker-protocol.md, "A case, message by
message"): hello, welcome, setup, connect, run, close."""

import os
import platform
import resource
import sys
import threading
import time

from . import dataplane as dp
from . import loops
from .protocol_generated import PROTOCOL_VERSIONS
from .control import (E_INTERNAL, E_INVALID, E_SYSTEM, E_TIMEOUT, E_UNSUPPORTED, Channel,
                      KitError, ProtocolError, field)
from .transports import BOTH, CONNECTOR, CREATOR, RECV, SEND, open_endpoint

VERSIONS = list(PROTOCOL_VERSIONS)
# Worker protocol 1.2: a setup still opening endpoints says so at least this often.
PROGRESS_EVERY_S = 1.0
ROLES = (CREATOR, CONNECTOR)
DIRECTIONS = (SEND, RECV, BOTH)
KINDS = ("send", "receive", "bidir", "ping", "pong")


def runtime_name():
    return f"{platform.python_implementation()} {platform.python_version()}"


def sends(kind):
    return kind in ("send", "bidir")



def binding_key_of(hex_key, transport, role):
    """Protocol 1.1: a connector of socket.tcp or udp.inet presents the setup's binding_key
    (docs/worker-protocol.md, "Binding"); b"" when there is none. This kit binds no creator."""
    if not hex_key:
        return b""
    if not 32 <= len(hex_key) <= 128 or len(hex_key) % 2:
        raise ProtocolError("setup message field 'binding_key' must be 32 to 128 hex digits")
    try:
        key = bytes.fromhex(hex_key)
    except ValueError:
        raise ProtocolError("setup message field 'binding_key' must be 32 to 128 hex digits") \
            from None
    if transport not in ("socket.tcp", "udp.inet") or role == CREATOR:
        raise KitError(E_UNSUPPORTED, f"this kit binds only a connector of socket.tcp or "
                       f"udp.inet to its peer, not a {role} of {transport[:40]}")
    return key

class Session:
    def __init__(self, sock, implementation="python"):
        self.channel = Channel(sock)
        self.implementation = implementation
        self.welcomed = False
        self.says_progress = False
        self.endpoints = []
        self.rss_before_kib = 0

    def serve(self):
        self.channel.send({"type": "hello", "versions": VERSIONS, "pid": os.getpid(),
                           "implementation": self.implementation, "runtime": runtime_name()})
        while True:
            try:
                message = self.channel.receive()
            except EOFError:
                return 1  # the orchestrator is gone
            except ProtocolError as e:
                self.error("control", E_INVALID, f"control channel: {e}")
                return 2
            stage = message["type"]
            try:
                if self.dispatch(stage, message):
                    return 0
            except EOFError:
                return 1  # closed while it worked (a long setup looks): gone, nothing to say
            except KitError as e:
                self.error(stage, e.status, str(e))
            except ProtocolError as e:
                self.error(stage, E_INVALID, str(e))
            except TimeoutError as e:
                self.error(stage, E_TIMEOUT, str(e) or "timed out")
            except OSError as e:
                self.error(stage, E_SYSTEM, f"{e}")
            except Exception as e:  # noqa: BLE001 - report, do not die
                self.error(stage, E_INTERNAL, f"{type(e).__name__}: {e}")

    def error(self, stage, status, text):
        self.channel.send({"type": "error", "stage": stage, "status": status, "message": text})

    def dispatch(self, kind, m):
        """Handles one message; True once the session is over."""
        if kind == "welcome":
            protocol = field(m, "protocol", str)
            if protocol not in VERSIONS:
                raise ProtocolError(f"the orchestrator picked worker protocol '{protocol[:16]}', "
                                    "which this worker did not offer")
            self.welcomed = True
            self.says_progress = tuple(map(int, protocol.split("."))) >= (1, 2)
        elif not self.welcomed:
            raise ProtocolError(f"a '{kind[:32]}' message before the 'welcome'")
        elif kind == "setup":
            self.setup(m)
        elif kind == "connect":
            self.connect(m)
        elif kind == "run":
            self.run(m)
        elif kind == "sender_done":
            pass  # arrived after the receive loop ended on its own
        elif kind == "close":
            for ep, _ in self.endpoints:
                ep.close()
            self.endpoints = []
            self.channel.send({"type": "closed"})
            return True
        else:
            raise ProtocolError(f"a worker takes no '{kind[:32]}' message")
        return False

    def setup(self, m):
        transport = field(m, "transport", str)
        role = field(m, "role", str)
        if role not in ROLES:
            raise ProtocolError(f"setup message field 'role' has the unknown value '{role[:32]}'")
        specs = field(m, "endpoints", list)
        options = field(m, "options", dict, False, {})
        for key, value in options.items():
            if not isinstance(value, str):
                raise ProtocolError(f"setup message field 'options' entry '{key}' is not text")
        runtime_dir = field(m, "runtime_dir", str, False, "")
        max_message = field(m, "max_message_size", int, False, 0)
        key = binding_key_of(field(m, "binding_key", str, False, ""), transport, role)
        if not self.endpoints:
            self.rss_before_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        addresses = []
        next_look = time.monotonic() + PROGRESS_EVERY_S
        for i, spec in enumerate(specs):
            if time.monotonic() >= next_look:
                self.still_opening(len(addresses))
                next_look = time.monotonic() + PROGRESS_EVERY_S
            if not isinstance(spec, dict) or spec.get("direction") not in DIRECTIONS:
                raise ProtocolError(f"setup message field 'endpoints'[{i}] field 'direction' "
                                    "is missing or unknown")
            address = spec.get("address", "")
            if not isinstance(address, str):
                raise ProtocolError(f"setup message field 'endpoints'[{i}] field 'address' "
                                    "is not text")
            ep = open_endpoint(transport, role, spec["direction"], address, options,
                               runtime_dir, max_message)
            ep.binding_key = key
            self.endpoints.append((ep, spec["direction"]))
            addresses.append(ep.export_address() if role == CREATOR else address)
        self.channel.send({"type": "opened", "addresses": addresses})

    def still_opening(self, opened):
        """A long setup (20,001 FIFOs under load): says how far it got (protocol 1.2), so the
        orchestrator's deadline runs from here, and ends at once if the channel closed."""
        if self.channel.closed():
            raise EOFError("the orchestrator closed the control channel during the setup")
        if self.says_progress:
            self.channel.send({"type": "progress", "opened": opened})

    def connect(self, m):
        timeout_s = field(m, "timeout_ns", int) / 1e9
        each = dp.Histogram()
        start = time.monotonic_ns()
        for ep, _ in self.endpoints:
            before = time.monotonic_ns()
            ep.connect(timeout_s)
            each.record(time.monotonic_ns() - before)
        total = time.monotonic_ns() - start
        settings = {}
        for ep, _ in self.endpoints[:2]:
            for key, value in ep.settings().items():
                settings.setdefault(key, value)
        self.channel.send({"type": "connected", "settings": settings,
                           "setup": {"connections": len(self.endpoints), "total_ns": total,
                                     "histogram": each.to_json(),
                                     "rss_before_kib": self.rss_before_kib}})

    def endpoint_for(self, directions, streams, stream, direction):
        per_stream = len(self.endpoints) // streams
        for i in range(stream * per_stream, (stream + 1) * per_stream):
            if directions[i] in (direction, BOTH):
                return self.endpoints[i][0]
        raise KitError(E_INVALID, f"no {direction} endpoint in stream {stream}")

    def run(self, m):
        job = field(m, "job", dict)
        directions = field(m, "directions", list)
        kind = job.get("kind")
        if kind not in KINDS:
            raise KitError(E_UNSUPPORTED, f"this kit runs no '{str(kind)[:32]}' job (a "
                           "conformance check job is for the native worker)")
        c = job.get("case")
        if not isinstance(c, dict):
            raise ProtocolError("run message field 'job' field 'case' is missing")
        streams = c.get("streams", 1)
        if (not isinstance(streams, int) or streams < 1 or len(directions) != len(self.endpoints)
                or len(self.endpoints) % streams):
            raise ProtocolError("endpoint layout does not match the job")
        if job.get("cpu", -1) >= 0:
            try:
                os.sched_setaffinity(0, {job["cpu"]})  # before any thread: they inherit it
            except OSError as e:
                part = "receive" if kind in ("receive", "bidir") else kind
                result = loops.failed(loops.blank_result(part, ""), E_INVALID,
                                      f"cannot run on CPU {job['cpu']}: {e} (--affinity)")
                result["usage"] = loops.Usage().stop()
                return self.channel.send({"type": "result", "parts": [summed(part, [result])],
                                          "error": result["error"], "status": E_INVALID})
        tasks = []
        for k in range(streams):
            for part in (("receive", "send") if kind == "bidir" else (kind,)):
                tasks.append(self.task(part, k, job, directions, streams))
        asyncio_api = API["asyncio"]  # None unless --api asyncio: asyncio is not imported else
        if asyncio_api and (len(tasks) > 1 or c.get("interval_s")):
            thread = asyncio_api.start(tasks)  # the event loop's thread; this one serves the channel
            self.serve_run(job, tasks)
            thread.join()
        elif asyncio_api:  # one stream: the event loop on the main thread, as a program runs it
            asyncio_api.run_all(tasks)
            part, _, _, progress = tasks[0]
            if part == "send" and not progress.result["error"]:
                self.channel.send({"type": "sent", "streams": [progress.result["messages_sent"]]})
        elif len(tasks) == 1 and not c.get("interval_s"):
            part, target, args, progress = tasks[0]
            progress.poll_control = lambda: self.pass_counts(tasks, self.channel.poll())
            loops.guarded(part, target, progress, *args)
            if part == "send" and not progress.result["error"]:
                # What an unreliable receiver waits for, as serve_run sends it.
                self.channel.send({"type": "sent", "streams": [progress.result["messages_sent"]]})
        else:
            threads = [threading.Thread(target=loops.guarded, args=(t[0], t[1], t[3], *t[2]),
                                        daemon=True) for t in tasks]
            for t in threads:
                t.start()
            self.serve_run(job, tasks)
            for t in threads:
                t.join()
        self.report(job, tasks)

    def task(self, part, k, job, directions, streams):
        lookup = lambda d: self.endpoint_for(directions, streams, k, d)  # noqa: E731
        if part == "send":
            target, args = loops.run_sender, (lookup(SEND), job)
        elif part == "receive":
            target, args = loops.run_receiver, (lookup(RECV), job)
        elif part == "ping":
            target, args = loops.run_pinger, (lookup(SEND), lookup(RECV), job)
        else:
            target, args = loops.run_ponger, (lookup(RECV), lookup(SEND), job)
        return part, target, args, loops.Progress()

    @staticmethod
    def pass_counts(tasks, message):
        if not message or message.get("type") != "sender_done":
            return
        counts = message.get("streams")
        if not isinstance(counts, list):
            return
        receivers = [t for t in tasks if t[0] == "receive"]
        for k, t in enumerate(receivers):
            if k < len(counts) and isinstance(counts[k], int):
                t[3].peer_sent = counts[k]

    def serve_run(self, job, tasks):
        """Serves the channel while the streams run: the sent counts, live intervals, and a
        failure at once (the orchestrator ends the case)."""
        sent_reported = not sends(job["kind"])
        intervals = IntervalReporter(job, tasks, self.channel)
        while True:
            done = [t[3].finished for t in tasks]
            senders_done = all(t[3].finished for t in tasks if t[0] == "send")
            if senders_done and not sent_reported:
                counts = [t[3].result["messages_sent"] for t in tasks if t[0] == "send"]
                self.channel.send({"type": "sent", "streams": counts})
                sent_reported = True
            if all(done):
                intervals.report_last()
                return
            for t in tasks:
                if t[3].finished and t[3].result["error"]:
                    self.report(job, [t])
                    self.wait_for_end()
            intervals.report_due()
            wait = min(0.02, max(0.0, (intervals.next_due - time.monotonic_ns()) / 1e9))
            self.pass_counts(tasks, self.channel.receive(wait))

    def wait_for_end(self):
        try:
            while True:
                self.channel.receive()
        except (EOFError, ProtocolError, OSError):
            pass
        os._exit(1)

    def report(self, job, tasks):
        parts = []
        for part in ("receive", "send", "ping", "pong"):
            streams = [t[3].result for t in tasks if t[0] == part]
            if streams:
                parts.append(summed(part, streams))
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        message = {"type": "result", "parts": parts, "kit": kit_figures()}
        for p in parts:
            p["usage"]["max_rss_kib"] = rss
            if p["error"] and "error" not in message:
                message["error"], message["status"] = p["error"], p["status"]
        self.channel.send(message)


# The API modules in use (--api): imported only then, so that a run of the default API does not
# import asyncio when its streams start (tens of milliseconds, in which UDP datagrams are lost).
API = {"buffered": None, "asyncio": None}


def kit_figures():
    """What only this runtime can say about itself: the garbage collector's work."""
    import gc
    stats = gc.get_stats()
    out = {"gc_collections": sum(s["collections"] for s in stats),
           "gc_collected": sum(s["collected"] for s in stats)}
    if API["buffered"]:
        out.update(API["buffered"].kit_figures())
    return out


def merge_histograms(histograms):
    histograms = [h for h in histograms if h]
    if not histograms:
        return None
    counts = {}
    for h in histograms:
        for b, c in h["buckets"]:
            counts[b] = counts.get(b, 0) + c
    nonempty = [h for h in histograms if h["count"]]
    return {"buckets": [[b, counts[b]] for b in sorted(counts)],
            "count": sum(h["count"] for h in histograms),
            "sum": sum(h["sum"] for h in histograms),
            "min": min((h["min"] for h in nonempty), default=0),
            "max": max(h["max"] for h in histograms), "sub_bits": dp.SUB_BITS}


def summed(part, streams):
    """One part's streams summed, each stream's own as rows (docs/worker-protocol.md,
    "result")."""
    out = loops.blank_result(part, streams[0]["path"])
    for name in loops.COUNTERS:
        out[name] = sum(s[name] for s in streams)
    out["ended_by"] = next((s["ended_by"] for s in streams if s["ended_by"]), "")
    firsts = [s["first_ns"] for s in streams if s["first_ns"] > 0]
    out["first_ns"] = min(firsts) if firsts else 0
    out["end_ns"] = max(s["end_ns"] for s in streams)
    out["thread_id"] = streams[0]["thread_id"]
    usage = {"cpu_user_s": 0.0, "cpu_sys_s": 0.0, "max_rss_kib": 0, "voluntary_ctx_switches": 0,
             "involuntary_ctx_switches": 0, "cpus_seen": 0}
    for s in streams:
        u = s["usage"]
        for key in ("cpu_user_s", "cpu_sys_s", "voluntary_ctx_switches",
                    "involuntary_ctx_switches"):
            usage[key] += u[key]
        usage["max_rss_kib"] = max(usage["max_rss_kib"], u["max_rss_kib"])
        usage["cpus_seen"] |= u["cpus_seen"]
    out["usage"] = usage
    out["histogram"] = merge_histograms([s["histogram"] for s in streams])
    for k, s in enumerate(streams):
        if s["error"]:
            out["error"] = s["error"] + (f" (stream {k})" if len(streams) > 1 else "")
            out["status"] = s["status"]
            break
    rows = [[s[name] for name in loops.COUNTERS] +
            [s["first_ns"], s["end_ns"], s["thread_id"], s["usage"]["cpu_user_s"],
             s["usage"]["cpu_sys_s"], s["status"]] for s in streams]
    errors = [{"stream": k, "error": s["error"]} for k, s in enumerate(streams) if s["error"]]
    out["streams"] = {"rows": rows, "errors": errors}
    return out


class IntervalReporter:
    """--interval: what the receivers (pingers) counted since the last report, over the time
    since then as measured; the reports add up to the run."""

    def __init__(self, job, tasks, channel):
        c = job["case"]
        self.size = c["size_bytes"]
        self.interval_ns = int(c.get("interval_s", 0) * 1e9)
        self.tasks = [t for t in tasks if t[0] in ("receive", "ping")]
        self.channel = channel
        self.start = time.monotonic_ns() + int(c["warmup_s"] * 1e9)
        self.last_end = self.start
        self.next_due = self.start + self.interval_ns if self.interval_ns > 0 else 2 ** 62
        self.last_messages = self.last_lost = 0

    def report_due(self):
        now = time.monotonic_ns()
        if now < self.next_due:
            return
        self.send(now)
        while self.next_due <= now:
            self.next_due += self.interval_ns

    def report_last(self):
        self.report_due()
        now = time.monotonic_ns()
        if self.interval_ns > 0 and now > self.last_end:
            self.send(now, (now - self.last_end) * 100 < self.interval_ns)

    def send(self, now, only_if_new=False):
        if not self.tasks:
            return
        messages = sum(t[3].messages for t in self.tasks)
        expected = sum(t[3].expected_next for t in self.tasks)
        if only_if_new and messages == self.last_messages:
            return
        lost = max(0, expected - messages)
        new = messages - self.last_messages
        self.channel.send({"type": "interval", "end_s": (now - self.start) / 1e9,
                           "seconds": (now - self.last_end) / 1e9, "messages": new,
                           "bytes": new * self.size,
                           "lost": max(0, lost - self.last_lost)})
        self.last_messages, self.last_lost, self.last_end = messages, lost, now


def main(argv=None, implementation="python"):
    import socket
    argv = sys.argv[1:] if argv is None else argv
    if "--runtime-version" in argv:
        print(runtime_name())
        return 0
    if len(argv) == 4 and argv[0] == "--api" and argv[1] in API:
        if argv[1] == "buffered":
            from . import buffered_api as api
        else:
            from . import asyncio_api as api
        api.use()
        API[argv[1]] = api
        implementation += ":" + argv[1]  # it names itself as ipchost named it: KIT:API
        argv = argv[2:]
    if len(argv) != 2 or argv[0] != "--control-socket" or not argv[1].isdigit():
        print("usage: ipcbench_worker.py [--api buffered|asyncio] --control-socket FD (ipchost starts "
              "this worker: ipchost --impl python ...; docs/worker-protocol.md)", file=sys.stderr)
        return 2
    sock = socket.socket(fileno=int(argv[1]))
    sock.setblocking(True)
    return Session(sock, implementation).serve()
