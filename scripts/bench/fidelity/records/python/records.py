"""A Python writer and reader of fixed-size records on each transport the Python kit offers,
written the way Python's documentation shows each. Shares no code with kits/python.

  os        the calls the Python kit makes (its manifest): pipe.fifo: open(path, "rb",
            buffering=0).readinto(view) (io.FileIO), finishing a short read, and os.write;
            socket.unix / socket.tcp: socket.socket, bind, listen, accept, connect,
            sock.recv_into(view, n) finishing a short read and sock.sendall (docs.python.org,
            socket); udp.inet: a connected socket's send(record), and recv_into(view)
  os-bytes  the same with the calls that return a new bytes a record, as the "Socket
            Programming HOWTO" and the os module show them: os.read(fd, size), sock.recv(size);
            on udp.inet sock.recvfrom(65536) and sock.sendto(record, address)
  buffered  open(path, "rb") / sock.makefile("rb") (io.BufferedReader), f.readinto(view) a
            record, as the kit; the writer unbuffered: open(path, "wb", buffering=0).write,
            sock.sendall
  buffered-bytes  the same with f.read(size) a record (a new bytes each)
  asyncio   asyncio.start_server / start_unix_server with reader.readexactly(size), and
            open_connection / open_unix_connection with writer.write and await writer.drain()
            a record (docs.python.org, "Streams")

    records.py read TRANSPORT PATH SIZE API WARMUP     makes the endpoint, writes PATH.ready
                                                       with what the writer opens, reads to the end
    records.py write TRANSPORT ENDPOINT SIZE API SECONDS

The reader prints "mb_per_sec=..." over the records from WARMUP seconds after the first to the
end (EOF on a stream, an empty datagram on UDP).
"""
import asyncio
import os
import socket
import sys
import time


class Meter:
    """Counts the records that arrive from `warmup` seconds after the first."""

    def __init__(self, size, warmup):
        self.size, self.warmup = size, warmup
        self.n, self.first, self.start, self.start_n = 0, None, None, 0

    def got(self):
        self.n += 1
        if self.start is None and self.n % 16 == 1:
            now = time.perf_counter()
            if self.first is None:
                self.first = now
            elif now - self.first >= self.warmup:
                self.start, self.start_n = now, self.n

    def report(self):
        if self.start is None:
            raise SystemExit("records.py: the run ended within its warm-up (%d records)" % self.n)
        seconds = time.perf_counter() - self.start
        n = self.n - self.start_n
        print("mb_per_sec=%.1f msgs_per_sec=%.0f seconds=%.3f" % (n * self.size / seconds / 1e6,
                                                                  n / seconds, seconds))


def ready(path, endpoint):
    with open(path + ".ready.tmp", "w") as f:
        f.write(endpoint)
    os.rename(path + ".ready.tmp", path + ".ready")


def read_fd(fd, m):
    size = m.size
    while True:
        record = os.read(fd, size)
        while 0 < len(record) < size:
            more = os.read(fd, size - len(record))
            if not more:
                return
            record += more
        if not record:
            return
        m.got()


def read_sock(sock, m):
    size = m.size
    while True:
        record = sock.recv(size)
        while 0 < len(record) < size:
            more = sock.recv(size - len(record))
            if not more:
                return
            record += more
        if not record:
            return
        m.got()


def read_file(f, m):
    size = m.size
    while len(f.read(size)) == size:
        m.got()


def read_into(read, m):
    """read(view) -> bytes read (FileIO.readinto, socket.recv_into, BufferedReader.readinto)
    into one record's buffer, a short read finished; 0 at the end."""
    size = m.size
    view = memoryview(bytearray(size))
    while True:
        n = read(view)
        while 0 < n < size:
            more = read(view[n:])
            if not more:
                return
            n += more
        if not n:
            return
        m.got()


def listening(transport, path):
    if transport == "socket.unix":
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        endpoint = path
    else:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind(("127.0.0.1", 0))
        endpoint = "127.0.0.1:%d" % server.getsockname()[1]
    server.listen(1)
    return server, endpoint


def connected(transport, endpoint):
    if transport == "socket.unix":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(endpoint)
    else:
        host, port = endpoint.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)))
    return sock


