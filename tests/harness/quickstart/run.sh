#!/usr/bin/env bash
# Builds the README quickstart the way a newcomer would: a new crate whose Cargo.toml holds the
# README's `toml` block and whose src/main.rs is the README's first `rust` block after
# "## Quickstart", with `phantom-mcp` taken from this repository (a `path` dependency). Then
# `cargo test` compiles the binary and runs the in-process tests of the block, without warnings.
#
# It starts from the workspace's Cargo.lock, so no other versions are resolved, and builds into the
# workspace's target directory, so dependencies compiled once are reused.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# Inside the repository (under target/, which git ignores), so that the repository's
# .cargo/config.toml applies: the crate's dependencies build with the workspace's own profile, and
# are reused from the shared target directory rather than built again.
mkdir -p "$root/target"
crate="$(mktemp -d "$root/target/quickstart.XXXXXX")"
trap 'rm -rf "$crate"' EXIT

# The body of the first ```LANG fence after the Quickstart heading, rustdoc's hidden-line marker
# (`# `) removed.
block() {
    awk -v lang="$1" '
        /^## Quickstart/ { in_section = 1; next }
        in_section && /^## / { exit }
        in_section && !done && !inside && index($0, "```" lang) == 1 { inside = 1; next }
        inside && /^```/ { inside = 0; done = 1; next }
        inside { sub(/^# ?$/, ""); sub(/^# /, ""); print }
    ' "$root/README.md"
}

manifest="$(block toml)"
main="$(block rust)"
if [[ -z "$manifest" || -z "$main" ]]; then
    echo "README.md: no \`toml\` or \`rust\` block under \"## Quickstart\"" >&2
    exit 1
fi
if ! grep -q '^phantom-mcp *=' <<<"$manifest"; then
    echo "README.md: the quickstart's dependencies do not name phantom-mcp" >&2
    exit 1
fi

mkdir -p "$crate/src"
{
    printf '[package]\nname = "quickstart"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n'
    printf '[workspace]\n\n'
    sed "s|^phantom-mcp *=.*|phantom-mcp = { path = \"$root/phantom\" }|" <<<"$manifest"
} >"$crate/Cargo.toml"
printf '%s\n' "$main" >"$crate/src/main.rs"
cp "$root/Cargo.lock" "$crate/Cargo.lock"

log="$crate/build.log"
status=0
(
    cd "$crate"
    CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" cargo test --quiet
) >"$log" 2>&1 || status=$?
if [[ $status -ne 0 ]] || grep -q '^warning' "$log"; then
    {
        cat "$log"
        echo "--- Cargo.toml of the quickstart crate:"
        cat "$crate/Cargo.toml"
        echo "the README quickstart does not build cleanly as a new crate (src/main.rs is its rust block)"
    } >&2
    exit 1
fi
grep -E '^test result' "$log"
echo "the README quickstart builds as a new crate and its tests pass"
