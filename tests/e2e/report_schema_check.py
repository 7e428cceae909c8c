#!/usr/bin/env python3
"""Validates JSON files against docs/results-schema.json.

A small JSON Schema (draft 2020-12) validator for exactly the keywords that
schema uses; a keyword it does not implement is an error, so the schema
cannot silently grow beyond what is checked.

usage: report_schema_check.py SCHEMA FILE...
"""
import json
import math
import re
import sys

ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs"}
ASSERTIONS = {"type", "properties", "required", "additionalProperties", "items", "enum", "const",
              "minimum", "maximum", "pattern", "$ref"}


def type_ok(value, name):
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool) or \
            isinstance(value, float) and math.isfinite(value) and value.is_integer()
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    raise ValueError("unsupported type name %r" % name)


class Validator:
    def __init__(self, schema):
        self.root = schema
        self.errors = []

    def resolve(self, ref):
        if not ref.startswith("#/"):
            raise ValueError("only local $ref is supported: %r" % ref)
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def check(self, value, schema, path):
        if schema is True:
            return
        if schema is False:
            self.errors.append("%s: not allowed" % path)
            return
        unknown = set(schema) - ANNOTATIONS - ASSERTIONS
        if unknown:
            raise ValueError("schema uses unsupported keywords %s" % sorted(unknown))
        if "$ref" in schema:
            self.check(value, self.resolve(schema["$ref"]), path)
        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(type_ok(value, n) for n in names):
                self.errors.append("%s: expected %s, got %s" % (path, " or ".join(names), json.dumps(value)[:60]))
                return
        if "const" in schema and value != schema["const"]:
            self.errors.append("%s: expected %s" % (path, json.dumps(schema["const"])))
        if "enum" in schema and value not in schema["enum"]:
            self.errors.append("%s: %s is not one of %s" % (path, json.dumps(value), schema["enum"]))
        is_num = isinstance(value, (int, float)) and not isinstance(value, bool)
        if "minimum" in schema and is_num and value < schema["minimum"]:
            self.errors.append("%s: %s < minimum %s" % (path, value, schema["minimum"]))
        if "maximum" in schema and is_num and value > schema["maximum"]:
            self.errors.append("%s: %s > maximum %s" % (path, value, schema["maximum"]))
        if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
            self.errors.append("%s: %r does not match %s" % (path, value, schema["pattern"]))
        if isinstance(value, dict):
            props = schema.get("properties", {})
            for key in schema.get("required", []):
                if key not in value:
                    self.errors.append("%s: missing required %r" % (path, key))
            for key, item in value.items():
                if key in props:
                    self.check(item, props[key], "%s.%s" % (path, key))
                elif "additionalProperties" in schema:
                    self.check(item, schema["additionalProperties"], "%s.%s" % (path, key))
        if isinstance(value, list) and "items" in schema:
            for i, item in enumerate(value):
                self.check(item, schema["items"], "%s[%d]" % (path, i))


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    bad = 0
    for name in argv[2:]:
        with open(name) as f:
            # NaN/Infinity are not JSON: refuse them instead of accepting Python's extension.
            doc = json.load(f, parse_constant=lambda c: (_ for _ in ()).throw(ValueError("%s: %s" % (name, c))))
        v = Validator(schema)
        v.check(doc, schema, "$")
        for e in v.errors:
            print("%s: %s" % (name, e), file=sys.stderr)
        bad += bool(v.errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
