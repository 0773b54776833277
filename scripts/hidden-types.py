#!/usr/bin/env python3
"""Fails when a public signature of the `phantom` crate names a hidden or private type.

    python3 scripts/hidden-types.py target/doc/phantom.json
    python3 scripts/hidden-types.py --self-test

Reads rustdoc's JSON written with `--document-hidden-items` (the snapshot of
`scripts/public-api.py` leaves hidden items out, and with them what they would name). The rule
(docs/ARCHITECTURE.md, "No hidden type in a public signature"):

- An item is *visible* when a path from the crate root reaches it without passing a
  `#[doc(hidden)]` item; it is *nameable* when any path reaches it (`phantom::__private`, the
  hidden module generated code names, is the only sanctioned door for the others).
- A visible item's signature (function and method signatures, bounds, public fields, variants,
  associated types and constants, type aliases, the trait and type of its impls) names only
  visible types of this crate, or types of other crates.
- A visible trait may have a supertrait that is not visible only when it is sealed by it, and its
  docs say "sealed".
- A hidden member of a visible item (a trait method generated code implements, an inherent method
  generated code calls) names only nameable types. A visible trait's hidden methods are required
  ones: a trait with a hidden provided method is one users implement with machinery they cannot see.
- No hidden item sits at a public path, besides the root's `__private` and `__fuzz`: what only
  generated code names is reached through `__private`.
- A visible type implements no trait that is neither visible nor hidden (the docs would list the
  impl of a trait they do not document).

Prints one line per breach (the item, then the type it names) and exits 1 when there is any.
"""

import json
import sys


# The hidden modules of the crate root: `__private` (what generated code names) and `__fuzz` (the
# fuzz targets' bodies, feature `fuzzing`). Any other hidden item is a path users can write
# without seeing it.
DOORS = ("__private", "__fuzz")


