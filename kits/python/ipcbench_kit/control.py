"""The control channel of docs/worker-protocol.md: frames of a 4-byte big-endian length and
that many bytes of UTF-8 JSON, an object with a string "type"."""

import json
import select
import socket
import struct
import time

# MAX_FRAME_BYTES and the status codes (OK, E_*: sdk/include/ipcbench/transport.h), used in
# "error" and results, come from the protocol's definition (protocol/worker-protocol.json).
from .protocol_generated import (E_BAD_ADDRESS, E_BAD_OPTION, E_CLOSED, E_INTERNAL,  # noqa: F401
                                 E_INVALID, E_NO_MEMORY, E_SYSTEM, E_TIMEOUT, E_TOO_BIG,
                                 E_TRUNCATED, E_UNKNOWN_OPTION, E_UNSUPPORTED, MAX_FRAME_BYTES, OK)

LENGTH = struct.Struct(">I")


class ProtocolError(Exception):
    """The orchestrator sent something this worker cannot read."""


class KitError(Exception):
    """A request failed; `status` is one of the E_* codes."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Channel:
    def __init__(self, sock):
        self.sock = sock
        self.buffer = bytearray()

    def send(self, message):
        data = json.dumps(message, separators=(",", ":")).encode()
        self.sock.sendall(LENGTH.pack(len(data)) + data)

    def _next(self):
        if len(self.buffer) < 4:
            return None
        (length,) = LENGTH.unpack_from(self.buffer, 0)
        if length > MAX_FRAME_BYTES:
            raise ProtocolError(f"a frame of {length} bytes (at most {MAX_FRAME_BYTES})")
        if len(self.buffer) < 4 + length:
            return None
        body = bytes(self.buffer[4:4 + length])
        del self.buffer[:4 + length]
        try:
            # The C decoder counts its recursion: a frame nested too deep is a RecursionError.
            message = json.loads(body.decode())
        except RecursionError:
            raise ProtocolError("a frame nested deeper than this kit reads") from None
        except (UnicodeDecodeError, ValueError) as e:
            raise ProtocolError(f"a frame that is not JSON: {e}") from None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise ProtocolError("a message that is not an object with a string 'type'")
        return message

    def receive(self, timeout_s=None):
        """The next message; None when timeout_s passed first. EOFError when the orchestrator
        closed the channel."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            message = self._next()
            if message is not None:
                return message
            if deadline is not None:
                left = deadline - time.monotonic()
                ready, _, _ = select.select([self.sock], [], [], max(0.0, left))
                if not ready:
                    return None
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the orchestrator closed the control channel")
            self.buffer += chunk

    def poll(self):
        return self.receive(0)

    def closed(self):
        """Whether the orchestrator has closed the channel, without waiting or taking anything
        from it (a long setup looks between its endpoints, so it ends at once when told)."""
        ready, _, _ = select.select([self.sock], [], [], 0)
        return bool(ready) and self.sock.recv(1, socket.MSG_PEEK) == b""


def field(message, name, kind, required=True, default=None):
    """A field of a message, type-checked: ProtocolError naming the message and the field."""
    if name not in message:
        if required:
            raise ProtocolError(f"{message.get('type')} message field '{name}' is missing")
        return default
    value = message[name]
    ok = isinstance(value, kind) and not (kind in (int, float, (int, float)) and
                                          isinstance(value, bool))
    if not ok:
        raise ProtocolError(f"{message.get('type')} message field '{name}' has the wrong type")
    return value
