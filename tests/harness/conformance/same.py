#!/usr/bin/env python3
"""Compares two conformance runs (`-o DIR` outputs) check by check: `same.py LABEL DIR_A DIR_B`.

The runs agree when every scenario reported the same checks with the same statuses in both
(SUCCESS, FAILURE, WARNING, SKIPPED, INFO alike). A gateway is transparent only if its run
agrees with the run against the server behind it: a check that passes directly but is skipped
through the gateway is a difference, even though neither run fails. Prints each difference.
"""
import collections
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from check import scenario_statuses  # noqa: E402


def main():
    label, a_dir, b_dir = sys.argv[1:4]
    a, b = scenario_statuses(a_dir), scenario_statuses(b_dir)
    if not a or not b:
        print(f"[{label}] a run is missing: nothing to compare", file=sys.stderr)
        return 1
    differences = 0
    for scenario in sorted(set(a) | set(b)):
        ca = collections.Counter(a.get(scenario, []))
        cb = collections.Counter(b.get(scenario, []))
        if ca != cb:
            differences += 1
            only_a = sorted((ca - cb).elements(), key=str)
            only_b = sorted((cb - ca).elements(), key=str)
            print(f"[{label}] DIFFERS {scenario}: directly {only_a}, here {only_b}")
    checks = sum(len(v) for v in b.values())
    if differences:
        print(f"[{label}] {differences} scenarios differ from the direct run")
        return 1
    print(f"[{label}] the same {checks} checks with the same statuses as the direct run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
