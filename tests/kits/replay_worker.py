#!/usr/bin/env python3
"""A kit worker that replays one side of a golden transcript
(docs/worker-protocol/transcripts/*.jsonl) against ipchost: it sends what the recorded worker
sent, and checks that ipchost sends what the recorded orchestrator sent, field by field, except
the values that differ from run to run (process ids, paths, addresses). A difference is
answered with an error naming it, and the replay stops (exit 3), so the case fails with it.

usage: replay_worker.py TRANSCRIPT SIDE NAME --control-socket FD
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "kits", "python"))

from ipcbench_kit.control import Channel  # noqa: E402

# Values that change from run to run; their keys must still be there.
VARYING = {"pid", "runtime_dir", "library", "library_identity", "address", "addresses",
           "sender_impl", "receiver_impl", "implementation", "runtime"}


def difference(expected, actual, where="message"):
    """'' when actual matches expected, else where and how they differ."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where} is not an object"
        for key, value in expected.items():
            if key not in actual:
                return f"{where} lacks '{key}'"
            if key in VARYING:
                continue
            d = difference(value, actual[key], f"{where}.{key}")
            if d:
                return d
        extra = set(actual) - set(expected)
        return f"{where} has fields the transcript does not: {sorted(extra)}" if extra else ""
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where} is not a list of {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            d = difference(e, a, f"{where}[{i}]")
            if d:
                return d
        return ""
    return "" if expected == actual else f"{where} is {actual!r}, the transcript has {expected!r}"


def main():
    transcript, side, name = sys.argv[1], sys.argv[2], sys.argv[3]
    fd = int(sys.argv[sys.argv.index("--control-socket") + 1])
    import socket
    channel = Channel(socket.socket(fileno=fd))
    entries = [json.loads(line) for line in open(transcript) if line.strip()]
    for entry in [e for e in entries if e["side"] == side]:
        message = entry["message"]
        if entry["from"] == "worker":
            if message["type"] == "hello":
                message = dict(message, pid=os.getpid(), implementation=name)
            channel.send(message)
            continue
        if message["type"] == "sender_done":
            continue  # when it comes is a race of the run, not the protocol
        while True:
            got = channel.receive(20)
            if got is None or got["type"] != "sender_done":
                break
        d = "nothing in 20 s" if got is None else difference(message, got)
        if d:
            channel.send({"type": "error", "stage": message["type"], "status": -4,
                          "message": f"replay of {os.path.basename(transcript)} ({side}): {d}"})
            return 3
    try:
        while channel.receive(20) is not None:
            pass
    except EOFError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
