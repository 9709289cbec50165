#!/usr/bin/python3
"""Hold every write bringup sent to NetBox against NetBox's own OpenAPI
document (the component schemas in tests/fixtures/netbox/openapi-schemas.json,
taken from NetBox's contrib/openapi.json; openapi-NOTICE says which release).

    check-netbox-bodies.py [--json] [--from LINE] SCHEMAS LOG
    check-netbox-bodies.py --answers NAME SCHEMAS FILE

The second form holds what a NetBox (the stand-in) answered to the
response schema NAME (Device, Interface, MACAddress): FILE is one object,
or a list answer whose "results" are each checked. NetBox's ChoiceField
gives null for a blank choice (a device with no rack face) where the
generated schema types the field as an object only: null is taken there.

LOG is a simulator's requests.log (one JSON object a line; "node" is
"netbox" for the NetBox stand-in's, "body" the request body as sent). Lines
before --from (1-based) are skipped: a test's own requests come first.
Each PATCH or POST under /api/ is held to the request schema NetBox's API
takes at that path:

  POST  /api/dcim/interfaces/        WritableInterfaceRequest
  PATCH /api/dcim/interfaces/N/      PatchedWritableInterfaceRequest
  POST  /api/dcim/mac-addresses/     MACAddressRequest
  PATCH /api/dcim/devices/N/         PatchedWritableDeviceRequest

A write to any other path is a violation (no schema named for it: add one
here before bringup sends it). OpenAPI 3.0's "nullable" becomes JSON
Schema's null type, its boolean exclusiveMinimum/Maximum are Draft 4's. A
property the schema does not list is a violation too: NetBox's serializers
drop unknown fields without a word, so a misspelled one would change
nothing and say nothing.

Exit 0 when every write conforms and at least one was checked, 1 on a
violation or when none was seen, 2 when it cannot run. --json prints
{"checked": {schema: n}, "violations": [{"line", "method", "path",
"schema", "message"}]}.
"""
import copy
import json
import re
import sys

import jsonschema

ROUTES = [
    ("POST", re.compile(r"^/api/dcim/interfaces/$"), "WritableInterfaceRequest"),
    ("PATCH", re.compile(r"^/api/dcim/interfaces/[0-9]+/$"), "PatchedWritableInterfaceRequest"),
    ("POST", re.compile(r"^/api/dcim/mac-addresses/$"), "MACAddressRequest"),
    ("PATCH", re.compile(r"^/api/dcim/devices/[0-9]+/$"), "PatchedWritableDeviceRequest"),
]


def draft4(node):
    """OpenAPI 3.0 schema object -> JSON Schema Draft 4 (recursively)."""
    if isinstance(node, list):
        return [draft4(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: draft4(v) for k, v in node.items() if k not in ("nullable", "example", "readOnly", "writeOnly")}
    if node.get("nullable"):
        if "type" in out and "enum" not in out and "$ref" not in out and "oneOf" not in out and "allOf" not in out:
            t = out["type"]
            out["type"] = (t if isinstance(t, list) else [t]) + ["null"]
        else:
            if "enum" in out and None not in out["enum"]:
                out["enum"] = out["enum"] + [None]
                return out
            return {"anyOf": [out, {"type": "null"}]}
    return out


def load_root(path):
    with open(path) as f:
        doc = json.load(f)
    return {"components": {"schemas": {k: draft4(v) for k, v in doc["components"]["schemas"].items()}}}


def choices_nullable(schema):
    """Every {value, label} choice object of schema's properties may be null."""
    for name, prop in schema.get("properties", {}).items():
        if prop.get("type") == "object" and set(prop.get("properties", {})) == {"value", "label"}:
            schema["properties"][name] = {"anyOf": [prop, {"type": "null"}]}


def answers(name, schemas, path):
    root = load_root(schemas)
    schema = copy.deepcopy(root)
    schema.update(root["components"]["schemas"][name])
    choices_nullable(schema)
    with open(path) as f:
        doc = json.load(f)
    objs = doc["results"] if isinstance(doc, dict) and "results" in doc else [doc]
    bad = 0
    for i, obj in enumerate(objs):
        for e in sorted(jsonschema.Draft4Validator(schema).iter_errors(obj), key=lambda e: list(e.path)):
            bad += 1
            print("%s: %s #%d (id %s): %s: %s" % (path, name, i, obj.get("id") if isinstance(obj, dict) else "?",
                                                 "/".join(str(p) for p in e.path) or "(top)", e.message))
    return 1 if bad or not objs else 0


def main(argv):
    if argv[:1] == ["--answers"] and len(argv) == 4:
        return answers(argv[1], argv[2], argv[3])
    as_json = "--json" in argv
    argv = [a for a in argv if a != "--json"]
    start = 1
    if "--from" in argv:
        i = argv.index("--from")
        start = int(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = load_root(argv[0])
    checked, violations = {}, []
    with open(argv[1]) as f:
        for lineno, line in enumerate(f, 1):
            if lineno < start or '"netbox"' not in line:
                continue
            rec = json.loads(line)
            if rec.get("node") != "netbox" or rec.get("method") not in ("POST", "PATCH", "PUT", "DELETE"):
                continue
            path = rec.get("path", "").split("?")[0]
            name = next((n for m, r, n in ROUTES if m == rec["method"] and r.match(path)), None)
            where = {"line": lineno, "method": rec["method"], "path": path, "schema": name}
            if not name:
                violations.append(dict(where, message="no NetBox request schema named for this write"))
                continue
            schema = copy.deepcopy(root)
            schema.update(root["components"]["schemas"][name])
            schema["additionalProperties"] = False
            v = jsonschema.Draft4Validator(schema)
            body = rec.get("body")
            if not isinstance(body, dict):
                violations.append(dict(where, message="no JSON object body in the log line"))
                continue
            for e in sorted(v.iter_errors(body), key=lambda e: list(e.path)):
                at = "/".join(str(p) for p in e.path) or "(top)"
                violations.append(dict(where, message="%s: %s" % (at, e.message)))
            checked[name] = checked.get(name, 0) + 1
    if as_json:
        print(json.dumps({"checked": checked, "violations": violations}))
    else:
        for v in violations:
            print("%s:%d: %s %s (%s): %s" % (argv[1], v["line"], v["method"], v["path"], v["schema"], v["message"]))
    return 1 if violations or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
