// The TypeScript SDK's OAuth client (@modelcontextprotocol/sdk, the copy the conformance suite
// installs) signing in to a phantom server through its authorization server, then calling a tool.
//
// Usage: SDK_DIR=<dir holding node_modules/@modelcontextprotocol/sdk> \
//   node client.mjs MCP_URL TOOL [--login NAME]
// The browser is browser.py beside this file. Prints one JSON line on stdout: {"tool": result,
// "scope": granted scope}; exits 1 with the error on stderr. Tokens are never printed.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: opts, positionals } = parseArgs({
  options: { login: { type: 'string', default: 'alice' } },
  allowPositionals: true,
});
const [mcpUrl, tool] = positionals;
const sdk = (path) => import(pathToFileURL(join(process.env.SDK_DIR, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm', path)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { UnauthorizedError } = await sdk('client/auth.js');
const here = dirname(fileURLToPath(import.meta.url));

// The loopback listener the authorization server redirects to.
let delivered;
const code = new Promise((resolve) => { delivered = resolve; });
const listener = createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  res.end('signed in; you may close this page');
  delivered(url.searchParams);
});
await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
const redirectUrl = `http://127.0.0.1:${listener.address().port}/callback`;

let client_information, saved, verifier;
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return {
      client_name: 'TypeScript SDK client', redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  },
  clientInformation: () => client_information,
  saveClientInformation: (info) => { client_information = info; },
  tokens: () => saved,
  saveTokens: (tokens) => { saved = tokens; },
  saveCodeVerifier: (v) => { verifier = v; },
  codeVerifier: () => verifier,
  redirectToAuthorization: (url) => {
    const browser = spawn('python3', [join(here, 'browser.py'), url.href, '--login', opts.login],
      { stdio: ['ignore', 'ignore', 'inherit'] });
    browser.on('exit', (status) => { if (status !== 0) delivered(new URLSearchParams({ error: 'browser failed' })); });
  },
};

function fail(message) {
  console.error(`client.mjs: ${message}`);
  process.exit(1);
}

const connect = async () => {
  const client = new Client({ name: 'phantom-authz-harness', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  return client;
};
let client;
try {
  client = await connect();
} catch (e) {
  if (!(e instanceof UnauthorizedError)) fail(`connect: ${e}`);
  const params = await code;
  if (params.get('error')) fail(`the sign-in ended with error=${params.get('error')}`);
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
  await transport.finishAuth(params.get('code')).catch((err) => fail(`token: ${err}`));
  client = await connect().catch((err) => fail(`connect after sign-in: ${err}`));
}
const result = await client.callTool({ name: tool, arguments: {} }).catch((e) => fail(`tools/call: ${e}`));
console.log(JSON.stringify({ tool: result, scope: saved?.scope ?? null }));
await client.close();
listener.close();
process.exit(0);
