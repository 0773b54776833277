#!/usr/bin/env python3
"""Arguments that satisfy each tool's `inputSchema`, for calling every tool of a server.

Usage: python3 arguments.py TOOLS_LIST_JSON

Reads the Inspector's `--format json` output of `tools/list` ({"result": {"tools": [...]}}) and
prints one line per tool: its name, a tab, and a JSON object of arguments. Every property of the
top-level object gets a value (so optional arguments are exercised too); nested objects get their
required properties. Integers and numbers are 1 moved into their range (a catalogue id of 1
exists), strings are "a" repeated to `minLength`, enums and `anyOf` take their first non-null
choice; a `format` is ignored except on strings. A schema keyword it cannot satisfy (`pattern`,
`oneOf`, a string `format`, …) stops it with a message naming the tool, rather than sending
arguments the server would refuse.
"""
import json
import sys

UNSUPPORTED = ("pattern", "oneOf", "allOf", "not", "if", "multipleOf", "uniqueItems")


class Unsupported(Exception):
    pass


def resolve(schema, root):
    ref = schema.get("$ref")
    if ref is None:
        return schema
    if not ref.startswith("#/$defs/"):
        raise Unsupported(f"$ref {ref}")
    return resolve(root["$defs"][ref[len("#/$defs/"):]], root)


def in_range(schema, value):
    low = schema.get("minimum", schema.get("exclusiveMinimum", value - 1) + 1)
    high = schema.get("maximum", schema.get("exclusiveMaximum", value + 1) - 1)
    if low > high:
        raise Unsupported(f"empty range {low}..{high}")
    return min(max(value, low), high)


def value(schema, root, every_property=False):
    schema = resolve(schema, root)
    for keyword in UNSUPPORTED:
        if keyword in schema:
            raise Unsupported(keyword)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return next(v for v in schema["enum"] if v is not None)
    if "anyOf" in schema:
        branches = [resolve(b, root) for b in schema["anyOf"]]
        return value(next(b for b in branches if b.get("type") != "null"), root)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next(t for t in kind if t != "null")
    if kind == "integer":
        return in_range(schema, 1)
    if kind == "number":
        return in_range(schema, 1.0)
    if kind == "string":
        if "format" in schema:
            raise Unsupported(f"format {schema['format']!r}")
        return "a" * max(1, schema.get("minLength", 1))
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items", {"type": "string"})
        return [value(items, root) for _ in range(schema.get("minItems", 0))]
    if kind == "object":
        properties = schema.get("properties", {})
        names = list(properties) if every_property else schema.get("required", [])
        return {name: value(properties[name], root) for name in names}
    raise Unsupported(f"type {kind!r}")


def main():
    with open(sys.argv[1]) as f:
        tools = json.load(f)["result"]["tools"]
    for tool in tools:
        schema = tool["inputSchema"]
        try:
            arguments = value(schema, schema, every_property=True)
        except Unsupported as e:
            sys.exit(f"arguments.py: cannot make arguments for `{tool['name']}`: {e} (teach it)")
        print(f"{tool['name']}\t{json.dumps(arguments)}")


if __name__ == "__main__":
    main()
