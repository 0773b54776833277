#!/usr/bin/env bash
# Runs the official MCP conformance suites' client scenarios against `phantom::client`, through
# the `conformance-client` binary of phantom-tests (tests/bin/conformance_client.rs): 0.1.16
# `--suite all`, 0.2.0-alpha.12 `--suite all` and `--requirements 2026-07-28`, each judged by
# client_check.py against its expected-failures file. `sse-retry` checks the client's reconnect
# timing, so it is judged only from runs of its own, with nothing else on the machine.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
bash "$here/install.sh"
export PATH="$cache/node22/node_modules/.bin:$PATH"
cargo build --quiet -p phantom-tests --bin conformance-client
bin="${CARGO_TARGET_DIR:-$root/target}/debug/conformance-client"
case "$bin" in *" "*) echo "the client's path has a space, and the suite splits --command on spaces: $bin" >&2; exit 1 ;; esac
# CLIENT_RESULTS=DIR keeps the suites' output (checks.json, the client's stdout) there.
if [ -n "${CLIENT_RESULTS:-}" ]; then
  results="$CLIENT_RESULTS"
  mkdir -p "$results"
else
  results="$(mktemp -d)"
  trap 'rm -rf "$results"' EXIT
fi
status=0
run() { # suite-dir label args...
  local dir="$1" label="$2"; shift 2
  echo "==> conformance client $label"
  (cd "$dir" && npx conformance client --command "$bin" -o "$results/$label" "$@" >"$results/$label.log" 2>&1) || true
  python3 "$here/client_check.py" "$label" "$results/$label" "$here/expected-failures/client-$label.yml" \
    || { status=1; tail -n 40 "$results/$label.log"; }
}
c16="$cache/conformance-0.1.16"
c12="$cache/conformance-0.2.0-alpha.12"
run "$c16" 0.1.16-all --suite all
run "$c16" 0.1.16-sse-retry --scenario sse-retry
run "$c12" alpha.12-all --suite all
run "$c12" alpha.12-2026-07-28 --requirements 2026-07-28
run "$c12" alpha.12-sse-retry --scenario sse-retry
exit $status
