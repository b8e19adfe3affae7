"""A Python reader of fixed-size records on a FIFO, written the way Python's documentation shows
reading binary data from a file: open(path, "rb") (a BufferedReader) and f.read(size) per record
(docs.python.org, "Reading and Writing Files", io.BufferedReader); the writer f.write(record)
per record on open(path, "wb", buffering=0), so each record is one write(2) as the kit's and
the native writer's are. Shares no code with kits/python.

    fifo_records.py read PATH COUNT SIZE     creates the FIFO at PATH, reads COUNT records
    fifo_records.py write PATH COUNT SIZE    writes COUNT records of SIZE bytes

The reader prints "mb_per_sec=... msgs_per_sec=... seconds=..." from its first record to its
last.
"""
import os
import sys
import time


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("read", "write"):
        print("usage: fifo_records.py read|write PATH COUNT SIZE", file=sys.stderr)
        return 2
    path, count, size = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if sys.argv[1] == "write":
        record = bytes(size)
        with open(path, "wb", buffering=0) as f:
            for _ in range(count):
                f.write(record)
        return 0
    os.mkfifo(path, 0o600)
    with open(path, "rb") as f:
        first = f.read(size)
        start = time.perf_counter()
        for _ in range(count - 1):
            if len(f.read(size)) != size:
                print("short read", file=sys.stderr)
                return 1
        seconds = time.perf_counter() - start
    os.remove(path)
    print("mb_per_sec=%.1f msgs_per_sec=%.0f seconds=%.3f" % ((count - 1) * size / seconds / 1e6,
                                                              (count - 1) / seconds, seconds))
    return 0 if first else 1


if __name__ == "__main__":
    sys.exit(main())
