#!/usr/bin/env bash
# Installs oidc-provider (panva's certified OpenID provider, pinned, from npm) into .cache/ once,
# with Node 22 (the conformance harness's install.sh), and prints the path of the directory whose
# node_modules holds it. provider.mjs imports it from there (NODE_PATH does not apply to ES
# modules, so the caller passes this directory in OIDC_PROVIDER_DIR). Safe to run twice.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
version=9.13.3
dir="$cache/oidc-provider-$version"
bash "$root/tests/harness/conformance/install.sh" >&2
export PATH="$cache/node22/node_modules/.bin:$PATH"
if [ ! -f "$dir/node_modules/oidc-provider/package.json" ]; then
  echo "installing oidc-provider@$version into $dir" >&2
  mkdir -p "$dir" && (cd "$dir" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund "oidc-provider@$version" >/dev/null)
fi
echo "$dir"
