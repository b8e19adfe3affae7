"""The buffered API (--api buffered, `--impl python:buffered`): a byte stream read the way
Python's documentation shows reading binary data, through an io.BufferedReader: open(path, "rb")
on a FIFO, socket.makefile("rb") on a socket; each message is one f.readinto(view) (which fills
the view, as f.read(size) returns size bytes), so one read(2) of the transport takes as many
small messages as its 8 KiB buffer holds. The writer is the kit's own: one os.write / sendall a
message, as a program writes a record or a request unbuffered (open(path, "wb", buffering=0)).

The kit figure `read_syscalls` counts the read(2)-family calls of the whole process while it ran
(/proc/self/io syscr, from the data plane's connect): a FIFO's reads are among them, a socket's
recv(2) is not.
"""

import functools
import io

from . import transports

_BYTE_STREAMS = ("pipe.fifo", "socket.unix", "socket.tcp")
_state = {"in_use": False, "syscr": None}


def _syscr():
    try:
        with open("/proc/self/io", "rb") as f:
            for line in f:
                if line.startswith(b"syscr:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def use():
    """Registers the buffered form of each byte-stream transport; datagrams are not offered."""
    _state["in_use"] = True
    for tid in _BYTE_STREAMS:
        transports.register(tid, functools.partial(_open, transports._TRANSPORTS[tid]))
    transports._TRANSPORTS.pop("udp.inet", None)


def kit_figures():
    if not _state["in_use"] or _state["syscr"] is None:
        return {}
    now = _syscr()
    return {} if now is None else {"read_syscalls": now - _state["syscr"]}


def _open(builtin, *args):
    ep = builtin(*args)
    connect, close = ep.connect, ep.close
    reader = []

    def buffered_connect(timeout_s):
        connect(timeout_s)
        sock = getattr(ep, "sock", None)
        if sock is not None:
            f = sock.makefile("rb")
        elif ep.direction == transports.RECV:
            f = io.open(ep.fd, "rb", closefd=False)
        else:
            return
        reader.append(f)
        if _state["syscr"] is None:
            _state["syscr"] = _syscr()
        ep.raw_recv_into = f.readinto  # the loops' fast path: one call a message
        ep.recv_call = "BufferedReader.readinto"

        def recv_into(buf, timeout_s=None):
            if timeout_s is not None:  # streams are reliable: the loops pass no timeout to them
                transports.wait_fd(f.fileno(), transports.select.POLLIN,
                                   transports.deadline_of(timeout_s), "recv")
            return f.readinto(buf)
        ep.recv_into = recv_into

    def buffered_close():
        for f in reader:  # a socket closes only once its makefile() files are closed
            f.close()
        reader.clear()
        close()

    ep.connect, ep.close = buffered_connect, buffered_close
    return ep
