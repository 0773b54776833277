#!/usr/bin/env bash
# The project's test command (README "Run the tests"): format, lints, every test, doc tests.
# Installs what the tests need on a fresh machine; tools are cached under .cache/.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "rustfmt"
cargo fmt --all -- --check

step "clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "tests"
cargo test --workspace --all-targets

step "doc tests"
cargo test --workspace --doc

step "docs"
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps --quiet

echo
echo "all checks passed"
