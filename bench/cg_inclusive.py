#!/usr/bin/env python3
"""Inclusive instructions per request, by function, from a callgrind output file.

`callgrind_annotate --inclusive=yes` lists a function once per source file its inlined code came
from, so an async fn shows up several times with partial costs. This sums a function's own cost
over all its files and adds the cost of its calls to other functions (a recursion level, `f'2`,
stays under `f`), which is the number the tables in NOTES.md use.

    bench/cg_inclusive.py CG_FILE REQUESTS [REGEX…]     functions matching any REGEX (all: '.')
    bench/cg_inclusive.py CG_FILE REQUESTS --callees FUNCTION
    bench/cg_inclusive.py CG_FILE REQUESTS --allocs     malloc calls per request

REQUESTS is the driver's `ok=` count for the profiled interval.
"""

import collections
import re
import sys

COMPRESSED = re.compile(r"\((\d+)\)(?: (.*))?")


def load(path):
    """Self cost per function and inclusive cost and count per call edge (caller, callee)."""
    names, own = {}, collections.Counter()
    edge_cost, edge_calls = collections.Counter(), collections.Counter()
    fn = callee = None
    pending = None

    def name(spec):
        m = COMPRESSED.match(spec)
        if not m:
            return spec
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names[m.group(1)]

    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if not line:
            continue
        if line[0].isdigit() or line[0] in "+-*":
            parts = line.split()
            if len(parts) < 2:
                continue
            if pending is not None:
                edge_cost[(fn, pending)] += int(parts[1])
                pending = None
            else:
                own[fn] += int(parts[1])
        elif line.startswith("fn="):
            fn = name(line[3:])
        elif line.startswith("cfn="):
            callee = name(line[4:])
        elif line.startswith("calls="):
            pending = callee
            edge_calls[(fn, callee)] += int(line[6:].split()[0])
    return own, edge_cost, edge_calls


def base(f):
    return re.sub(r"'\d+$", "", f)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    own, edge_cost, edge_calls = load(sys.argv[1])
    n = float(sys.argv[2])
    args = sys.argv[3:]
    if args[:1] == ["--allocs"]:
        calls = sum(c for (_, g), c in edge_calls.items() if g == "malloc")
        print(f"{calls / n:.1f} malloc calls per request")
        return
    if args[:1] == ["--callees"]:
        want = args[1]
        out = collections.Counter()
        for (f, g), c in edge_cost.items():
            if base(f) == want and base(g) != want:
                out[base(g)] += c
        self_cost = sum(c for f, c in own.items() if base(f) == want)
        for g, c in out.most_common():
            if c / n >= 20:
                print(f"{c / n / 1000:8.2f}k  {g}")
        print(f"{self_cost / n / 1000:8.2f}k  (self)")
        return
    pats = [re.compile(p) for p in (args or ["."])]
    incl = collections.Counter()
    for f, c in own.items():
        if not re.search(r"'\d+$", f):
            incl[f] += c
    for (f, g), c in edge_cost.items():
        if not re.search(r"'\d+$", f):
            incl[f] += c
    total = sum(own.values())
    print(f"{total / n / 1000:8.2f}k  whole process")
    for f, c in incl.most_common():
        if c / n >= 50 and any(p.search(f) for p in pats):
            print(f"{c / n / 1000:8.2f}k  {f}")


if __name__ == "__main__":
    main()
