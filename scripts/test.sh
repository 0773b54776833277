#!/usr/bin/env bash
# The project's test command (README "Run the tests"). On a fresh machine it installs what the tests
# need (redis-server and redis-cli from Debian's packages, for the scale-out tests; Node 22, the
# pinned MCP conformance suites, MCP Inspector, playwright-core, @modelcontextprotocol/ext-apps
# and oidc-provider from npm into .cache/, Python `mcp` and cargo-lambda from PyPI, Chromium, HAProxy and Prometheus from Debian's
# packages) and then runs: format check, clippy, every Rust test (unit, integration, trybuild
# ui, doc), the README quickstart built as a new crate, rustdoc, `cargo package` of the publishable
# crates (it needs a committed working tree), the official conformance suites against
# examples/everything (one node, then two nodes on one Redis behind HAProxy) and through the
# Function URL of examples/lambda under `cargo lambda watch`, their client
# scenarios against phantom::client (tests/bin/conformance_client.rs), `cargo phantom login`
# against oidc-provider in front of examples/notes, a node's failover,
# a rolling restart of that cluster under load, a real Prometheus scraping two nodes,
# the MCP Inspector CLI against both examples, MCP Apps in headless Chromium, phantom's own MCP
# client against the reference server-everything (npm) and a FastMCP server (PyPI),
# and a real Python MCP client against examples/studies.
#
#   bash scripts/test.sh            everything
#   bash scripts/test.sh --rust     only the Rust checks (no Node/Python)
set -euo pipefail
cd "$(dirname "$0")/.."

only_rust=false
[ "${1:-}" = "--rust" ] && only_rust=true

# Each step names the disk space left and the size of target/, so a run that runs out of disk says
# where. A CI machine's disk is small (one ran out at 7.9 GB of target/), so on CI (CI=true), or
# wherever less than 20 GB is free, a clean clone builds everything once and lean (about 4 GB of
# target/ at most):
# - no incremental caches, which would only add to target/;
# - no debug info at all, not even .cargo/config.toml's line tables: a panic still names its
#   file:line (it carries its Location), and test binaries lose about a third of their size;
# - the crates the tests build in their own target directories (trybuild's cases, the crates that
#   cargo-phantom's tests create) removed once the tests that built them have run.
lean=false
[ "${CI:-}" = true ] && lean=true
free_kb=$(df -Pk . | awk 'NR==2 {print $4}')
if ! $lean && [ "${free_kb:-0}" -lt 20000000 ]; then
  echo "less than 20 GB free here: building lean, as on CI (no debug info, no incremental caches)"
  lean=true
fi
if $lean; then
  export CARGO_INCREMENTAL=0
  export CARGO_PROFILE_DEV_DEBUG=false
  export CARGO_PROFILE_DEV_STRIP=debuginfo
fi
target_dir="${CARGO_TARGET_DIR:-target}"
step() {
  local used
  used=$(du -sh "$target_dir" 2>/dev/null | cut -f1) || used=0
  printf '\n==> %s  [disk free: %s, target/: %s]\n' "$*" "$(df -h . | awk 'NR==2 {print $4}')" "${used:-0}"
}

# The scale-out tests (`--test scale`) start their own redis-server processes (one server, and a
# three-master cluster joined with redis-cli) on free loopback ports; the bench smoke runs
# `phantom-bench instructions` briefly under valgrind's callgrind.
step "Debian packages the tests need: redis-server, redis-tools, valgrind"
bash tests/harness/debian.sh redis-server=redis-server redis-cli=redis-tools valgrind=valgrind

step "rustfmt"
cargo fmt --all -- --check

step "clippy"
cargo clippy --workspace --all-targets -- -D warnings

# Users leave out what they do not use: the runtime must build (lint-clean) with no default
# feature and with each feature alone.
step "phantom-mcp features: none, http alone, validation alone, fuzzing without http, jwt alone, otel alone, client alone, oauth, tls alone, metrics alone, prometheus"
cargo clippy -p phantom-mcp --no-default-features -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features http -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features validation -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features fuzzing -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features jwt -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features otel -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features client -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features oauth -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features authz -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features tls -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features metrics -- -D warnings
cargo clippy -p phantom-mcp --no-default-features --features prometheus -- -D warnings
cargo clippy -p phantom-tests --features otel --test otel -- -D warnings
cargo clippy -p phantom-tests --features prometheus --test metrics -- -D warnings

