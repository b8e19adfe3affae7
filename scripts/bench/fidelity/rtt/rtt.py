"""A Python request–response pair on TCP, written the way the socket module's documentation
shows an echo client and server (docs.python.org, "socket — Example"): socket.create_server
and accept, socket.create_connection, sendall of each request and recv_into of its reply until
it is whole; TCP_NODELAY set, as a request–response program sets it. With `asyncio` last, the
same pair as the asyncio streams documentation shows a TCP echo client and server
(docs.python.org, "Streams", "TCP echo client/server using streams"): asyncio.start_server,
asyncio.open_connection, writer.write and await writer.drain(), await reader.readexactly(size):
what `--impl python:asyncio` is compared with. Shares no code with kits/python.

    rtt.py serve PORTFILE SIZE [asyncio]          listens on 127.0.0.1:0, writes the port, echoes until EOF
    rtt.py ping PORT COUNT SIZE WARMUP [asyncio]  WARMUP seconds of untimed round trips, then COUNT timed

The pinger prints "p50_ns=... p99_ns=... trips=...".
"""
import asyncio
import socket
import sys
import time


def recv_exactly(conn, view):
    got = 0
    while got < len(view):
        n = conn.recv_into(view[got:])
        if not n:
            return False
        got += n
    return True


def serve(port_file, size):
    with socket.create_server(("127.0.0.1", 0)) as server:
        with open(port_file, "w") as f:
            f.write(str(server.getsockname()[1]))
        conn, _ = server.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = bytearray(size)
        view = memoryview(buf)
        while recv_exactly(conn, view):
            conn.sendall(buf)


def ping(port, count, size, warmup):
    conn = socket.create_connection(("127.0.0.1", port))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    request = bytes(size)
    reply = memoryview(bytearray(size))
    end = time.monotonic() + warmup
    while time.monotonic() < end:
        conn.sendall(request)
        recv_exactly(conn, reply)
    trips = []
    clock = time.perf_counter_ns
    for _ in range(count):
        start = clock()
        conn.sendall(request)
        recv_exactly(conn, reply)
        trips.append(clock() - start)
    conn.close()
    trips.sort()
    print("p50_ns=%d p99_ns=%d trips=%d" % (trips[count // 2], trips[count * 99 // 100], count))


async def serve_asyncio(port_file, size):
    done = asyncio.Event()

    async def echo(reader, writer):
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                writer.write(await reader.readexactly(size))
                await writer.drain()
        except asyncio.IncompleteReadError:
            writer.close()
            done.set()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    with open(port_file, "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    await done.wait()
    server.close()


async def ping_asyncio(port, count, size, warmup):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    request = bytes(size)
    end = time.monotonic() + warmup
    while time.monotonic() < end:
        writer.write(request)
        await writer.drain()
        await reader.readexactly(size)
    trips = []
    clock = time.perf_counter_ns
    for _ in range(count):
        start = clock()
        writer.write(request)
        await writer.drain()
        await reader.readexactly(size)
        trips.append(clock() - start)
    writer.close()
    trips.sort()
    print("p50_ns=%d p99_ns=%d trips=%d" % (trips[count // 2], trips[count * 99 // 100], count))


def main():
    aio = sys.argv[-1] == "asyncio"
    args = sys.argv[:-1] if aio else sys.argv
    if len(args) == 4 and args[1] == "serve":
        if aio:
            asyncio.run(serve_asyncio(args[2], int(args[3])))
        else:
            serve(args[2], int(args[3]))
    elif len(args) == 6 and args[1] == "ping":
        call = (lambda *a: asyncio.run(ping_asyncio(*a))) if aio else ping
        call(int(args[2]), int(args[3]), int(args[4]), float(args[5]))
    else:
        print("usage: rtt.py serve PORTFILE SIZE | ping PORT COUNT SIZE WARMUP [asyncio]",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
