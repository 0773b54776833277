#!/usr/bin/env python3
"""The browser's part of an OAuth authorization-code flow against provider.mjs, scripted.

Usage: python3 user_agent.py AUTHORIZATION_URL [--refuse] [--login NAME]

Opens AUTHORIZATION_URL, follows the provider's redirects keeping its cookies, signs in on the
provider's development login page (any name, any password; --login picks the name, default
"alice"), then on the consent page either continues or, with --refuse, takes the page's Cancel
link so that the provider sends the user back with error=access_denied. Finally it requests the
redirect URI (the client's loopback listener, e.g. http://127.0.0.1:PORT/callback), which is
where the client receives the code or the error.

Exits 0 when the final redirect was delivered, printing one line on stdout:
  delivered http://127.0.0.1:PORT/callback HTTP <status> params=<names> [error=<code>]
Exits 1 with a message on stderr otherwise. Progress goes to stderr. The code, tokens and the
final query string are never printed: URLs are shown without their query, the redirect's
parameters by name only (plus the OAuth error code, which is not a secret).

Standard library only.
"""

import argparse
import http.cookiejar
import sys
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

MAX_STEPS = 30
TIMEOUT = 10


class Page(HTMLParser):
    """The forms (action, method, fields) and links of a provider page."""

    def __init__(self):
        super().__init__()
        self.forms = []
        self.links = []
        self.text = []
        self._link = None
        self._skip = 0  # inside <style> or <script>

    @classmethod
    def parse(cls, body):
        page = cls()
        page.feed(body)
        page.close()
        return page

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("style", "script"):
            self._skip += 1
        elif tag == "form":
            self.forms.append({"action": a.get("action") or "", "method": (a.get("method") or "get").lower(), "inputs": []})
        elif tag == "input" and self.forms and a.get("name"):
            self.forms[-1]["inputs"].append({"name": a["name"], "type": (a.get("type") or "text").lower(), "value": a.get("value") or ""})
        elif tag == "a" and a.get("href"):
            self._link = {"href": a["href"], "text": ""}
            self.links.append(self._link)

    def handle_endtag(self, tag):
        if tag == "a":
            self._link = None
        elif tag in ("style", "script") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if self._link is not None:
            self._link["text"] += data
        if data.strip() and not self._skip:
            self.text.append(data.strip())


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def bare(url):
    """The URL without query or fragment, safe to print."""
    p = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((p.scheme, p.netloc, p.path, "", ""))


def fail(message):
    print(f"user_agent: {message}", file=sys.stderr)
    sys.exit(1)


def same_endpoint(url, redirect_uri):
    """Whether url is the redirect URI (scheme, host, path; any port on a loopback redirect URI)."""
    a, b = urllib.parse.urlsplit(url), urllib.parse.urlsplit(redirect_uri)
    return (a.scheme, a.hostname, a.path) == (b.scheme, b.hostname, b.path) and (
        a.port == b.port or b.hostname in ("127.0.0.1", "localhost", "::1")
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("authorization_url")
    ap.add_argument("--refuse", action="store_true", help="cancel on the consent page")
    ap.add_argument("--login", default="alice", help="account name to sign in as")
    opts = ap.parse_args()

    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(opts.authorization_url).query))
    redirect_uri = query.get("redirect_uri")
    if not redirect_uri:
        fail("the authorization URL has no redirect_uri parameter")
    provider_origin = urllib.parse.urlsplit(opts.authorization_url)[:2]

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect())

    def request(url, data=None):
        """(status, headers, body) of one request; 3xx and error statuses are answers too."""
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
        print(f"user_agent: {req.get_method()} {bare(url)}", file=sys.stderr)
        try:
            with opener.open(req, timeout=TIMEOUT) as r:
                return r.status, r.headers, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read().decode("utf-8", "replace")
        except (urllib.error.URLError, OSError) as e:
            fail(f"{req.get_method()} {bare(url)} failed: {e}")

    url, data = opts.authorization_url, None
    refused = consented = False
    for _ in range(MAX_STEPS):
        if same_endpoint(url, redirect_uri) or urllib.parse.urlsplit(url)[:2] != provider_origin:
            break
        status, headers, body = request(url, data)
        data = None
        if 300 <= status < 400:
            location = headers.get("Location")
            if not location:
                fail(f"HTTP {status} from {bare(url)} without a Location")
            url = urllib.parse.urljoin(url, location)
            continue
        if status != 200:
            fail(f"HTTP {status} from {bare(url)}: {' '.join(Page.parse(body).text)[:300]}")
        page = Page.parse(body)
        form = page.forms[0] if page.forms else None
        names = {i["name"]: i for i in form["inputs"]} if form else {}
        if form and "password" in names:
            print(f"user_agent: login form, signing in as {opts.login}", file=sys.stderr)
            data = {i["name"]: i["value"] for i in form["inputs"] if i["type"] == "hidden"}
            data["login"] = opts.login
            data["password"] = "any password"
            url = urllib.parse.urljoin(url, form["action"])
        elif form and names.get("prompt", {}).get("value") == "consent":
            if opts.refuse:
                cancel = [a for a in page.links if a["href"].rstrip("/").endswith("/abort")]
                if not cancel:
                    fail("the consent page has no Cancel (abort) link")
                print("user_agent: consent page, refusing (Cancel)", file=sys.stderr)
                url = urllib.parse.urljoin(url, cancel[0]["href"])
                refused = True
            else:
                print("user_agent: consent page, continuing", file=sys.stderr)
                data = {i["name"]: i["value"] for i in form["inputs"]}
                url = urllib.parse.urljoin(url, form["action"])
                consented = True
        else:
            fail(f"unexpected page at {bare(url)}: {' '.join(page.text)[:300]}")
    else:
        fail(f"more than {MAX_STEPS} steps without reaching the redirect URI")

    if not same_endpoint(url, redirect_uri):
        fail(f"the provider sent the user to {bare(url)}, not the redirect URI {bare(redirect_uri)}")
    if opts.refuse and not refused:
        fail("--refuse given but the provider asked for no consent")
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    status, _, _ = request(url)
    line = f"delivered {bare(url)} HTTP {status} params={','.join(sorted(params)) or '-'}"
    if "error" in params:
        line += f" error={params['error']}"
    elif not consented and not opts.refuse:
        print("user_agent: note: no consent page was shown", file=sys.stderr)
    print(line)


if __name__ == "__main__":
    main()
