#!/usr/bin/env bash
# phantom's upstream identity provider client (`phantom::authz::Upstream`) against a real OpenID
# provider: oidc-provider (install.sh, started by provider.mjs), then the unit test, ignored
# otherwise, that registers a client there, discovers it, follows the authorization URL it builds
# to the provider's login, lets user_agent.py sign in and consent, and finishes the sign-in with
# the code brought back (an RS256 ID token checked against the provider's JWKS).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
dir="$(bash "$root/tests/harness/oauth/install.sh")"
export PATH="$cache/node22/node_modules/.bin:$PATH"
cd "$root"
coproc provider {
  OIDC_PROVIDER_DIR="$dir" exec node tests/harness/oauth/provider.mjs --resource http://127.0.0.1:9/mcp
}
trap 'kill "$provider_PID" 2>/dev/null || true' EXIT
read -r ready issuer <&"${provider[0]}"
[ "$ready" = ready ] || { echo "oidc-provider did not start" >&2; exit 1; }
PHANTOM_OIDC_ISSUER="$issuer" PHANTOM_USER_AGENT="$root/tests/harness/oauth/user_agent.py" cargo test --quiet -p phantom-mcp --features authz --lib \
  authz::upstream::tests::a_real_provider_signs_in_through_discovery_and_its_id_token \
  -- --ignored --exact