def check(doc):
    index = doc["index"]
    paths = doc["paths"]

    def item(i):
        return index.get(str(i))

    def hidden(it):
        return any(
            isinstance(a, dict) and a.get("other", "").replace(" ", "") == "#[doc(hidden)]"
            for a in it.get("attrs", [])
        )

    def kind_of(it):
        return next(iter(it["inner"]))

    # Where each item is reached first: its visible path, else a hidden one.
    visible = {}
    nameable = {}

    def walk(prefix, module_id, is_hidden, seen):
        if (module_id, is_hidden) in seen:
            return
        seen.add((module_id, is_hidden))
        for i in item(module_id)["inner"]["module"]["items"]:
            it = item(i)
            if it is None:
                continue
            kind, inner = next(iter(it["inner"].items()))
            h = is_hidden or hidden(it)
            if h and not is_hidden:
                hidden_at.append((prefix, it, inner if kind == "use" else None))
            if kind == "use":
                target_id = inner.get("id")
                target = item(target_id) if target_id is not None else None
                if target is None:
                    continue
                h = h or hidden(target)
                if inner["is_glob"]:
                    if "module" in target["inner"]:
                        walk(prefix, target_id, h, seen)
                    continue
                path = f'{prefix}::{inner["name"]}'
                reach(path, target_id, target, h, seen)
                continue
            if it.get("visibility") != "public" and kind != "macro":
                continue
            reach(f'{prefix}::{it["name"]}', i, it, h, seen)

    def reach(path, id_, it, is_hidden, seen):
        key = str(id_)
        nameable.setdefault(key, path)
        if not is_hidden:
            visible.setdefault(key, path)
        if "module" in it["inner"]:
            walk(path, id_, is_hidden, seen)

    hidden_at = []
    walk("phantom", doc["root"], False, set())
    # A module walked hidden first is walked again when it is reached visibly: `seen` holds both.

    breaches = []

    def local(id_):
        entry = paths.get(str(id_))
        if entry is not None:
            return entry.get("crate_id") == 0
        it = item(id_)
        return it is None or it.get("crate_id") == 0

    def describe(id_, written):
        entry = paths.get(str(id_))
        return "::".join(entry["path"]) if entry else written

    def names(where, allowed, t):
        """Every path `t` names that `allowed` does not hold."""
        if t is None:
            return
        if isinstance(t, dict) and len(t) == 1:
            (kind, v), = t.items()
        else:
            return
        if kind == "resolved_path":
            path(where, allowed, v)
        elif kind == "dyn_trait":
            for p in v["traits"]:
                poly(where, allowed, p)
        elif kind in ("borrowed_ref", "raw_pointer", "pat"):
            names(where, allowed, v["type"])
        elif kind == "array":
            names(where, allowed, v["type"])
        elif kind == "slice":
            names(where, allowed, v)
        elif kind == "tuple":
            for x in v:
                names(where, allowed, x)
        elif kind == "impl_trait":
            for b in v:
                bound(where, allowed, b)
        elif kind == "qualified_path":
            names(where, allowed, v["self_type"])
            if v.get("trait"):
                path(where, allowed, v["trait"])
            args(where, allowed, v.get("args"))
        elif kind == "function_pointer":
            sig(where, allowed, v["sig"])

    def path(where, allowed, p):
        id_ = p.get("id")
        if id_ is not None and local(id_) and str(id_) not in allowed:
            breaches.append(f'{where} names `{describe(id_, p["path"])}`')
        args(where, allowed, p.get("args"))

    def poly(where, allowed, p):
        path(where, allowed, p["trait"])

    def args(where, allowed, a):
        if not a or not isinstance(a, dict):
            return
        if "angle_bracketed" in a:
            for x in a["angle_bracketed"]["args"]:
                if isinstance(x, dict) and "type" in x:
                    names(where, allowed, x["type"])
            for c in a["angle_bracketed"].get("constraints", []):
                args(where, allowed, c.get("args"))
                binding = c.get("binding", {})
                if "equality" in binding and "type" in binding["equality"]:
                    names(where, allowed, binding["equality"]["type"])
                for b in binding.get("constraint", []):
                    bound(where, allowed, b)
        elif "parenthesized" in a:
            for x in a["parenthesized"]["inputs"]:
                names(where, allowed, x)
            names(where, allowed, a["parenthesized"].get("output"))

    def bound(where, allowed, b):
        if isinstance(b, dict) and "trait_bound" in b:
            path(where, allowed, b["trait_bound"]["trait"])

    def generics(where, allowed, g):
        for p in g.get("params", []):
            k = p["kind"]
            if "type" in k:
                for b in k["type"].get("bounds", []):
                    bound(where, allowed, b)
                names(where, allowed, k["type"].get("default"))
            elif "const" in k:
                names(where, allowed, k["const"]["type"])
        for w in g.get("where_predicates", []):
            if "bound_predicate" in w:
                names(where, allowed, w["bound_predicate"]["type"])
                for b in w["bound_predicate"]["bounds"]:
                    bound(where, allowed, b)
            elif "eq_predicate" in w:
                names(where, allowed, w["eq_predicate"]["lhs"])
                rhs = w["eq_predicate"]["rhs"]
                if isinstance(rhs, dict) and "type" in rhs:
                    names(where, allowed, rhs["type"])

    def sig(where, allowed, s):
        for _, t in s["inputs"]:
            names(where, allowed, t)
        names(where, allowed, s.get("output"))

    def function(where, allowed, f):
        sig(where, allowed, f["sig"])
        generics(where, allowed, f["generics"])

    def docs_say_sealed(it):
        return "sealed" in (it.get("docs") or "").lower()

    def member(where, allowed_visible, allowed_hidden, it, in_trait=False):
        """A field, variant, method or associated item of a visible item."""
        h = hidden(it)
        allowed = allowed_hidden if h else allowed_visible
        where = f'{where}::{it["name"]}' + (" (hidden)" if h else "")
        kind, inner = next(iter(it["inner"].items()))
        if kind == "function":
            if h and in_trait and inner.get("has_body"):
                breaches.append(
                    f"{where} is a hidden provided method: users implementing the trait carry "
                    "machinery they cannot see (make it a required method only generated code "
                    "implements, or move it out of the trait)"
                )
            function(where, allowed, inner)
        elif kind == "struct_field":
            names(where, allowed, inner)
        elif kind == "variant":
            vk = inner["kind"]
            fields = []
            if isinstance(vk, dict):
                fields = vk.get("tuple") or vk.get("struct", {}).get("fields", [])
            for fid in fields:
                f = item(fid) if fid is not None else None
                if f:
                    names(where, allowed, f["inner"]["struct_field"])
        elif kind == "assoc_type":
            generics(where, allowed, inner["generics"])
            for b in inner.get("bounds", []):
                bound(where, allowed, b)
            names(where, allowed, inner.get("type"))
        elif kind == "assoc_const":
            names(where, allowed, inner["type"])

    def impls(where, allowed_visible, allowed_hidden, impl_ids):
        for iid in impl_ids:
            it = item(iid)
            if not it:
                continue
            imp = it["inner"]["impl"]
            if imp.get("is_synthetic") or imp.get("blanket_impl") or hidden(it):
                continue
            trait = imp.get("trait")
            if trait:
                tid = trait.get("id")
                if tid is not None and local(tid) and str(tid) not in visible:
                    # An impl of a hidden trait (a sealing one) is no part of the visible surface;
                    # one of a trait that is not hidden is listed in the docs, unexplained.
                    t = item(tid)
                    if t is not None and not hidden(t):
                        breaches.append(
                            f"{where}: impl {trait['path']} is listed in the docs, and "
                            f"`{describe(tid, trait['path'])}` is not: mark the trait "
                            "`#[doc(hidden)]` or make it public"
                        )
                    continue
                at = f"{where}: impl {trait['path']}"
                path(at, allowed_visible, trait)
                names(at, allowed_visible, imp["for"])
                generics(at, allowed_visible, imp["generics"])
                for mid in imp["items"]:
                    m = item(mid)
                    if m and "assoc_type" in m["inner"]:
                        names(f'{at}::{m["name"]}', allowed_visible, m["inner"]["assoc_type"].get("type"))
                continue
            generics(where, allowed_visible, imp["generics"])
            for mid in imp["items"]:
                m = item(mid)
                if m and m.get("visibility") == "public":
                    member(where, allowed_visible, allowed_hidden, m)

    for prefix, it, use in hidden_at:
        name = use["name"] if use else it["name"]
        if prefix == "phantom" and name in DOORS:
            continue
        if it.get("visibility") != "public" and not use:
            continue
        breaches.append(
            f"{prefix}::{name} is hidden at a public path: generated code reaches it through "
            "`__private`; make it `pub(crate)` or move it out of the public module"
        )

    for key, where in sorted(visible.items(), key=lambda kv: kv[1]):
        it = item(key)
        if it is None or it.get("crate_id", 0) != 0:
            continue
        kind, inner = next(iter(it["inner"].items()))
        if kind == "function":
            function(where, visible, inner)
        elif kind == "struct":
            generics(where, visible, inner["generics"])
            sk = inner["kind"]
            fields = []
            if isinstance(sk, dict):
                fields = sk.get("plain", {}).get("fields", []) or [f for f in sk.get("tuple", []) if f is not None]
            for fid in fields:
                f = item(fid)
                if f and f.get("visibility") == "public":
                    member(where, visible, nameable, f)
            impls(where, visible, nameable, inner.get("impls", []))
        elif kind == "enum":
            generics(where, visible, inner["generics"])
            for vid in inner["variants"]:
                v = item(vid)
                if v:
                    member(where, visible, nameable, v)
            impls(where, visible, nameable, inner.get("impls", []))
        elif kind == "union":
            generics(where, visible, inner["generics"])
            impls(where, visible, nameable, inner.get("impls", []))
        elif kind == "trait":
            generics(where, visible, inner["generics"])
            for b in inner["bounds"]:
                if "trait_bound" in b:
                    tid = b["trait_bound"]["trait"].get("id")
                    if (
                        tid is not None
                        and local(tid)
                        and str(tid) not in visible
                        and str(tid) in nameable
                        and docs_say_sealed(it)
                    ):
                        # The sealing supertrait: its own signatures are the macro's ABI.
                        continue
                bound(f"{where} (supertrait)", visible, b)
            for mid in inner["items"]:
                m = item(mid)
                if m:
                    member(where, visible, nameable, m, in_trait=True)
        elif kind == "type_alias":
            generics(where, visible, inner["generics"])
            names(where, visible, inner["type"])
        elif kind in ("constant", "static"):
            names(where, visible, inner["type"])
    return sorted(set(breaches))


