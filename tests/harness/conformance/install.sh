#!/usr/bin/env bash
# Installs Node 22 and the pinned conformance suites from npm into a cache (default: .cache/ at the
# repository root), if they are not there yet. Prints nothing but progress; safe to run twice.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
node_dir="$cache/node22" stable_dir="$cache/conformance-0.1.16" next_dir="$cache/conformance-0.2.0-alpha.12"
mkdir -p "$cache"

if ! command -v npm >/dev/null 2>&1; then
  echo "installing nodejs and npm from Debian packages (needed to fetch Node 22 from npm)"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq nodejs npm >/dev/null; fi
fi

if [ ! -x "$node_dir/node_modules/.bin/node" ]; then
  echo "installing Node 22 into $node_dir"
  mkdir -p "$node_dir" && (cd "$node_dir" && npm init -y >/dev/null && npm install --no-audit --no-fund node@22 >/dev/null)
fi
export PATH="$node_dir/node_modules/.bin:$PATH"
case "$(node --version)" in v22.*) ;; *) echo "Node 22 expected, got $(node --version)" >&2; exit 1 ;; esac

install_suite() {
  local dir="$1" spec="$2"
  if [ ! -f "$dir/node_modules/@modelcontextprotocol/conformance/package.json" ]; then
    echo "installing $spec into $dir"
    mkdir -p "$dir" && (cd "$dir" && npm init -y >/dev/null && npm install --no-audit --no-fund "$spec" >/dev/null)
  fi
}
install_suite "$stable_dir" @modelcontextprotocol/conformance@0.1.16
install_suite "$next_dir" @modelcontextprotocol/conformance@0.2.0-alpha.12
