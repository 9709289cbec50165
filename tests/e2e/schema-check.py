#!/usr/bin/python3
"""schema-check SCHEMA [DOC]: validate one JSON document (DOC, else stdin)
against a JSON Schema (draft 2020-12) with python3-jsonschema; print each
error with the path to it and exit 1 on any. Sourced by the e2e tests that
hold bringup's --json outputs to docs/schema/."""
import json
import sys

import jsonschema


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    doc = json.load(open(sys.argv[2]) if len(sys.argv) > 2 else sys.stdin)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    for e in errors:
        print("%s: %s: %s" % (sys.argv[1], "/".join(str(p) for p in e.path) or "(top)", e.message))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