def self_test():
    """A small crate as rustdoc's JSON describes it: a clean function, a sealed trait, and five
    breaches (a hidden type at a public path, a function naming it, a trait method naming a
    private type, a hidden provided method, an impl of a trait the docs leave out)."""

    def fn(inputs, output=None, body=True):
        return {
            "function": {
                "sig": {"inputs": inputs, "output": output, "is_c_variadic": False},
                "generics": {"params": [], "where_predicates": []},
                "header": {"is_const": False, "is_unsafe": False, "is_async": False, "abi": "Rust"},
                "has_body": body,
            }
        }

    def path(name, id_):
        return {"resolved_path": {"path": name, "id": id_, "args": None}}

    hidden = [{"other": "#[doc(hidden)]"}]
    index = {
        "0": {"name": "demo", "visibility": "public", "attrs": [], "crate_id": 0,
              "inner": {"module": {"items": [1, 2, 3, 4, 5, 6, 10]}}},
        # pub fn clean(x: Public) -> String
        "1": {"name": "clean", "visibility": "public", "attrs": [], "crate_id": 0,
              "inner": fn([["x", path("Public", 4)]], path("String", 99))},
        # pub fn leaks(x: &Hidden)
        "2": {"name": "leaks", "visibility": "public", "attrs": [], "crate_id": 0,
              "inner": fn([["x", {"borrowed_ref": {"lifetime": None, "is_mutable": False,
                                                    "type": path("Hidden", 5)}}]])},
        # pub trait Open { fn f() -> Vec<Private>; #[doc(hidden)] fn __g(&self) {} }
        "3": {"name": "Open", "visibility": "public", "attrs": [], "crate_id": 0, "docs": "",
              "inner": {"trait": {"items": [7, 8], "bounds": [],
                                  "generics": {"params": [], "where_predicates": []}}}},
        "4": {"name": "Public", "visibility": "public", "attrs": [], "crate_id": 0,
              "inner": {"struct": {"kind": "unit", "generics": {"params": [], "where_predicates": []},
                                   "impls": []}}},
        "5": {"name": "Hidden", "visibility": "public", "attrs": hidden, "crate_id": 0,
              "inner": {"struct": {"kind": "unit", "generics": {"params": [], "where_predicates": []},
                                   "impls": []}}},
        # pub mod __private { pub use super::Hidden; } (hidden)
        "6": {"name": "__private", "visibility": "public", "attrs": hidden, "crate_id": 0,
              "inner": {"module": {"items": [11]}}},
        "7": {"name": "f", "visibility": "default", "attrs": [], "crate_id": 0,
              "inner": fn([], {"resolved_path": {"path": "Vec", "id": 98, "args": {"angle_bracketed": {
                  "args": [{"type": path("Private", 9)}], "constraints": []}}}}, body=False)},
        "8": {"name": "__g", "visibility": "default", "attrs": hidden, "crate_id": 0,
              "inner": fn([["self", {"generic": "Self"}]], path("Hidden", 5))},
        "9": {"name": "Private", "visibility": "public", "attrs": [], "crate_id": 0,
              "inner": {"struct": {"kind": "unit", "generics": {"params": [], "where_predicates": []},
                                   "impls": []}}},
        # pub trait Sealed: private::Seal (docs say sealed)
        "10": {"name": "Sealed", "visibility": "public", "attrs": [], "crate_id": 0,
               "docs": "Sealed: implemented here only.",
               "inner": {"trait": {"items": [], "generics": {"params": [], "where_predicates": []},
                                   "bounds": [{"trait_bound": {"trait": {"path": "Seal", "id": 12, "args": None},
                                                               "generic_params": [], "modifier": "none"}}]}}},
        "11": {"name": None, "visibility": "public", "attrs": [], "crate_id": 0,
               "inner": {"use": {"source": "super::Hidden", "name": "Hidden", "id": 5, "is_glob": False}}},
        "12": {"name": "Seal", "visibility": "public", "attrs": [], "crate_id": 0,
               "inner": {"trait": {"items": [], "bounds": [],
                                   "generics": {"params": [], "where_predicates": []}}}},
    }
    # `Seal` is reachable through `__private` too.
    index["6"]["inner"]["module"]["items"].append(13)
    index["13"] = {"name": None, "visibility": "public", "attrs": [], "crate_id": 0,
                   "inner": {"use": {"source": "super::Seal", "name": "Seal", "id": 12, "is_glob": False}}}
    # impl Seal for Public: the docs of `Public` would list a trait they do not document.
    index["4"]["inner"]["struct"]["impls"] = [14]
    index["14"] = {"name": None, "visibility": "default", "attrs": [], "crate_id": 0,
                   "inner": {"impl": {"trait": {"path": "Seal", "id": 12, "args": None},
                                      "for": path("Public", 4), "items": [], "is_synthetic": False,
                                      "blanket_impl": None,
                                      "generics": {"params": [], "where_predicates": []}}}}
    paths = {
        "4": {"crate_id": 0, "path": ["demo", "Public"], "kind": "struct"},
        "5": {"crate_id": 0, "path": ["demo", "Hidden"], "kind": "struct"},
        "9": {"crate_id": 0, "path": ["demo", "inner", "Private"], "kind": "struct"},
        "98": {"crate_id": 1, "path": ["alloc", "vec", "Vec"], "kind": "struct"},
        "99": {"crate_id": 1, "path": ["alloc", "string", "String"], "kind": "struct"},
    }
    got = check({"root": 0, "index": index, "paths": paths})
    want = [
        "phantom::Hidden is hidden at a public path: generated code reaches it through "
        "`__private`; make it `pub(crate)` or move it out of the public module",
        "phantom::Public: impl Seal is listed in the docs, and `Seal` is not: mark the trait "
        "`#[doc(hidden)]` or make it public",
        "phantom::Open::__g (hidden) is a hidden provided method: users implementing the trait "
        "carry machinery they cannot see (make it a required method only generated code "
        "implements, or move it out of the trait)",
        "phantom::Open::f names `demo::inner::Private`",
        "phantom::leaks names `demo::Hidden`",
    ]
    if got != sorted(want):
        print("self-test failed:\n  got:  " + "\n        ".join(got) + "\n  want: " + "\n        ".join(want))
        return 1
    print("self-test passed: the five breaches are found, the clean items pass")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    breaches = check(json.load(open(argv[1])))
    for b in breaches:
        print(b)
    if breaches:
        print(
            f"{len(breaches)} breach(es) of \"No hidden type in a public signature\" "
            "(docs/ARCHITECTURE.md)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
