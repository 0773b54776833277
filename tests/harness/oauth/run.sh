#!/usr/bin/env bash
# OAuth against a real identity provider: oidc-provider (pinned, from npm, installed into .cache/
# by install.sh) as the authorization server of examples/notes.rs, which finds its keys from the
# issuer URL. First the provider half alone (selftest.py: registration, PKCE, JWT access tokens
# for the resource, refresh, refusal), then `cargo phantom login` / `call` / `logout` end to end
# with user_agent.py as the browser, and examples/gateway signed in with its own tokens in front
# of the same server, then as two nodes on one redis-server with the client credentials grant
# (e2e.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
bash "$root/tests/harness/oauth/install.sh" >/dev/null
export PATH="$cache/node22/node_modules/.bin:$PATH"
cd "$root"
cargo build --quiet -p cargo-phantom -p phantom-examples --bin cargo-phantom --bin notes --bin gateway
target="${CARGO_TARGET_DIR:-target}"
[[ "$target" = /* ]] || target="$root/$target"
python3 tests/harness/oauth/selftest.py
python3 tests/harness/oauth/e2e.py "$target/debug/cargo-phantom" "$target/debug/notes" "$target/debug/gateway"
