#!/usr/bin/env bash
# Runs the MCP Inspector CLI (@modelcontextprotocol/inspector 2.12.0 on Node 22) against
# examples/studies and examples/everything over Streamable HTTP, as a new user would:
#
#   1. `tools/list` of both servers;
#   2. `tools/call` of every studies tool, with arguments made from its schema (arguments.py);
#   3. `tools/list --strict`, the Inspector's schema portability check, of both servers;
#   4. the Skills extension on examples/studies in both eras: `skills/list --verify
#      --require-digests` (every listed digest and size checked against the bytes read) and
#      `skills/get` of one skill.
#
# Fails on any failed call, any strict finding (error or warning) and any `unknown format` line:
# Ajv, the validator of the TypeScript SDK the Inspector is built on, prints one for each `format`
# it does not know, every time it compiles a schema.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
bash "$here/install.sh"
export PATH="$cache/node22/node_modules/.bin:$PATH"
inspector="$cache/inspector-2.12.0/node_modules/.bin/inspector"

cargo build --quiet -p phantom-examples --bin studies --bin everything
bin="${CARGO_TARGET_DIR:-$root/target}/debug"
work="$(mktemp -d)"
servers=()
trap 'for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"' EXIT

# shellcheck source=../examples.sh
source "$root/tests/harness/examples.sh"

status=0
fail() { echo "FAIL: $*"; status=1; }

# inspect LABEL ARGS...: runs the Inspector CLI (its state goes to $work, not to ~/.mcp-inspector),
# output in $work/LABEL.out and .err; fails on a non-zero exit or an `unknown format` line.
inspect() {
  local label="$1"; shift
  local rc=0
  (cd "$work" && HOME="$work" "$inspector" --cli "$@" --format json </dev/null \
    >"$work/$label.out" 2>"$work/$label.err") || rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "$label: the Inspector exited with $rc"; cat "$work/$label.out" "$work/$label.err"
  fi
  if grep -h "unknown format" "$work/$label.out" "$work/$label.err"; then
    fail "$label: Ajv met a format it does not know"
  fi
}

# refusal LABEL TEXT ARGS...: like `inspect`, for a call that must end in a tool error whose
# text contains TEXT (the Inspector exits with 5 on `isError: true`).
refusal() {
  local label="$1" text="$2"; shift 2
  local rc=0
  (cd "$work" && HOME="$work" "$inspector" --cli "$@" --format json </dev/null \
    >"$work/$label.out" 2>"$work/$label.err") || rc=$?
  if [ "$rc" -ne 5 ] || ! grep -q "$text" "$work/$label.out"; then
    fail "$label: expected a tool error saying '$text' (exit 5), got exit $rc"
    cat "$work/$label.out" "$work/$label.err"
  fi
}

# check_strict LABEL: the strict report is empty when no tool has a finding; otherwise it names
# each (`Error: tool "…"` / `Warning: tool "…"`) and ends with "N errors, M warnings across …".
check_strict() {
  local label="$1"
  if grep -Eq '^(Error|Warning): tool |[0-9]+ errors?, [0-9]+ warnings? across' "$work/$label.err"; then
    cat "$work/$label.err"; fail "$label: schema portability findings"
  else
    echo "$label: 0 errors, 0 warnings"
  fi
}

count_tools() {
  python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["result"]["tools"]))' "$1"
}

for server in studies everything; do
  start "$server"
  echo "==> Inspector against examples/$server ($url)"
  inspect "$server-list" "$url" --method tools/list
  echo "$server: $(count_tools "$work/$server-list.out") tools listed"
  inspect "$server-strict" "$url" --method tools/list --strict
  check_strict "$server-strict"
  if [ "$server" = studies ]; then
    python3 "$here/arguments.py" "$work/studies-list.out" >"$work/calls" || { fail "arguments"; continue; }
    calls=0
    while IFS=$'\t' read -r tool arguments; do
      if [ "$tool" = clear_notes ]; then
        # A destructive tool that asks the user first; the Inspector CLI declares no
        # elicitation, so the tool must refuse (a tool error, exit 5) rather than act.
        refusal "studies-call-$tool" "cannot ask" "$url" --method tools/call --tool-name "$tool" \
          --tool-args-json "$arguments"
      else
        inspect "studies-call-$tool" "$url" --method tools/call --tool-name "$tool" \
          --tool-args-json "$arguments"
      fi
      calls=$((calls + 1))
    done <"$work/calls"
    echo "studies: $calls tools called"
    for era in modern legacy; do
      inspect "studies-skills-$era" "$url" --protocol-era "$era" --method skills/list --verify \
        --require-digests
      if ! grep -q "no conformance errors" "$work/studies-skills-$era.err"; then
        fail "skills/list --verify ($era): no verification summary"; cat "$work/studies-skills-$era.err"
      else
        echo "studies ($era): $(grep -o 'Verified [0-9]* skills and [0-9]* files' "$work/studies-skills-$era.err")"
      fi
      inspect "studies-skill-get-$era" "$url" --protocol-era "$era" --method skills/get \
        --uri "skill://studies/1/study-review/SKILL.md"
      if ! grep -q '"name":"study-review"' "$work/studies-skill-get-$era.out"; then
        fail "skills/get ($era): no study-review skill"; cat "$work/studies-skill-get-$era.out"
      fi
    done
  fi
done

for pid in "${servers[@]}"; do
  kill -0 "$pid" 2>/dev/null || { fail "a server died during the run"; cat "$work"/*.log; }
done
exit $status
