#!/usr/bin/env python3
"""Compares a conformance run (`-o DIR` output) with an expected-failures file, strictly.

A scenario fails when any of its checks is FAILURE. The run is accepted only when the failing
scenarios are exactly the ones listed under `server:`: an unlisted failure fails, and so does a
listed scenario that now passes (remove it from the file). Checks listed under `required_checks:`
must each be SUCCESS in the run: one that is skipped, only a warning, or absent fails it too (a
scenario that skips its checks does not pass). Scenarios listed under `complete_scenarios:` must
have run with every one of their checks SUCCESS: a skipped or warning check fails the run. Prints
one line per scenario and the totals.
"""
import json
import pathlib
import re
import sys


def sections(path):
    """The `- name` items of each top-level `key:` of the file."""
    found = {}
    key = None
    for line in pathlib.Path(path).read_text().splitlines():
        top = re.match(r"^([A-Za-z_]+):", line)
        if top:
            key = top.group(1)
            found.setdefault(key, set())
            continue
        m = re.match(r"^\s*-\s*([A-Za-z0-9_./$-]+)", line)
        if m and key:
            found[key].add(m.group(1))
    return found


def statuses(out_dir):
    """Every check id of the run with the statuses it was reported with."""
    seen = {}
    for checks_file in pathlib.Path(out_dir).glob("*/checks.json"):
        for c in json.loads(checks_file.read_text()):
            seen.setdefault(c.get("id"), set()).add(c.get("status"))
    return seen


def scenario_statuses(out_dir):
    """Per scenario, the (check id, status) pairs it reported."""
    found = {}
    for checks_file in pathlib.Path(out_dir).glob("*/checks.json"):
        name = re.sub(r"^server-", "", checks_file.parent.name)
        name = re.sub(r"-\d{4}-\d{2}-\d{2}T.*$", "", name)
        for c in json.loads(checks_file.read_text()):
            found.setdefault(name, []).append((c.get("id"), c.get("status")))
    return found


def results(out_dir):
    scenarios = {}
    for checks_file in sorted(pathlib.Path(out_dir).glob("*/checks.json")):
        name = re.sub(r"^server-", "", checks_file.parent.name)
        name = re.sub(r"-\d{4}-\d{2}-\d{2}T.*$", "", name)
        checks = json.loads(checks_file.read_text())
        passed = sum(1 for c in checks if c.get("status") == "SUCCESS")
        failed = [c for c in checks if c.get("status") == "FAILURE"]
        prev = scenarios.get(name, (0, []))
        scenarios[name] = (prev[0] + passed, prev[1] + failed)
    return scenarios


def as_listed(label, failing, want, expected_file):
    """Whether the failing scenarios are exactly the listed ones: an unlisted failure, or a listed
    scenario that passes now, is said and fails the run."""
    unexpected = sorted(failing - want)
    stale = sorted(want - failing)
    if unexpected:
        print(f"[{label}] UNEXPECTED failures (fix them): {', '.join(unexpected)}")
    if stale:
        print(f"[{label}] listed but PASSING now (remove from {expected_file}): {', '.join(stale)}")
    return not unexpected and not stale


def main():
    label, out_dir, expected_file = sys.argv[1:4]
    listed = sections(expected_file)
    want = listed.get("server", set())
    required = listed.get("required_checks", set())
    got = results(out_dir)
    if not got:
        print(f"[{label}] no results in {out_dir}: the suite did not run", file=sys.stderr)
        return 1
    failing = {n for n, (_, f) in got.items() if f}
    checks_passed = sum(p for p, _ in got.values())
    checks_failed = sum(len(f) for _, f in got.values())
    for name in sorted(got):
        passed, failed = got[name]
        mark = "FAIL" if failed else "ok  "
        note = " (expected)" if name in want and failed else ""
        print(f"[{label}] {mark} {name}: {passed} passed, {len(failed)} failed{note}")
        if failed and name not in want:
            for c in failed:
                print(f"         {c.get('id')}: {c.get('errorMessage') or c.get('description')}")
    print(
        f"[{label}] scenarios: {len(got) - len(failing)} passed, {len(failing)} failed "
        f"({len(failing & want)} expected); checks: {checks_passed} passed, {checks_failed} failed"
    )
    ok = as_listed(label, failing, want, expected_file)
    seen = statuses(out_dir)
    for check in sorted(required):
        got_status = seen.get(check, {"ABSENT"})
        if got_status != {"SUCCESS"}:
            print(f"[{label}] REQUIRED check {check} is {', '.join(sorted(got_status))}, not SUCCESS")
            ok = False
    if required:
        print(f"[{label}] required checks: {len(required)} listed")
    complete = listed.get("complete_scenarios", set())
    by_scenario = scenario_statuses(out_dir)
    for scenario in sorted(complete):
        checks = by_scenario.get(scenario, [])
        if not checks:
            print(f"[{label}] COMPLETE scenario {scenario} reported no checks")
            ok = False
        for check, status in checks:
            if status != "SUCCESS":
                print(f"[{label}] COMPLETE scenario {scenario}: check {check} is {status}, not SUCCESS")
                ok = False
    if complete:
        total = sum(len(by_scenario.get(s, [])) for s in complete)
        print(f"[{label}] complete scenarios: {len(complete)} listed, {total} checks all SUCCESS" if ok else f"[{label}] complete scenarios: {len(complete)} listed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
