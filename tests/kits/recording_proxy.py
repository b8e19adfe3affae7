#!/usr/bin/env python3
"""A kit worker that records a session: it starts the real worker given after its own
arguments on a socket pair of its own, relays every control frame both ways unchanged, and
writes each one to OUT_DIR/<pid>.jsonl as {"from": "orchestrator"|"worker", "message": {...}}.
scripts/record-transcripts.sh turns those into docs/worker-protocol/transcripts/.

usage: recording_proxy.py OUT_DIR WORKER ARGS... --control-socket FD
"""

import json
import os
import selectors
import socket
import struct
import subprocess
import sys


def frames(buffer):
    """Whole frames out of buffer (a bytearray), as (raw bytes, message)."""
    out = []
    while len(buffer) >= 4:
        (n,) = struct.unpack_from(">I", buffer, 0)
        if len(buffer) < 4 + n:
            break
        raw = bytes(buffer[:4 + n])
        del buffer[:4 + n]
        try:
            message = json.loads(raw[4:].decode())
        except ValueError:
            message = {"unparsed": raw[4:].decode(errors="replace")}
        out.append((raw, message))
    return out


def main():
    fd = int(sys.argv[sys.argv.index("--control-socket") + 1])
    out_dir, worker = sys.argv[1], sys.argv[2:sys.argv.index("--control-socket")]
    host = socket.socket(fileno=fd)
    ours, theirs = socket.socketpair()
    child = subprocess.Popen(worker + ["--control-socket", str(theirs.fileno())],
                             pass_fds=[theirs.fileno()])
    theirs.close()
    log = open(os.path.join(out_dir, f"{os.getpid()}.jsonl"), "w")
    pending = {host: bytearray(), ours: bytearray()}
    peer = {host: ours, ours: host}
    origin = {host: "orchestrator", ours: "worker"}
    sel = selectors.DefaultSelector()
    for s in (host, ours):
        sel.register(s, selectors.EVENT_READ)
    open_ends = 2
    while open_ends:
        for key, _ in sel.select():
            s = key.fileobj
            data = s.recv(65536)
            if not data:
                sel.unregister(s)
                peer[s].shutdown(socket.SHUT_WR)
                open_ends -= 1
                continue
            pending[s] += data
            for raw, message in frames(pending[s]):
                log.write(json.dumps({"from": origin[s], "message": message}) + "\n")
                log.flush()
                peer[s].sendall(raw)
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
