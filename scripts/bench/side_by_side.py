#!/usr/bin/env python3
"""Two outputs of scripts/bench.sh side by side (a before/after of a harness change).

usage: scripts/bench/side_by_side.py BEFORE.md AFTER.md

Each run's figures drift with the machine, so the rows compared are the ratios each run measured
against its own reference (alternated in that run): a row is the same table's row in both files,
named by the cells before its two measured figures. Tables without a ratio (scaling, many
streams: one run each) compare their first MB/s or ms column and say so. A ratio row is marked
"slower" (or "faster") only when the two runs' 95 % intervals do not overlap, the after one on
the worse (better) side: for a latency or a "<=" target above, otherwise below. Comparing the
after interval with the before median alone flagged rows that neither build takes part in (the
plain epoll loop against itself) on this VM, so it is not the rule.
"""
import re
import sys

RATIO = re.compile(r"^(-?\d+(?:\.\d+)?) \[(-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\] n=(\d+)$")


LATENCY = re.compile(r"latency|round trip|one-way|p50", re.IGNORECASE)


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables(path):
    """Yields (heading, header cells, row cells) for every Markdown table row in the file."""
    heading, header = "", None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                heading, header = line.lstrip("#").strip(), None
            elif not line.startswith("|"):
                header = None
            elif header is None:
                header = cells(line)
            elif not set(line.strip()) <= set("|-: "):
                yield heading, header, cells(line)


def figures(path):
    """{(heading, key): (kind, value, low, high, lower_is_better)} for one bench.sh output."""
    out = {}
    for heading, header, row in tables(path):
        ratio_at = next((i for i, c in enumerate(row) if RATIO.match(c)), None)
        if ratio_at is not None and ratio_at >= 2:
            m = RATIO.match(row[ratio_at])
            key = " · ".join(row[: ratio_at - 2])
            lower = "<=" in heading + " ".join(row) or LATENCY.search(heading + " " + key) is not None
            out[(heading, key)] = ("ratio", *map(float, m.groups()[:3]), lower)
            continue
        col = next((i for i, h in enumerate(header) if "MB/s" in h or h.endswith(" ms")), None)
        if col is None or col >= len(row) or col == 0:
            continue
        try:
            value = float(row[col].split()[0])
        except ValueError:
            continue
        key = " · ".join(row[:col]) + " (" + header[col] + ", one run)"
        out[(heading, key)] = ("single", value, value, value, header[col].endswith(" ms"))
    return out


def verdict(before, after):
    kind, _, b_lo, b_hi, lower = before
    _, _, lo, hi, _ = after
    if kind != "ratio":
        return ""
    if lo > b_hi:
        return "**slower**" if lower else "faster"
    if hi < b_lo:
        return "faster" if lower else "**slower**"
    return "same"


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: side_by_side.py BEFORE.md AFTER.md (two outputs of scripts/bench.sh)")
    before, after = figures(argv[1]), figures(argv[2])
    if not before or not after:
        sys.exit("no tables found in " + (argv[1] if not before else argv[2]) +
                 ": give the Markdown scripts/bench.sh prints")
    print("| table | row | before | after | after vs before |")
    print("|---|---|---:|---:|---|")
    last = None
    for (heading, key), fig in after.items():
        old = before.get((heading, key))
        fmt = "{:.2f} [{:.2f}, {:.2f}]" if fig[0] == "ratio" else "{:g}"
        now = fmt.format(*fig[1:4]) if fig[0] == "ratio" else fmt.format(fig[1])
        was = "-" if old is None else (fmt.format(*old[1:4]) if fig[0] == "ratio"
                                       else fmt.format(old[1]))
        shown = heading if heading != last else ""
        last = heading
        print(f"| {shown} | {key} | {was} | {now} | {verdict(old, fig) if old else 'new'} |")
    for (heading, key), fig in before.items():
        if (heading, key) not in after:
            print(f"| {heading} | {key} | {fig[1]:.2f} | - | not in the after run |")


if __name__ == "__main__":
    main(sys.argv)
