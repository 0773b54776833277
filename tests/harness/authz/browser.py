#!/usr/bin/env python3
"""The browser's part of a sign-in through phantom's authorization server, scripted.

Usage: python3 browser.py AUTHORIZATION_URL [--login NAME] [--refuse] [--node a|b ...]

Opens AUTHORIZATION_URL (phantom's `/authorize`), follows every redirect keeping cookies per
origin: phantom sends it to the upstream identity provider (provider.mjs), where it signs in on the
development login page (any name, any password; --login, default "alice") and continues on the
provider's consent page; the provider sends it back to phantom's callback, which shows phantom's
own consent page (or, when the consent is remembered, redirects at once). There it allows, or with
--refuse denies. Finally it requests the client's redirect URI (its loopback listener), which
receives the code or the error.

--node names, in order, the node that each request to phantom's origin is routed to (the header
`X-Route-To` that the test's HAProxy set-up reads); once they are used up, requests are balanced
as HAProxy pleases. The node that served each request (HAProxy's `X-Served-By`) is reported.

Exits 0 when the final redirect was delivered, printing one JSON line on stdout:
  {"delivered": URL_WITHOUT_QUERY, "params": [names], "error": code|null,
   "consent_page": bool, "served": [[step, node], ...]}
Exits 1 with a message on stderr otherwise. Codes, tokens, the CSRF token and query strings are
never printed. Standard library only.
"""

import argparse
import os
import http.cookiejar
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oauth"))
from user_agent import NoRedirect, bare  # noqa: E402  (the OAuth harness's browser, beside)

MAX_STEPS = 30
TIMEOUT = 15


class Page(HTMLParser):
    """The forms (action, method, fields, submit buttons) and the text of a page."""

    def __init__(self):
        super().__init__()
        self.forms = []
        self.text = []
        self._skip = 0
        self._button = None

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
            self.forms.append({"action": a.get("action") or "", "method": (a.get("method") or "get").lower(),
                               "inputs": [], "buttons": []})
        elif tag == "input" and self.forms:
            kind = (a.get("type") or "text").lower()
            if kind == "submit":
                self.forms[-1]["buttons"].append({"name": a.get("name"), "value": a.get("value") or "", "text": a.get("value") or ""})
            elif a.get("name"):
                self.forms[-1]["inputs"].append({"name": a["name"], "type": kind, "value": a.get("value") or ""})
        elif tag == "button" and self.forms and (a.get("type") or "submit").lower() == "submit":
            self._button = {"name": a.get("name"), "value": a.get("value") or "", "text": ""}
            self.forms[-1]["buttons"].append(self._button)

    def handle_endtag(self, tag):
        if tag == "button":
            self._button = None
        elif tag in ("style", "script") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if self._button is not None:
            self._button["text"] += data
        if data.strip() and not self._skip:
            self.text.append(data.strip())


def origin(url):
    return urllib.parse.urlsplit(url)[:2]


class Refused(Exception):
    pass


def sign_in(authorization_url, login="alice", refuse=False, nodes=(), log=None, before_callback=None):
    """Drives the sign-in; the report described in the module docs. Raises Refused on failure.
    `before_callback`, when given, runs once just before the identity provider's redirect back to
    phantom (its callback) is followed."""
    log = log or (lambda m: print(f"browser: {m}", file=sys.stderr))
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorization_url).query))
    redirect_uri = query.get("redirect_uri")
    if not redirect_uri:
        raise Refused("the authorization URL has no redirect_uri parameter")
    phantom = origin(authorization_url)
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect())
    nodes = list(nodes)
    served = []

    def request(url, data=None):
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
        step = f"{req.get_method()} {urllib.parse.urlsplit(url).path}"
        if origin(url) == phantom and nodes:
            req.add_header("X-Route-To", nodes.pop(0))
        log(f"{step} ({bare(url)})")
        try:
            with opener.open(req, timeout=TIMEOUT) as r:
                status, headers, text = r.status, r.headers, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            status, headers, text = e.code, e.headers, e.read().decode("utf-8", "replace")
        except (urllib.error.URLError, OSError) as e:
            raise Refused(f"{step} at {bare(url)} failed: {e}")
        if origin(url) == phantom:
            served.append([step, headers.get("X-Served-By")])
        return status, headers, text

    url, data = authorization_url, None
    consent_page = False
    for _ in range(MAX_STEPS):
        if bare(url) == bare(redirect_uri):
            break
        if before_callback and origin(url) == phantom and urllib.parse.urlsplit(url).path.endswith("/callback"):
            before_callback()
            before_callback = None
        status, headers, body = request(url, data)
        data = None
        if 300 <= status < 400:
            location = headers.get("Location")
            if not location:
                raise Refused(f"HTTP {status} from {bare(url)} without a Location")
            url = urllib.parse.urljoin(url, location)
            continue
        page = Page.parse(body)
        if status != 200:
            raise Refused(f"HTTP {status} from {bare(url)}: {' '.join(page.text)[:300]}")
        form = page.forms[0] if page.forms else None
        names = {i["name"]: i for i in form["inputs"]} if form else {}
        if form and "password" in names:
            log(f"upstream login form, signing in as {login}")
            data = {i["name"]: i["value"] for i in form["inputs"] if i["type"] == "hidden"}
            data["login"] = login
            data["password"] = "any password"
            url = urllib.parse.urljoin(url, form["action"])
        elif form and names.get("prompt", {}).get("value") == "consent" and origin(url) != phantom:
            log("upstream consent page, continuing")
            data = {i["name"]: i["value"] for i in form["inputs"]}
            url = urllib.parse.urljoin(url, form["action"])
        elif form and origin(url) == phantom:
            consent_page = True
            want = ("deny", "refuse", "cancel", "decline") if refuse else ("allow", "approve", "accept", "continue")
            pick = [b for b in form["buttons"] if any(w in (b["value"] + " " + b["text"]).lower() for w in want)]
            if not pick:
                raise Refused(f"phantom's consent page has no button for {want[0]}: {form['buttons']}")
            log(f"phantom's consent page ({' '.join(page.text)[:200]}), {'denying' if refuse else 'allowing'}")
            data = {i["name"]: i["value"] for i in form["inputs"]}
            if pick[0]["name"]:
                data[pick[0]["name"]] = pick[0]["value"]
            url = urllib.parse.urljoin(url, form["action"])
        else:
            raise Refused(f"unexpected page at {bare(url)}: {' '.join(page.text)[:300]}")
    else:
        raise Refused(f"more than {MAX_STEPS} steps without reaching the redirect URI")

    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as r:
            r.read()
    except (urllib.error.URLError, OSError) as e:
        raise Refused(f"the redirect URI {bare(url)} did not take the answer: {e}")
    return {"delivered": bare(url), "params": sorted(params), "error": params.get("error"),
            "consent_page": consent_page, "served": served}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("authorization_url")
    ap.add_argument("--login", default="alice")
    ap.add_argument("--refuse", action="store_true")
    ap.add_argument("--node", action="append", default=[])
    opts = ap.parse_args()
    try:
        report = sign_in(opts.authorization_url, opts.login, opts.refuse, opts.node)
    except Refused as e:
        print(f"browser: {e}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
