#!/usr/bin/env python3
"""Prints the public API of the `phantom` crate, one line per item, from rustdoc's JSON output.

    python3 scripts/public-api.py target/doc/phantom.json > tests/public-api.txt

Walks the crate from its root through public modules and re-exports (items hidden from the docs
are left out, as rustdoc leaves them out), and writes each item's path and kind; functions and
methods with their signatures, structs with their public fields, enums with their variants, traits
with their methods, and the inherent and trait impls of each public type. `scripts/test.sh` diffs
the output against the committed `tests/public-api.txt`, so the surface changes only on purpose.
"""

import json
import sys


def main(path):
    doc = json.load(open(path))
    index = doc["index"]
    paths = doc["paths"]
    lines = set()

    def item(i):
        return index.get(str(i))

    def name_of(id_):
        entry = paths.get(str(id_))
        return "::".join(entry["path"]) if entry else "?"

    def generic_args(args):
        if not args:
            return ""
        if "angle_bracketed" in args:
            parts = []
            for a in args["angle_bracketed"]["args"]:
                if "type" in a:
                    parts.append(ty(a["type"]))
                elif "lifetime" in a:
                    parts.append(a["lifetime"])
                elif "const" in a:
                    parts.append(str(a["const"].get("expr", "_")))
            for c in args["angle_bracketed"].get("constraints", []):
                binding = c.get("binding", {})
                if "equality" in binding and "type" in binding["equality"]:
                    parts.append(f'{c["name"]} = {ty(binding["equality"]["type"])}')
                else:
                    parts.append(c["name"])
            return "<" + ", ".join(parts) + ">" if parts else ""
        if "parenthesized" in args:
            p = args["parenthesized"]
            out = "(" + ", ".join(ty(t) for t in p["inputs"]) + ")"
            return out + (f' -> {ty(p["output"])}' if p.get("output") else "")
        return ""

    def bound(b):
        if "trait_bound" in b:
            t = b["trait_bound"]["trait"]
            return t["path"].rsplit("::", 1)[-1] + generic_args(t.get("args"))
        if "outlives" in b:
            return b["outlives"]
        return "?"

    def ty(t):
        if t is None:
            return "()"
        (kind, v), = t.items()
        if kind == "resolved_path":
            # The name alone: the path as written in the source is the crate's own business.
            return v["path"].rsplit("::", 1)[-1] + generic_args(v.get("args"))
        if kind == "generic":
            return v
        if kind == "primitive":
            return v
        if kind == "borrowed_ref":
            life = f'{v["lifetime"]} ' if v.get("lifetime") else ""
            return f'&{life}{"mut " if v["is_mutable"] else ""}{ty(v["type"])}'
        if kind == "tuple":
            return "(" + ", ".join(ty(x) for x in v) + ")"
        if kind == "slice":
            return f"[{ty(v)}]"
        if kind == "array":
            return f'[{ty(v["type"])}; {v["len"]}]'
        if kind == "impl_trait":
            return "impl " + " + ".join(bound(b) for b in v)
        if kind == "dyn_trait":
            return "dyn " + " + ".join(
                p["trait"]["path"].rsplit("::", 1)[-1] + generic_args(p["trait"].get("args"))
                for p in v["traits"]
            )
        if kind == "qualified_path":
            return f'<{ty(v["self_type"])}>::{v["name"]}'
        if kind == "raw_pointer":
            return f'*{"mut" if v["is_mutable"] else "const"} {ty(v["type"])}'
        if kind == "function_pointer":
            return "fn(" + ", ".join(ty(x[1]) for x in v["sig"]["inputs"]) + ")"
        return kind

    def signature(name, f):
        sig = f["sig"]
        params = ", ".join(
            n if n == "self" else f"{n}: {ty(t)}" for n, t in sig["inputs"]
        )
        out = f' -> {ty(sig["output"])}' if sig.get("output") else ""
        asy = "async " if f["header"].get("is_async") else ""
        return f"{name}: {asy}fn({params}){out}"

    def members(prefix, it):
        kind, inner = next(iter(it["inner"].items()))
        if kind == "struct":
            fields = inner["kind"].get("plain", {}).get("fields", []) if isinstance(inner["kind"], dict) else []
            for fid in fields:
                f = item(fid)
                if f and f["visibility"] == "public":
                    lines.add(f'{prefix}.{f["name"]}: {ty(f["inner"]["struct_field"])}')
            tuple_fields = inner["kind"].get("tuple", []) if isinstance(inner["kind"], dict) else []
            for n, fid in enumerate(tuple_fields):
                f = item(fid) if fid is not None else None
                if f and f["visibility"] == "public":
                    lines.add(f'{prefix}.{n}: {ty(f["inner"]["struct_field"])}')
        if kind == "enum":
            for vid in inner["variants"]:
                lines.add(f'{prefix}::{item(vid)["name"]} (variant)')
        if kind == "trait":
            for mid in inner["items"]:
                m = item(mid)
                if m and "function" in m["inner"]:
                    lines.add(f'{prefix}::{signature(m["name"], m["inner"]["function"])} (trait method)')
                elif m:
                    lines.add(f'{prefix}::{m["name"]} (trait {next(iter(m["inner"]))})')
        if kind in ("struct", "enum", "union"):
            for iid in inner.get("impls", []):
                imp = item(iid)
                if not imp:
                    continue
                imp = imp["inner"]["impl"]
                if imp.get("is_synthetic") or imp.get("blanket_impl"):
                    continue
                if imp.get("trait"):
                    t = imp["trait"]
                    lines.add(f'{prefix}: impl {t["path"]}{generic_args(t.get("args"))}')
                    continue
                for mid in imp["items"]:
                    m = item(mid)
                    if m and m["visibility"] == "public" and "function" in m["inner"]:
                        lines.add(f'{prefix}::{signature(m["name"], m["inner"]["function"])}')
                    elif m and m["visibility"] == "public" and "assoc_const" in m["inner"]:
                        lines.add(f'{prefix}::{m["name"]} (const)')

    seen = set()

    def walk(prefix, module_id):
        if (prefix, module_id) in seen:
            return
        seen.add((prefix, module_id))
        for i in item(module_id)["inner"]["module"]["items"]:
            it = item(i)
            if it is None:
                continue
            kind, inner = next(iter(it["inner"].items()))
            if kind == "use":
                target = item(inner["id"]) if inner.get("id") is not None else None
                if inner["is_glob"]:
                    if target and "module" in target["inner"]:
                        walk(prefix, inner["id"])
                    continue
                path = f'{prefix}::{inner["name"]}'
                if target is None:
                    lines.add(f'{path} (re-export of {inner["source"]})')
                elif "module" in target["inner"]:
                    lines.add(f"{path} (module)")
                    walk(path, inner["id"])
                else:
                    describe(path, target)
                continue
            if it.get("visibility") != "public" and kind != "macro":
                continue
            path = f'{prefix}::{it["name"]}'
            if kind == "module":
                lines.add(f"{path} (module)")
                walk(path, i)
            else:
                describe(path, it)

    def describe(path, it):
        kind, inner = next(iter(it["inner"].items()))
        if path.startswith("phantom::prelude::"):
            # The prelude re-exports items described at their own paths.
            lines.add(f"{path} ({kind})")
        elif kind == "function":
            lines.add(f'{path.rsplit("::", 1)[0]}::{signature(path.rsplit("::", 1)[1], inner)}')
        else:
            lines.add(f"{path} ({kind})")
            members(path, it)

    walk("phantom", doc["root"])
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main(sys.argv[1])