async def read_asyncio(transport, path, m):
    done = asyncio.get_running_loop().create_future()

    async def serve(reader, writer):
        try:
            while True:
                await reader.readexactly(m.size)
                m.got()
        except asyncio.IncompleteReadError:
            pass
        writer.close()
        done.set_result(None)

    if transport == "socket.unix":
        server = await asyncio.start_unix_server(serve, path=path)
        ready(path, path)
    else:
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        ready(path, "127.0.0.1:%d" % server.sockets[0].getsockname()[1])
    await done
    server.close()


async def write_asyncio(transport, endpoint, size, until):
    if transport == "socket.unix":
        _, writer = await asyncio.open_unix_connection(endpoint)
    else:
        host, port = endpoint.rsplit(":", 1)
        _, writer = await asyncio.open_connection(host, int(port))
    record = bytes(size)
    i = 0
    while i % 16 or time.perf_counter() < until:
        writer.write(record)
        await writer.drain()
        i += 1
    writer.close()
    await writer.wait_closed()


def read(transport, path, api, m):
    if api == "asyncio":
        asyncio.run(read_asyncio(transport, path, m))
    elif transport == "pipe.fifo":
        os.mkfifo(path, 0o600)
        ready(path, path)
        if api == "buffered":
            with open(path, "rb") as f:
                read_into(f.readinto, m)
        elif api == "buffered-bytes":
            with open(path, "rb") as f:
                read_file(f, m)
        elif api == "os":
            with open(path, "rb", buffering=0) as f:
                read_into(f.readinto, m)
        else:
            fd = os.open(path, os.O_RDONLY)
            read_fd(fd, m)
            os.close(fd)
    elif transport == "udp.inet":
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", 0))
        ready(path, "127.0.0.1:%d" % sock.getsockname()[1])
        if api == "os":
            view = memoryview(bytearray(65536))
            while sock.recv_into(view):
                m.got()
        else:
            while True:
                data, _ = sock.recvfrom(65536)
                if not data:
                    break
                m.got()
    else:
        server, endpoint = listening(transport, path)
        ready(path, endpoint)
        conn, _ = server.accept()
        server.close()
        if api == "buffered":
            with conn.makefile("rb") as f:
                read_into(f.readinto, m)
        elif api == "buffered-bytes":
            with conn.makefile("rb") as f:
                read_file(f, m)
        elif api == "os":
            read_into(conn.recv_into, m)
        else:
            read_sock(conn, m)
        conn.close()


def write(transport, endpoint, size, api, until):
    record = bytes(size)
    if api == "asyncio":
        asyncio.run(write_asyncio(transport, endpoint, size, until))
        return
    if transport == "pipe.fifo":
        with open(endpoint, "wb", buffering=0) as f:
            i = 0
            while i % 16 or time.perf_counter() < until:
                f.write(record)
                i += 1
        return
    if transport == "udp.inet":
        host, port = endpoint.rsplit(":", 1)
        address = (host, int(port))
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        i = 0
        if api == "os":
            sock.connect(address)
            while i % 16 or time.perf_counter() < until:
                sock.send(record)
                i += 1
        else:
            while i % 16 or time.perf_counter() < until:
                sock.sendto(record, address)
                i += 1
        for _ in range(20):  # the end: empty datagrams, spaced, in case the first are dropped
            try:
                sock.sendto(b"", address)
            except ConnectionRefusedError:  # connected: the reader has ended and closed
                break
            time.sleep(0.005)
        return
    sock = connected(transport, endpoint)
    i = 0
    while i % 16 or time.perf_counter() < until:
        sock.sendall(record)
        i += 1
    sock.close()


def main():
    if len(sys.argv) != 7 or sys.argv[1] not in ("read", "write"):
        print("usage: records.py read TRANSPORT PATH SIZE API WARMUP | "
              "write TRANSPORT ENDPOINT SIZE API SECONDS", file=sys.stderr)
        return 2
    transport, where, size, api = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    seconds = float(sys.argv[6])
    if sys.argv[1] == "write":
        write(transport, where, size, api, time.perf_counter() + seconds)
        return 0
    m = Meter(size, seconds)
    read(transport, where, api, m)
    if transport in ("pipe.fifo", "socket.unix"):
        os.remove(where)
    m.report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