# The benchmark package (rmcp peer, load driver, report) is built and run by its smoke mode below,
# in release; its debug build would only slow this step down.
step "tests (unit, integration, ui, benches compile)"
# cargo-phantom's tests run `studies`, which this same invocation builds (--all-targets).
studies_bin="$target_dir/debug/studies"
[[ "$studies_bin" = /* ]] || studies_bin="$PWD/$studies_bin"
PHANTOM_STUDIES_BIN="$studies_bin" \
  cargo test --workspace --exclude phantom-bench --all-targets
$lean && rm -rf "$target_dir/tests" "$target_dir/cargo-phantom-tests"

# Off by default, so the workspace run above skips it (`required-features`): the exported span's
# trace id and parent with phantom's `otel` feature, through OpenTelemetry's in-memory exporter.
step "OpenTelemetry parents (feature otel)"
cargo test -p phantom-tests --features otel --test otel

# Off by default too: `/metrics` read back with phantom's `prometheus` feature, on the admin
# address, and the backend gauge with a real redis-server stopped.
step "metrics (feature prometheus)"
cargo test -p phantom-tests --features prometheus --test metrics

step "doc tests"
cargo test --workspace --exclude phantom-bench --doc

step "README quickstart as a new crate (its Cargo.toml block, phantom-mcp by path)"
bash tests/harness/quickstart/run.sh

step "rustdoc"
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps --quiet

# The public surface changes only on purpose: rustdoc's JSON (unstable on stable Rust, hence
# RUSTC_BOOTSTRAP for this one command) listed by scripts/public-api.py and diffed with the
# committed snapshot. After an intended change: run the two commands and commit the new file,
# with a CHANGELOG.md line for every path that moved.
step "public API snapshot (tests/public-api.txt)"
RUSTC_BOOTSTRAP=1 RUSTDOCFLAGS="-Z unstable-options --output-format json" \
  cargo doc -p phantom-mcp --no-deps --quiet --features client,oauth,jwt,tls,authz
python3 scripts/public-api.py target/doc/phantom.json | diff -u tests/public-api.txt -

# No public signature names a hidden or private type (docs/ARCHITECTURE.md, "No hidden type in a
# public signature"): the same JSON with hidden items, which the snapshot leaves out, walked by
# scripts/hidden-types.py; its self-test first shows that a breach fails.
step "no hidden type in a public signature (scripts/hidden-types.py)"
python3 scripts/hidden-types.py --self-test
RUSTC_BOOTSTRAP=1 RUSTDOCFLAGS="-Z unstable-options --output-format json --document-hidden-items" \
  cargo doc -p phantom-mcp --no-deps --quiet --features client,oauth,jwt,tls,authz
python3 scripts/hidden-types.py target/doc/phantom.json

# One invocation, so the unpublished path dependencies between them resolve to each other; each
# .crate is then built from its own contents. Like `cargo publish`, it refuses uncommitted changes.
step "package and verify the publishable crates"
# Cargo unpacks each packaged crate that another one depends on into a registry directory named
# after the path of its temporary registry, and reuses an existing unpacking of the same version:
# a run from the same checkout path would verify against the sources of an earlier run. Remove
# those unpackings (only the temporary registries' directories, whose names start with "-").
for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/; do
  rm -rf "$d"phantom-uri-* "$d"phantom-macros-* "$d"phantom-mcp-* "$d"phantom-redis-* "$d"phantom-lambda-* "$d"cargo-phantom-*
done
cargo package -p phantom-uri -p phantom-macros -p phantom-mcp -p phantom-redis -p phantom-lambda -p cargo-phantom

step "benchmark harness smoke (phantom and rmcp echo servers, every driver mode, ~1 s each; instructions per request under callgrind, 200 requests)"
cargo build -p phantom-bench --release
cargo run -p phantom-bench --release -- smoke

if ! $only_rust; then
  step "official MCP conformance suites (strict expected failures)"
  bash tests/harness/conformance/run.sh

  step "AWS Lambda: examples/lambda under cargo lambda watch (cargo-lambda 1.9.2, PyPI): response streaming, --concurrency 2, Redis, the conformance suites (both eras), the Python client and the Inspector through the Function URL, a legacy session in a fresh process, tasks held within their invocation (completed, or failed at the deadline), a listen across a stopped instance and across a dropped pub/sub connection; buffered, API Gateway REST and HTTP API events"
  bash tests/harness/lambda/run.sh

  step "official MCP conformance suites, client side: phantom::client in every scenario of 0.1.16 and 0.2.0-alpha.12 (--suite all, --requirements 2026-07-28; sse-retry alone)"
  bash tests/harness/conformance/client.sh

  step "OAuth end to end: oidc-provider 9.13.3 (npm) in front of examples/notes (keys found from the issuer); cargo phantom login, call, refresh, logout; examples/gateway signed in as itself; a refused consent, a 503 on refresh, the provider stopped"
  bash tests/harness/oauth/run.sh

  step "the authorization server's upstream against oidc-provider 9.13.3: discovery, the authorization URL to its login, a sign-in by the scripted browser finished with its RS256 ID token"
  bash tests/harness/oauth/upstream.sh

  step "authorization server end to end: examples/signin as two nodes on one Redis behind HAProxy, signing users in through oidc-provider; the official suite's authorization mode (--client-id, the browser scripted), the TypeScript SDK's, Python mcp's and cargo phantom's OAuth clients calling a scoped tool; each step on the node the test names; consent refused, remembered and asked again; the provider's own token refused; the provider down mid-flow; no secret in any output"
  bash tests/harness/authz/run.sh

  step "failover: a node killed (SIGKILL) with a legacy stream open; the client resumes on the other node"
  bash tests/harness/failover/run.sh

  step "rolling restart: each node of the cluster (HAProxy checking /readyz) gets SIGTERM, then SIGINT, and is started again under load; 0 failed requests, every call run once"
  bash tests/harness/rolling/run.sh

  step "Prometheus (Debian's package) scrapes two nodes under a known load: each node's rate within ±10 %, the p99 of tools/call from histogram_quantile"
  bash tests/harness/prometheus/run.sh

  step "MCP Inspector CLI 2.12.0: lists, calls and --strict schema checks of studies and everything"
  bash tests/harness/inspector/run.sh

  step "MCP Apps: the Inspector's --app-info probe, and the preview host in headless Chromium (playwright-core; the official ext-apps App class as a view)"
  bash tests/harness/apps/run.sh

  step "phantom::client against @modelcontextprotocol/server-everything 2026.8.31 (npm) over stdio and Streamable HTTP, and FastMCP 4.2.3 (PyPI) over HTTP in both eras and stdio"
  bash tests/harness/client/run.sh

  step "real client: Python mcp 2.3.0 against examples/studies (auto and legacy eras; legacy against the stateless mode)"
  bash tests/harness/python/run.sh
fi

step "done"
echo "all checks passed"
