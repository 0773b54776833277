#!/usr/bin/env bash
# A real Prometheus (Debian's package) scrapes two `everything` nodes under a known load, and its
# PromQL answers are compared with what the load sent (scrape.py beside this script).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
bash "$root/tests/harness/debian.sh" prometheus=prometheus
cargo build --quiet -p phantom-examples --bin everything
bin="${CARGO_TARGET_DIR:-$root/target}/debug/everything"
[[ "$bin" = /* ]] || bin="$root/$bin"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
python3 "$here/scrape.py" "$bin" "$dir"
