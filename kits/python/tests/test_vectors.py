"""The shared vectors of protocol/vectors (docs/worker-protocol.md, "Shared vectors"): the
tables the host's unit tests run, here against this kit's schedule, latency steps, histogram,
pattern, sequence tracker and reader. IPCBENCH_VECTORS names the folder (default: the
repository's). Run: python3 -m unittest discover -s kits/python/tests"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ipcbench_kit import dataplane as dp
from ipcbench_kit import loops

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.environ.get("IPCBENCH_VECTORS",
                         os.path.join(HERE, "..", "..", "..", "protocol", "vectors"))


def load(name):
    with open(os.path.join(VECTORS, name), encoding="utf-8") as f:
        return json.load(f)


def header(h):
    flags = {"warmup": dp.FLAG_WARMUP, "end": dp.FLAG_END}
    v = h["seq"]
    for f in h.get("flags", []):
        v |= flags[f]
    return v


class Pieces:
    """A byte stream handed over in pieces: a read takes at most the rest of a piece."""
    stream = True

    def __init__(self, data, reads):
        self.data, self.reads, self.at = data, list(reads), 0

    def recv_into(self, view, _timeout_s=None):
        while self.reads and not self.reads[0]:
            self.reads.pop(0)
        if not self.reads:
            return 0
        n = min(len(view), self.reads[0])
        view[:n] = self.data[self.at:self.at + n]
        self.reads[0] -= n
        self.at += n
        return n


class SharedVectors(unittest.TestCase):
    def test_send_schedule(self):
        for c in load("send_schedule.json")["cases"]:
            s = dp.SendSchedule(c["settings"], c["batch"])
            s.start_ns = c["start_ns"]
            for row in c["steps"]:
                with self.subTest(case=c["name"], seq=row["seq"], now=row["now_ns"]):
                    step, n, due = s.next(row["seq"], row["now_ns"], c["slot_offset_ns"])
                    self.assertEqual(step, row["step"])
                    if "count" in row:
                        self.assertEqual(n, row["count"])
                    if "due_ns" in row:
                        self.assertEqual(due, row["due_ns"])

    def test_latency_steps(self):
        v = load("latency_steps.json")
        for r in v["judge_pong"]:
            with self.subTest(judge_pong=r):
                got = dp.judge_pong(header(r["ping"]), header(r["pong"]), r["reliable"])
                self.assertEqual(got, r["verdict"])
        for r in v["ponger_step"]:
            with self.subTest(ponger_step=r):
                self.assertEqual(dp.ponger_step(header(r["header"]), r["timed_already"]), r["step"])
        for r in v["pings_done"]:
            with self.subTest(pings_done=r):
                got = dp.pings_done(r["count"], r["seq"], r["now_ns"], r["window_end_ns"])
                self.assertEqual(got, r["done"])
        for r in v["end_markers"]:
            self.assertEqual(dp.end_markers(r["reliable"]), r["markers"])
        for r in v["clock_stride"]:
            self.assertEqual(dp.clock_stride(r["size_bytes"]), r["stride"])

    def test_histogram_and_pattern(self):
        v = load("histogram_and_pattern.json")
        self.assertEqual(v["sub_bits"], dp.SUB_BITS)
        for r in v["bucket_of"]:
            self.assertEqual(dp.bucket_of(r["value"]), r["bucket"], r)
        for r in v["histograms"]:
            h = dp.Histogram()
            for x in r["values"]:
                h.record(x)
            self.assertEqual(json.loads(json.dumps(h.to_json())), r["document"])
        for r in v["patterns"]:
            with self.subTest(pattern=r):
                size, offset = r["size_bytes"], dp.pattern_offset(r["paced"])
                m = bytearray(size)
                p = dp.Pattern(size, offset)
                p.write(m, r["seq"])
                self.assertEqual(bytes(m[min(offset, size):]).hex(), r["payload_hex"])
                self.assertTrue(p.matches(m, r["seq"]))
                if size > offset:
                    m[-1] ^= 1
                    self.assertFalse(p.matches(m, r["seq"]))

    def test_sequence_tracker(self):
        v = load("sequence_tracker.json")
        self.assertEqual(v["window"], dp.SequenceTracker.WINDOW)
        for c in v["cases"]:
            with self.subTest(case=c["name"]):
                t = dp.SequenceTracker()
                fresh = [t.record(s) for s in c["arrivals"]]
                self.assertEqual(fresh, c["fresh"])
                self.assertEqual((t.duplicates, t.out_of_order, t.beyond_window, t.expected),
                                 (c["duplicates"], c["out_of_order"], c["beyond_window"],
                                  c["highest_plus_one"]))

    def test_reassembly(self):
        for c in load("reassembly.json")["cases"]:
            with self.subTest(case=c["name"]):
                size = c["size_bytes"]
                data = bytes((i + 1) & 0xFF for i in range(c["stream_bytes"]))
                reader = loops.Reader(Pieces(data, c["reads"]), size)
                firsts = []
                for k in range(c["messages"] + 1):
                    m = reader.next()
                    if m is None:
                        break
                    self.assertEqual(bytes(m), data[k * size:(k + 1) * size])
                    firsts.append(m[0])
                self.assertEqual(firsts, c["first_bytes"])


if __name__ == "__main__":
    unittest.main()
