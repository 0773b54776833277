#!/usr/bin/env python3
"""Judges one run of the official suite's client scenarios (`npx conformance client -o DIR`)
against an expected-failures file, strictly.

A scenario fails when any check is FAILURE or WARNING (the suite counts a warning as a failure
in client mode), when it reports no SUCCESS at all (a client that does nothing "passes" some
scenarios with only skipped checks), or when the client's own result line on stdout is not the
one the scenario wants (`ok`, or `rejected` for those listed under `rejecting_scenarios:`): a
run with `--suite` does not record the exit code. The failing scenarios must be exactly those
listed under `client:`; every scenario under `required_scenarios:` must have run; every check
under `required_checks:` (an id or a name) must be SUCCESS wherever it is reported, and be
reported. Scenarios under `judged_alone:` are skipped here (they have their own run).
"""
import json
import pathlib
import re
import sys

from check import as_listed, sections  # the expected-failures file format, shared with the server runs

STAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$")
MARK = "phantom-conformance-client: "


def scenarios(out_dir):
    """Per scenario name (`auth/x` included): its checks and the client's result line."""
    found = {}
    root = pathlib.Path(out_dir)
    for checks_file in root.rglob("checks.json"):
        name = STAMP.sub("", str(checks_file.parent.relative_to(root)))
        stdout = checks_file.parent / "stdout.txt"
        lines = stdout.read_text().splitlines() if stdout.exists() else []
        result = next((l[len(MARK):] for l in lines if l.startswith(MARK)), None)
        found[name] = (json.loads(checks_file.read_text()), result)
    return found


def main():
    label, out_dir, expected_file = sys.argv[1:4]
    listed = sections(expected_file)
    want = listed.get("client", set())
    got = scenarios(out_dir)
    if not got:
        print(f"[{label}] no results in {out_dir}: the suite did not run", file=sys.stderr)
        return 1
    ok = True
    failing = set()
    alone = listed.get("judged_alone", set())
    checks_passed = 0
    for name in sorted(got):
        if name in alone:
            continue
        checks, result = got[name]
        bad = [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]
        passed = sum(1 for c in checks if c.get("status") == "SUCCESS")
        checks_passed += passed
        wanted = "rejected" if name in listed.get("rejecting_scenarios", set()) else "ok"
        why = [f"{c.get('status')} {c.get('id')}: {c.get('errorMessage') or c.get('description')}" for c in bad]
        if passed == 0:
            why.append("no check SUCCESS (the scenario was not exercised)")
        if result is None or not result.startswith(wanted):
            why.append(f"the client said `{result}`, not `{wanted}`")
        mark = "FAIL" if why else "ok  "
        note = " (expected)" if why and name in want else ""
        print(f"[{label}] {mark} {name}: {passed} passed, {len(bad)} failed or warned{note}")
        if why:
            failing.add(name)
            if name not in want:
                for w in why:
                    print(f"         {w}")
    judged = len(got) - len(alone & set(got))
    print(f"[{label}] scenarios judged: {judged - len(failing)} passed, {len(failing)} failed; "
          f"checks: {checks_passed} passed")
    ok = as_listed(label, failing, want, expected_file) and ok
    missing = sorted(listed.get("required_scenarios", set()) - set(got))
    if missing:
        print(f"[{label}] REQUIRED scenarios that did not run: {', '.join(missing)}")
        ok = False
    for check in sorted(listed.get("required_checks", set())):
        statuses = {c.get("status") for checks, _ in got.values() for c in checks
                    if check in (c.get("id"), c.get("name"))}
        if statuses != {"SUCCESS"}:
            print(f"[{label}] REQUIRED check {check} is {', '.join(sorted(statuses)) or 'ABSENT'}, not SUCCESS")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
