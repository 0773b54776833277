// A real OpenID provider (oidc-provider, panva's certified implementation) configured as the
// authorization server in front of one protected MCP resource, for end-to-end OAuth tests. Test
// use only: dev interactions (any login, any password), open dynamic client registration,
// in-memory storage, http on 127.0.0.1.
//
// Usage (install.sh installs the package and prints the directory to pass here):
//   OIDC_PROVIDER_DIR="$(bash tests/harness/oauth/install.sh)" \
//     node tests/harness/oauth/provider.mjs --resource http://127.0.0.1:4000/mcp [--port 0] \
//       [--ttl 3600] [--scope 'mcp:tools'] [--jwks private-jwks.json] [--strict-offline-access]
//       [--machine-client ID:SECRET] [--login-client ID:SECRET=REDIRECT_URI]
// Each flag may be given instead as an environment variable: OIDC_RESOURCE, OIDC_PORT,
// OIDC_ACCESS_TOKEN_TTL, OIDC_RESOURCE_SCOPE, OIDC_JWKS_FILE, OIDC_STRICT_OFFLINE_ACCESS=1,
// OIDC_MACHINE_CLIENT, OIDC_LOGIN_CLIENT.
// --scope lists the resource's scopes, space-separated. Port 0 (the default)
// picks a free port. --jwks names a JSON Web Key Set with private keys, one of them for RS256
// (it signs the tokens); a file that does not exist yet gets a fresh key set, so that a provider
// restarted with the same file keeps its keys, as an identity provider back from an outage does.
// --machine-client registers a confidential client (client_secret_basic) for the client
// credentials grant (RFC 6749 section 4.4), allowed every scope of --scope.
// --login-client registers a confidential client (client_secret_basic) that signs users in with
// OpenID Connect (the authorization code grant, scope `openid email profile`, an ID token) to
// REDIRECT_URI, as an application with fixed credentials at a team's identity provider does (an
// authorization server in front of it, for one). Every account's ID token and userinfo carry
// `email` (NAME@example.com, `email_verified` true) and `name` (NAME).
//
// Once listening it prints exactly one line on stdout, `ready http://127.0.0.1:PORT`, which is
// also the issuer; its metadata is at /.well-known/openid-configuration and, the same document,
// at /.well-known/oauth-authorization-server (RFC 8414). Everything else (the provider's own
// notices and warnings) goes to stderr. SIGTERM or SIGINT stops it.
//
// What it grants: access tokens for the configured resource only (RFC 8707; other resources are
// refused with invalid_target), as JWTs signed with the provider's key (RS256), audience the
// resource, the scopes of --scope (default `mcp:tools`), lifetime --ttl seconds. A refresh token when the client may use
// the refresh_token grant and the granted scope includes offline_access (with
// --strict-offline-access, only if the authorization request also said prompt=consent, as
// OpenID Connect Core requires and oidc-provider enforces by default); refreshing, with or
// without `resource`, yields a new access token for the same resource. PKCE (S256) is required
// of public clients. Native clients (application_type "native") may register
// http://127.0.0.1/... redirect URIs and then use them with any port (RFC 8252 section 7.3).
// Without --jwks, a fresh RSA key is generated at every start, so a restart rotates the keys.
//
// Test-only control routes for failure tests (POST, no body, answer 204):
//   /__control/fail-token[?count=N]  every refresh_token grant at /token answers HTTP 503
//                                    (temporarily_unavailable), or only the next N of them
//   /__control/ok                    back to normal
// Other grants at /token are not affected. And one to read (GET):
//   /__control/grants                the tokens issued since the start, by grant type, as
//                                    JSON: {"client_credentials": 2, "refresh_token": 1, ...}

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parse as parseQuery } from 'node:querystring';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.OIDC_PORT ?? '0' },
    resource: { type: 'string', default: process.env.OIDC_RESOURCE },
    ttl: { type: 'string', default: process.env.OIDC_ACCESS_TOKEN_TTL ?? '3600' },
    scope: { type: 'string', default: process.env.OIDC_RESOURCE_SCOPE ?? 'mcp:tools' },
    jwks: { type: 'string', default: process.env.OIDC_JWKS_FILE },
    'machine-client': { type: 'string', default: process.env.OIDC_MACHINE_CLIENT },
    'login-client': { type: 'string', default: process.env.OIDC_LOGIN_CLIENT },
    'strict-offline-access': {
      type: 'boolean', default: ['1', 'true'].includes(process.env.OIDC_STRICT_OFFLINE_ACCESS ?? ''),
    },
  },
});

function die(message) {
  console.error(`provider.mjs: ${message}`);
  process.exit(2);
}

const packageDir = process.env.OIDC_PROVIDER_DIR;
if (!packageDir) die('OIDC_PROVIDER_DIR must name the directory install.sh printed');
if (!args.resource) die('--resource (or OIDC_RESOURCE) is required, e.g. http://127.0.0.1:4000/mcp');
if (!URL.canParse(args.resource)) die(`--resource is not a URL: ${args.resource}`);
const resource = new URL(args.resource).href;
const ttl = Number(args.ttl);
if (!Number.isInteger(ttl) || ttl <= 0) die('--ttl must be a positive number of seconds');
const strictOfflineAccess = args['strict-offline-access'];
const resourceScopes = args.scope.split(' ').filter(Boolean);
if (resourceScopes.length === 0) die('--scope must name at least one scope');
let machineClient;
if (args['machine-client'] !== undefined) {
  const colon = args['machine-client'].indexOf(':');
  if (colon <= 0 || colon === args['machine-client'].length - 1) {
    die('--machine-client must be ID:SECRET');
  }
  machineClient = {
    client_id: args['machine-client'].slice(0, colon),
    client_secret: args['machine-client'].slice(colon + 1),
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: resourceScopes.join(' '),
  };
}
let loginClient;
if (args['login-client'] !== undefined) {
  const match = /^([^:=]+):([^=]+)=(.+)$/.exec(args['login-client']);
  if (!match || !URL.canParse(match[3])) die('--login-client must be ID:SECRET=REDIRECT_URI');
  loginClient = {
    client_id: match[1],
    client_secret: match[2],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: [match[3]],
    token_endpoint_auth_method: 'client_secret_basic',
  };
}
const port = Number(args.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) die('--port must be a port number');

