#!/usr/bin/env python3
"""A kit worker that breaks the protocol on purpose, one way per MODE, so the suite can show
that each check of ipchost (a run, ipchost check --impl) catches it:

  crash-at-hello  exits with code 3 before saying anything
  hang            says nothing, ever
  wrong-version   offers worker protocol 2.0 only
  wrong-name      says it is another implementation than its manifest
  miscount        a real Python worker whose sender reports one message more than it sent
  ignore-version  takes a welcome it did not offer, and messages before the welcome
  refuse-wrongly  refuses a message it cannot take with status -9 (unsupported), not -4
  late-count      a real Python worker whose streams publish no count while they run
  wrong-cpu       a real Python worker that pins itself to the CPU after the one --affinity asks
  cpu-inflated    a real Python worker that reports three times the CPU its loops used
  blind           a real Python worker whose --verify finds every payload intact
  echo-marker     a real Python worker whose ponger counts the end marker in `echoed`
  slow-setup      a real Python worker that takes 1.1 s to open each endpoint (a loaded machine
                  making 20,001 FIFOs): it says progress between them (worker protocol 1.2)
  slow-silent     the same, saying nothing while it opens
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "kits", "python"))

from ipcbench_kit import loops, session  # noqa: E402


def main():
    mode, fd = sys.argv[1], int(sys.argv[sys.argv.index("--control-socket") + 1])
    if mode == "crash-at-hello":
        sys.exit(3)
    if mode == "hang":
        while True:
            time.sleep(60)
    import socket
    sock = socket.socket(fileno=fd)
    name = sys.argv[2] if sys.argv[2] != "--control-socket" else "broken"
    if "--api" in sys.argv:  # KIT:API: ipchost appended --api API; the worker names itself so
        name += ":" + sys.argv[sys.argv.index("--api") + 1]
    if mode == "wrong-version":
        session.VERSIONS[:] = ["2.0"]
    if mode == "wrong-name":
        return session.Session(sock, "native").serve()
    if mode == "miscount":
        real = loops.run_sender

        def lying_sender(*args):
            result = real(*args)
            result["messages_sent"] += 1
            return result
        loops.run_sender = lying_sender
    if mode == "ignore-version":
        class Lax(session.Session):
            def dispatch(self, kind, m):
                self.welcomed = True
                if kind == "welcome":
                    return False
                return super().dispatch(kind, m)
        return Lax(sock, name).serve()
    if mode == "refuse-wrongly":
        class Wrong(session.Session):
            def error(self, stage, status, text):
                super().error(stage, -9 if status == -4 else status, text)
        return Wrong(sock, name).serve()
    if mode == "late-count":
        class Hidden(loops.Progress):
            """The count is kept, but whoever reads it while the stream runs sees 0."""
            messages = property(lambda self: self.__dict__.get("_m", 0) if self.finished else 0,
                                lambda self, v: self.__dict__.__setitem__("_m", v))
        loops.Progress = Hidden
    if mode == "wrong-cpu":
        pin = os.sched_setaffinity
        os.sched_setaffinity = lambda pid, cpus: pin(pid, {(min(cpus) + 1) % os.cpu_count()})
    if mode == "echo-marker":
        pong = loops.run_ponger

        def counting_the_marker(*args):
            result = pong(*args)
            result["echoed"] += 1
            return result
        loops.run_ponger = counting_the_marker
    if mode == "blind":
        from ipcbench_kit import dataplane
        dataplane.Pattern.matches = lambda self, buf, seq: True
    if mode == "cpu-inflated":
        class Inflated(loops.Usage):
            def stop(self):
                u = super().stop()
                u["cpu_user_s"] = 3 * u["cpu_user_s"] + 0.2
                return u
        loops.Usage = Inflated
    if mode in ("slow-setup", "slow-silent"):
        opening = session.open_endpoint

        def slowly(*args):
            time.sleep(1.1)
            return opening(*args)
        session.open_endpoint = slowly
        if mode == "slow-silent":
            session.Session.still_opening = lambda self, opened: None
    return session.Session(sock, name).serve()


if __name__ == "__main__":
    sys.exit(main())
