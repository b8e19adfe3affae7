#!/usr/bin/env python3
"""The plain Python loop the Python kit is measured against (scripts/bench.sh): the same calls
a Python program makes, in two processes, nothing around them. A writer and a reader on a FIFO
(os.write / FileIO.readinto) or a Unix stream socket (sendall / recv_into), SIZE-byte messages
back to back for SECONDS; the reader times first to last message. lat: ping-pong over a Unix
socket, the median round trip.

  plainloop.py tput fifo|unix SIZE SECONDS   -> mb_per_sec=X
  plainloop.py lat unix SIZE SECONDS         -> p50_ns=X
"""
import io
import os
import socket
import sys
import tempfile
import time

mode, kind, size, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
folder = tempfile.mkdtemp(prefix="plainloop-")
path = os.path.join(folder, "p")
listener = None
if kind == "fifo":
    os.mkfifo(path, 0o600)
else:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
pid = os.fork()
if pid == 0:  # the writer (ponger)
    # PLAINLOOP_CHILD_CPU=N: on CPU N, as ipchost --affinity pins the other side; the parent is
    # pinned by whoever starts it (taskset).
    if os.environ.get("PLAINLOOP_CHILD_CPU"):
        os.sched_setaffinity(0, {int(os.environ["PLAINLOOP_CHILD_CPU"])})
    m = bytearray(size)
    if mode == "lat":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        view = memoryview(m)
        while True:
            got = 0
            while got < size:
                n = s.recv_into(view[got:])
                if not n:
                    os._exit(0)
                got += n
            s.sendall(m)
    end = time.monotonic_ns() + int(seconds * 1e9)
    if kind == "fifo":
        fd = os.open(path, os.O_WRONLY)
        write = lambda: os.write(fd, m)  # noqa: E731
    else:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        write = lambda: s.sendall(m)  # noqa: E731
    n = 0
    try:
        while True:
            write()
            n += 1
            if not n & 15 and time.monotonic_ns() >= end:
                break
    except OSError:
        pass
    os._exit(0)
m = bytearray(size)
view = memoryview(m)
if mode == "lat":
    c, _ = listener.accept()
    rtts = []
    end = time.monotonic_ns() + int(seconds * 1e9)
    while time.monotonic_ns() < end:
        t0 = time.monotonic_ns()
        c.sendall(m)
        got = 0
        while got < size:
            got += c.recv_into(view[got:])
        rtts.append(time.monotonic_ns() - t0)
    c.close()
    rtts.sort()
    print(f"p50_ns={rtts[len(rtts) // 2]}")
else:
    if kind == "fifo":
        f = io.FileIO(os.open(path, os.O_RDONLY), "rb")
        read = f.readinto
    else:
        c, _ = listener.accept()
        read = c.recv_into
    total = first = last = 0
    while True:
        got = read(view)
        if got == size:
            pass
        elif got == 0:
            break
        else:
            while got < size:
                n = read(view[got:])
                if not n:
                    break
                got += n
            if got < size:
                break
        now = time.monotonic_ns()
        if not total:
            first = now
        total += size
        last = now
    print(f"mb_per_sec={total / ((last - first) / 1e9) / 1e6 if last > first else 0:.3f}")
os.waitpid(pid, 0)
os.unlink(path)
os.rmdir(folder)