// The provider's notices use console.info, which is stdout; stdout is for the ready line only.
console.info = console.error;

const { default: Provider, errors } = await import(
  pathToFileURL(join(packageDir, 'node_modules', 'oidc-provider', 'lib', 'index.js')).href
);

function signingKeys() {
  if (args.jwks && existsSync(args.jwks)) return JSON.parse(readFileSync(args.jwks, 'utf8'));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  const kid = `k-${Date.now().toString(36)}`;
  const keys = { keys: [{ ...jwk, kid, use: 'sig', alg: 'RS256' }] };
  if (args.jwks) writeFileSync(args.jwks, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}

// Listen first, so that with port 0 the issuer can name the port actually bound.
const server = createServer();
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(port, '127.0.0.1', resolve);
}).catch((e) => die(`cannot listen on 127.0.0.1:${port}: ${e.message}`));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks: signingKeys(),
  // Cookie signing keys; per start, like the signing key. Cookies carry no `secure` flag unless
  // the request is https (the defaults leave `secure` unset and oidc-provider only adds it for
  // secure requests), so the login and consent steps work over http on 127.0.0.1.
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  scopes: ['openid', 'offline_access', 'email', 'profile', ...resourceScopes],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // Any login name is an account; its claims follow from the name.
  findAccount: (_ctx, id) => ({
    accountId: id,
    claims: () => ({ sub: id, email: `${id}@example.com`, email_verified: true, name: id }),
  }),
  // Anyone may register a client and any origin may call the endpoints (tests only).
  clientBasedCORS: () => true,
  clients: [machineClient, loginClient].filter(Boolean),
  features: {
    clientCredentials: { enabled: machineClient !== undefined },
    registration: { enabled: true },
    // Built-in login and consent pages: any login name with any password signs in as that name.
    devInteractions: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // Without a `resource` parameter, the configured resource is meant.
      defaultResource: (_ctx, _client, oneOf) => oneOf ?? resource,
      // A refresh (or code) exchange without `resource` keeps the resource that was granted.
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource) throw new errors.InvalidTarget();
        return {
          scope: resourceScopes.join(' '),
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: ttl,
        };
      },
    },
  },
  // A refresh token whenever the client may use the refresh_token grant and the granted scope
  // includes offline_access (oidc-provider's default, spelled out because the tests depend on it).
  // See the /auth middleware below for how offline_access gets granted without prompt=consent.
  issueRefreshToken: async (_ctx, client, code) => (
    client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access')
  ),
});

// One middleware ahead of the provider's own routes: the offline_access leniency, the test-only
// control routes, and the refresh failure they switch on.
let failRefresh = 0; // 0: normal; a positive count: that many failures; Infinity: until /ok
const grants = {};
provider.on('grant.success', (ctx) => {
  const type = ctx.oidc.params?.grant_type ?? 'unknown';
  grants[type] = (grants[type] ?? 0) + 1;
});
provider.use(async (ctx, next) => {
  // oidc-provider follows OpenID Connect Core 11 to the letter: it drops offline_access from an
  // authorization request unless the request has prompt=consent, and then issues no refresh
  // token. Many authorization servers grant offline_access without it, and a native client here
  // always gets the consent page anyway, so unless --strict-offline-access is given, a GET
  // authorization request asking for offline_access without any prompt parameter is treated as
  // if it said prompt=consent.
  if (!strictOfflineAccess && ctx.method === 'GET' && ctx.path === '/auth'
      && ctx.query.prompt === undefined
      && String(ctx.query.scope ?? '').split(' ').includes('offline_access')) {
    ctx.query = { ...ctx.query, prompt: 'consent' };
  }
  if (ctx.method === 'POST' && ctx.path === '/__control/fail-token') {
    const count = ctx.query.count === undefined ? Infinity : Number(ctx.query.count);
    if (!(count > 0)) ctx.throw(400, 'count must be positive');
    failRefresh = count;
    ctx.status = 204;
    return undefined;
  }
  if (ctx.method === 'GET' && ctx.path === '/__control/grants') {
    ctx.body = grants;
    return undefined;
  }
  if (ctx.method === 'POST' && ctx.path === '/__control/ok') {
    failRefresh = 0;
    ctx.status = 204;
    return undefined;
  }
  if (failRefresh > 0 && ctx.method === 'POST' && ctx.path === '/token') {
    // Peek at the form body; hand it on as already read (oidc-provider then parses the string).
    const chunks = [];
    for await (const chunk of ctx.req) chunks.push(chunk);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (parseQuery(raw).grant_type === 'refresh_token') {
      failRefresh -= 1;
      ctx.status = 503;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { error: 'temporarily_unavailable', error_description: 'failure switched on by /__control/fail-token' };
      return undefined;
    }
    ctx.request.body = raw;
  }
  return next();
});

server.on('request', provider.callback());
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
console.log(`ready ${issuer}`);
