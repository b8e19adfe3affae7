"""A Python reader of fixed-size records on a FIFO, written the two ways Python's documentation
shows reading binary data. Shares no code with kits/python.

  buffered  open(path, "rb") (an io.BufferedReader) and f.read(size) per record
            (docs.python.org, "Reading and Writing Files", io.BufferedReader): what
            `--impl python:buffered` is compared with.
  os        fd = os.open(path, os.O_RDONLY) and os.read(fd, size) per record, finishing a short
            read (docs.python.org, os.read: "Read at most n bytes"): the low-level form the
            default `--impl python` (FileIO.readinto, one read(2) a message) is compared with.

The writer: f.write(record) per record on open(path, "wb", buffering=0), so each record is one
write(2) as the kit's and the native writer's are.

    fifo_records.py read PATH COUNT SIZE [buffered|os]   creates the FIFO, reads COUNT records
    fifo_records.py write PATH COUNT SIZE                writes COUNT records of SIZE bytes

The reader prints "mb_per_sec=... msgs_per_sec=... seconds=..." from its first record to its
last.
"""
import os
import sys
import time


def read_buffered(path, count, size):
    with open(path, "rb") as f:
        first = f.read(size)
        start = time.perf_counter()
        for _ in range(count - 1):
            if len(f.read(size)) != size:
                raise SystemExit("short read")
        return first, start


def read_os(path, count, size):
    fd = os.open(path, os.O_RDONLY)
    try:
        first = os.read(fd, size)
        start = time.perf_counter()
        for _ in range(count - 1):
            record = os.read(fd, size)
            while len(record) < size:
                more = os.read(fd, size - len(record))
                if not more:
                    raise SystemExit("short read")
                record += more
        return first, start
    finally:
        os.close(fd)


def main():
    if len(sys.argv) not in (5, 6) or sys.argv[1] not in ("read", "write"):
        print("usage: fifo_records.py read|write PATH COUNT SIZE [buffered|os]", file=sys.stderr)
        return 2
    path, count, size = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    how = sys.argv[5] if len(sys.argv) == 6 else "buffered"
    if sys.argv[1] == "write":
        record = bytes(size)
        with open(path, "wb", buffering=0) as f:
            for _ in range(count):
                f.write(record)
        return 0
    os.mkfifo(path, 0o600)
    first, start = (read_os if how == "os" else read_buffered)(path, count, size)
    seconds = time.perf_counter() - start
    os.remove(path)
    print("mb_per_sec=%.1f msgs_per_sec=%.0f seconds=%.3f" % ((count - 1) * size / seconds / 1e6,
                                                              (count - 1) / seconds, seconds))
    return 0 if first else 1


if __name__ == "__main__":
    sys.exit(main())
