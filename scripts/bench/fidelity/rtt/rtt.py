"""A Python request–response pair on TCP, written the way the socket module's documentation
shows an echo client and server (docs.python.org, "socket — Example"): socket.create_server
and accept, socket.create_connection, sendall of each request and recv_into of its reply until
it is whole; TCP_NODELAY set, as a request–response program sets it. Shares no code with
kits/python.

    rtt.py serve PORTFILE SIZE          listens on 127.0.0.1:0, writes the port, echoes until EOF
    rtt.py ping PORT COUNT SIZE WARMUP  WARMUP seconds of untimed round trips, then COUNT timed

The pinger prints "p50_ns=... p99_ns=... trips=...".
"""
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


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 6 and sys.argv[1] == "ping":
        ping(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    else:
        print("usage: rtt.py serve PORTFILE SIZE | ping PORT COUNT SIZE WARMUP", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
