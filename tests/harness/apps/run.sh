#!/usr/bin/env bash
# MCP Apps: the Inspector CLI's `--app-info` probe of the declared views (both eras), then the
# preview host in a real browser (Debian's Chromium, headless, through playwright-core; see
# preview.mjs). Installs Chromium from Debian's packages and playwright-core and
# @modelcontextprotocol/ext-apps from npm into .cache/apps on first run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
bash "$root/tests/harness/inspector/install.sh"
export PATH="$cache/node22/node_modules/.bin:$PATH"
inspector="$cache/inspector-2.12.0/node_modules/.bin/inspector"
apps="$cache/apps"

if [ ! -x /usr/bin/chromium ]; then
  echo "installing chromium from Debian packages"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi
fi
if [ ! -f "$apps/node_modules/playwright-core/package.json" ] \
  || [ ! -f "$apps/node_modules/@modelcontextprotocol/ext-apps/package.json" ]; then
  echo "installing playwright-core and @modelcontextprotocol/ext-apps into $apps"
  mkdir -p "$apps" && (cd "$apps" && npm init -y >/dev/null \
    && npm install --no-audit --no-fund playwright-core@1.64.1 @modelcontextprotocol/ext-apps@2.0.4 >/dev/null)
fi

cargo build --quiet -p phantom-examples --bin studies --bin everything
bin="${CARGO_TARGET_DIR:-$root/target}/debug"
work="$(mktemp -d)"
servers=()
trap 'for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"' EXIT

# shellcheck source=../examples.sh
source "$root/tests/harness/examples.sh"

status=0
fail() { echo "FAIL: $*"; status=1; }

start studies --preview; studies="$url"
start everything --preview; everything="$url"

# app_info LABEL URL TOOL EXPECTED: the Inspector's probe of TOOL must print EXPECTED (JSON,
# compared as data) in both eras.
app_info() {
  local label="$1" url="$2" tool="$3" expected="$4" era
  for era in modern legacy; do
    local out="$work/$label-$era.out" rc=0
    (cd "$work" && HOME="$work" "$inspector" --cli "$url" --protocol-era "$era" --method tools/call \
      --tool-name "$tool" --app-info --advertise-apps </dev/null >"$out" 2>"$work/$label-$era.err") || rc=$?
    if [ "$rc" -ne 0 ]; then
      fail "$label ($era): the Inspector exited with $rc"; cat "$out" "$work/$label-$era.err"; continue
    fi
    if python3 -c 'import json, sys; sys.exit(json.loads(open(sys.argv[1]).read()) != json.loads(sys.argv[2]))' "$out" "$expected"; then
      echo "$label ($era): $(cat "$out")"
    else
      fail "$label ($era): expected $expected, got $(cat "$out")"
    fi
  done
}

echo "==> Inspector --app-info"
app_info studies-card "$studies" show_study \
  '{"hasApp":true,"toolName":"show_study","resourceUri":"ui://studies/card","csp":{},"prefersBorder":true,"resourceMimeType":"text/html;profile=mcp-app"}'
app_info everything-reference "$everything" test_app_reference \
  '{"hasApp":true,"toolName":"test_app_reference","resourceUri":"ui://everything/reference","visibility":["model","app"],"csp":{"resourceDomains":["https://ext-apps.test"]},"permissions":{"clipboardWrite":{}},"domain":"https://reference.everything.test","prefersBorder":false,"resourceMimeType":"text/html;profile=mcp-app"}'

echo "==> the preview host in headless Chromium"
# Run from next to its node_modules: ES modules resolve packages from the script's own folder.
cp "$here/preview.mjs" "$apps/preview.mjs"
node "$apps/preview.mjs" "$studies" "$everything" \
  "$apps/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js" || fail "browser checks"
exit "$status"
