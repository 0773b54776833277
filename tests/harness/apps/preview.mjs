// MCP Apps in a real browser: Debian's Chromium, headless, driven by playwright-core, against
// the preview host of examples/studies (`--preview`) and examples/everything.
//
//   1. The preview lists `show_study`, calls it, and the study card renders from the tool result.
//   2. The card's button adds a note through the host (`tools/call` from the view); the note is
//      read back from the server with `resources/read`.
//   3. A `fetch` from the view to a second loopback origin, reachable but outside the view's CSP,
//      raises `securitypolicyviolation`, and that origin receives no request.
//   4. The reference view of examples/everything, built on the official `App` class of
//      @modelcontextprotocol/ext-apps (served to the page from .cache/ through a routed origin
//      its CSP allows), initializes with the preview host, gets the tool input and result, calls
//      a server tool through the host and reports its size.
//
// usage: node preview.mjs <studies endpoint> <everything endpoint> <ext-apps app-with-deps.js>
import http from "node:http";
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";

const [studies, everything, bundle] = process.argv.slice(2);
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
};

/** A 2026-07-28 request to an endpoint; the result (throws on an error). */
async function mcp(endpoint, method, params, name) {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
  };
  if (name) headers["mcp-name"] = name;
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "apps-test", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const resp = await fetch(endpoint, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
  });
  const message = await resp.json();
  if (message.error) throw new Error(JSON.stringify(message.error));
  return message.result;
}

// The second origin: reachable on loopback, in no view's CSP. It counts what reaches it.
let probed = 0;
const probe = http.createServer((req, res) => {
  probed += 1;
  res.writeHead(200, { "access-control-allow-origin": "*", "content-type": "text/plain" });
  res.end("probe");
});
await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
const probeUrl = `http://127.0.0.1:${probe.address().port}/secret`;
check((await (await fetch(probeUrl)).text()) === "probe", `the probe origin ${probeUrl} is reachable`);
probed = 0;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    // Chromium puts sandboxed frames (every view) in a process of their own, and the first
    // requests of such an out-of-process frame can escape Playwright's routing (the module of
    // step 4 then goes to DNS and the view never starts). In-process, the frame keeps its
    // sandbox and its CSP, which is what the checks are about, and every request is routed.
    "--disable-features=IsolateSandboxedIframes"],
});
try {
  // Routed for the whole context before any page exists, so that no frame starts unrouted.
  const context = await browser.newContext();
  await context.route("https://ext-apps.test/**", (route) =>
    // A module imported by the sandboxed (opaque-origin) view is a CORS request.
    route.fulfill({ status: 200, contentType: "text/javascript", headers: { "access-control-allow-origin": "*" }, body: readFileSync(bundle) }));
  const page = await context.newPage();
  page.on("console", (m) => { if (m.type() === "error") console.log(`  console: ${m.text()}`); });

  // 1. show_study through the preview.
  await page.goto(`${studies}/preview`);
  const form = page.locator('form[data-tool="show_study"]');
  await form.waitFor({ timeout: 10_000 });
  await form.locator("textarea").fill('{"id": 2}');
  await form.locator("button").click();
  const card = page.frameLocator("#frame");
  await card.locator("#title").waitFor({ state: "visible", timeout: 10_000 });
  const title = await card.locator("#title").textContent();
  check(title === "Aerobic exercise in early Parkinson's", `the card renders study 2 from the tool result (${title})`);
  await page.locator("#log").filter({ hasText: "view: size" }).waitFor({ timeout: 5_000 });
  check(true, "the view reported its size (ui/notifications/size-changed)");

  // 2. The card's button annotates through the host.
  await card.locator("#add").click();
  await card.locator("#status").filter({ hasText: "now has" }).waitFor({ timeout: 10_000 });
  const read = await mcp(studies, "resources/read", { uri: "studies:///studies/2" }, "studies:///studies/2");
  const notes = JSON.parse(read.contents[0].text).notes;
  check(notes.includes("Reviewed in the app"), `the note reached the server (${JSON.stringify(notes)})`);

  // 3. The view's CSP: a fetch to the probe origin is refused and never arrives.
  const view = page.frames().find((f) => f !== page.mainFrame());
  const violation = await view.evaluate((url) => new Promise((resolve) => {
    document.addEventListener("securitypolicyviolation",
      (e) => resolve({ blocked: e.blockedURI, directive: e.effectiveDirective }), { once: true });
    fetch(url).catch(() => {});
    setTimeout(() => resolve(null), 5000);
  }), probeUrl);
  check(violation !== null && violation.directive === "connect-src" && violation.blocked.startsWith(probeUrl.slice(0, -7)),
    `securitypolicyviolation for the probe origin (${JSON.stringify(violation)})`);
  await new Promise((r) => setTimeout(r, 500));
  check(probed === 0, `the probe origin received no request (${probed})`);

  // 4. The reference view (the official App class) against the preview host.
  await page.goto(`${everything}/preview`);
  const reference = page.locator('form[data-tool="test_app_reference"]');
  await reference.waitFor({ timeout: 10_000 });
  await reference.locator("textarea").fill('{"word": "sunflower"}');
  await reference.locator("button").click();
  const app = page.frameLocator("#frame");
  await app.locator("#called").filter({ hasText: "sunflower" }).waitFor({ timeout: 15_000 });
  const text = async (id) => (await app.locator(id).textContent()).trim();
  check((await text("#host")) === "phantom-preview", `App.getHostVersion() names the host (${await text("#host")})`);
  check((await text("#input")) === "sunflower", `App.ontoolinput got the arguments (${await text("#input")})`);
  check((await text("#result")) === "echo: sunflower", `App.ontoolresult got the result (${await text("#result")})`);
  check((await text("#called")).includes("sunflower"), `App.callServerTool went through the host (${await text("#called")})`);
  await page.locator("#log").filter({ hasText: "view: size" }).waitFor({ timeout: 5_000 });
  check(true, "the App reported its size");
} finally {
  await browser.close();
  probe.close();
}

if (failures.length) {
  console.log(`${failures.length} check(s) failed`);
  process.exit(1);
}
console.log("all browser checks passed");
