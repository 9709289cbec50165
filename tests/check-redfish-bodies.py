#!/usr/bin/python3
"""Hold every request body a client sent to the simulated BMCs against
DMTF's published Redfish JSON schemas (tests/fixtures/dmtf-json-schema).

    check-redfish-bodies.py [--json] [--schemas DIR] LOG...

LOG is a simulator's requests.log (one JSON object a line; "body" is the
request body as sent, its Password redacted to a placeholder of its type).
The schema for each body is the one the target claims: the checker GETs the
target (a PATCH's resource, an action's resource, a POST's collection) from
the BMC named in the log line, with basic auth as BRINGUP_BMC_USER (default
root) / BRINGUP_BMC_PASSWORD, and reads its @odata.type. $refs resolve to
the vendored files only; nothing is fetched from anywhere else.

  PATCH     the target's versioned schema with PATCH semantics: nothing is
            required, read-only properties and properties the schema does
            not have (additionalProperties false) are violations, types and
            enums are checked.
  action    POST .../Actions/Ns.Name: the action's parameters in the
            resource's versioned schema (requiredParameter honoured, no
            other parameter allowed).
  create    POST to a collection: the member's schema, requiredOnCreate
            required, other read-only properties refused. A Session is
            checked against the newest vendored Session version (the
            collection does not say which). A DellJob is Dell OEM: Dell
            publishes its schema but not under a licence that lets it be
            copied here, so the body is held to the facts that schema
            states (TargetSettingsURI required on create, a string).
  Dell OEM  the two Dell requests discover sends for Connection View, held
            to Dell's facts the same way: the iDRAC attributes PATCH
            (DellAttributes: an Attributes object of Group.Index.Name
            attributes, SwitchConnectionView.1.Enable Enabled or Disabled)
            and DellSwitchConnectionService.ServerPortConnectionRefresh (no
            parameters).
  multipart  a POST whose log line has "parts" (the simulator's form of a
            multipart/form-data body): its UpdateParameters part held to
            UpdateParameters in the versioned UpdateService schema the
            service root's UpdateService claims (DSP0266 "Multipart HTTP
            push updates"), and an UpdateFile part with a file name and
            bytes required.
  iLO push  a POST to iLO's HttpPushUri (/cgi-bin/uploadFile): HPE's own
            form, held to the facts HPE's python-ilorest-library example
            (upload_firmware_ilo_repository.py) states: a parameters part,
            a JSON object of UpdateRepository and UpdateTarget (booleans),
            ETag (a string) and Section (an integer), a file part with a
            file name and bytes, and where there is one a compsig part (the
            component's signature) with a file name and bytes (the
            sessionKey part carries the token and is not logged).
  annotations  every "@Redfish.X" / "@odata.X" term in any body is checked
            against DMTF's redfish-payload-annotations schema.

Exit 0 when every body conforms, 1 on a violation, 2 when it cannot run.
--json prints {"checked": {kind: n}, "annotations": {term: n},
"violations": [{"log", "line", "node", "method", "path", "kind",
"message"}]}.
"""
import base64
import json
import os
import re
import sys
import urllib.error
import urllib.request
import warnings

warnings.simplefilter("ignore", DeprecationWarning)
import jsonschema  # noqa: E402  (python3-jsonschema)
from jsonschema import validators  # noqa: E402

PREFIX = "http://redfish.dmtf.org/schemas/v1/"
ANNOTATION = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)?(@(odata|Redfish|Message)\.[A-Za-z_][A-Za-z0-9_]*)$")
ACTION = re.compile(r"^(.*?)/Actions/(?:Oem/)?([A-Za-z0-9]+)\.([A-Za-z0-9]+)/?$")
ODATA_TYPE = re.compile(r"^#([A-Za-z0-9]+)\.(v[0-9]+_[0-9]+_[0-9]+)\.([A-Za-z0-9]+)$")
ODATA_UNVERSIONED = re.compile(r"^#([A-Za-z0-9]+)\.([A-Za-z0-9]+)$")
FETCH_TIMEOUT_S = 5
# Maps whose values are schemas (their keys are names, never keywords).
SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "parameters")
SCHEMA_LISTS = ("anyOf", "allOf", "oneOf")
SCHEMA_ONE = ("items", "additionalProperties", "not")

# What Dell's own DellJob schema (DellJob.v1_2_0, published by Dell with
# iDRAC firmware, "All Rights Reserved") says about creating a job: its one
# requiredOnCreate property is TargetSettingsURI, a string. StartTime and
# EndTime are the scheduling strings Dell's iDRAC Redfish guide documents.
DELL_JOB_CREATE = {
    "type": "object",
    "required": ["TargetSettingsURI"],
    "properties": {
        "TargetSettingsURI": {"type": "string"},
        "StartTime": {"type": "string"},
        "EndTime": {"type": "string"},
    },
    "additionalProperties": False,
}

# The iDRAC's own attributes (Managers/iDRAC.Embedded.1/Oem/Dell/
# DellAttributes/iDRAC.Embedded.1, #DellAttributes.v1_0_0, whose schema Dell
# publishes "All Rights Reserved" too): a PATCH carries "Attributes", an
# object of the attributes to set, each named Group.Index.Name as every
# attribute of ManagerAttributeRegistry is (the R7615 capture in
# tests/fixtures/redfish/dell/understack/dell_attributes.json), of a
# registry type (enumeration, string, integer, boolean). The one bringup
# writes, SwitchConnectionView.1.Enable, is an enumeration of Enabled and
# Disabled in Dell's iDRAC9 attribute registry (and the capture's value).
DELL_ATTRIBUTE_NAME = r"^[A-Za-z][A-Za-z0-9]*\.[0-9]+\.[A-Za-z][A-Za-z0-9_]*$"
DELL_ATTRIBUTES_PATCH = {
    "type": "object",
    "required": ["Attributes"],
    "properties": {
        "Attributes": {
            "type": "object",
            "minProperties": 1,
            "properties": {"SwitchConnectionView.1.Enable": {"enum": ["Enabled", "Disabled"]}},
            "patternProperties": {DELL_ATTRIBUTE_NAME: {"type": ["string", "integer", "boolean"]}},
            "additionalProperties": False,
        },
    },
    "patternProperties": {r"^@(odata|Redfish|Message)\.": {}},
    "additionalProperties": False,
}
# Dell's OEM actions bringup calls, by the resource's namespace and the
# action: their parameters as Dell states them. ServerPortConnectionRefresh
# (DellSwitchConnectionService, iDRAC9 Redfish API guide) takes none: the
# service's Actions entry names only its target, with no ActionInfo or
# @Redfish.AllowableValues (as iDRAC captures show it).
DELL_ACTIONS = {
    "DellSwitchConnectionService.ServerPortConnectionRefresh": {
        "type": "object",
        "patternProperties": {ANNOTATION.pattern: {}},
        "additionalProperties": False,
    },
}


class Unusable(Exception):
    """The checker cannot run (missing schemas, unreadable log)."""


def client_supplied(prop, mode):
    """A read-only property the schema says the client supplies: it can
    be given only when the resource is made. Session v1_5_0's Context: "A
    client-supplied string that is stored with the session", "a
    client-supplied context that remains with the session through the
    session's lifetime"."""
    return mode == "create" and str(prop.get("description", "")).startswith("A client-supplied ")


def transform(node, mode):
    """A schema as a client's request must satisfy it in mode (patch,
    create, action). DMTF writes "readonly" beside "$ref", where draft 7
    ignores siblings: the $ref moves into an allOf so both apply."""
    if isinstance(node, list):
        return [transform(v, mode) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    settable = set(node.get("requiredOnCreate", ())) if mode == "create" else set()
    for key, value in node.items():
        if key in SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {}
            for name, sub in value.items():
                sub = transform(sub, mode)
                if isinstance(sub, dict) and (name in settable or client_supplied(sub, mode)):
                    sub.pop("readonly", None)
                out[key][name] = sub
        elif key in SCHEMA_LISTS and isinstance(value, list):
            out[key] = [transform(v, mode) for v in value]
        elif key in SCHEMA_ONE and isinstance(value, (dict, list)):
            out[key] = transform(value, mode)
        elif key == "required" and mode in ("patch", "create"):
            continue  # what a response must hold, not a request
        elif key == "requiredOnCreate" and mode == "create":
            out["required"] = list(value)
        else:
            out[key] = value
    if mode == "action":
        out.pop("readonly", None)
    if "$ref" in out and len(out) > 1:
        out["allOf"] = [{"$ref": out.pop("$ref")}] + out.get("allOf", [])
    return out


def readonly(validator, value, instance, schema):
    if value is True:
        yield jsonschema.ValidationError("is read-only: a client may not write it")


Checker = validators.extend(jsonschema.Draft7Validator, {"readonly": readonly})


def refuse_fetch(url):
    raise Unusable("$ref to %s, which is not vendored in tests/fixtures/dmtf-json-schema" % url)


class Schemas:
    def __init__(self, directory):
        self.raw = {}
        for name in os.listdir(directory):
            if name.endswith(".json"):
                with open(os.path.join(directory, name)) as f:
                    self.raw[PREFIX + name] = json.load(f)
        if not self.raw:
            raise Unusable("no schemas in " + directory)
        self.stores = {}

    def has(self, name):
        return PREFIX + name in self.raw

    def newest(self, namespace):
        def version(url):
            return tuple(int(n) for n in re.findall(r"\d+", url[len(PREFIX) + len(namespace):]))

        found = [u for u in self.raw if re.fullmatch(re.escape(PREFIX + namespace) + r"\.v[0-9_]+\.json", u)]
        return max(found, key=version)[len(PREFIX):] if found else None

    def node(self, name, pointer):
        doc = self.raw.get(PREFIX + name)
        for part in pointer.strip("/").split("/"):
            if doc is not None and part:
                doc = doc.get(part) if isinstance(doc, dict) else None
        return doc

    def validator(self, name, schema, mode):
        """A validator for schema, written as if it sat in file name."""
        if mode not in self.stores:
            self.stores[mode] = {u: transform(d, mode) for u, d in self.raw.items()}
        resolver = jsonschema.RefResolver(PREFIX + name, self.stores[mode].get(PREFIX + name, {}),
                                          store=self.stores[mode], cache_remote=False,
                                          handlers={"http": refuse_fetch, "https": refuse_fetch})
        return Checker(transform(schema, mode), resolver=resolver)


def messages(errors):
    out = []
    for e in errors:
        where = "/".join(str(p) for p in e.absolute_path) or "(body)"
        text = e.message
        if e.context:  # anyOf / allOf: say why the closest branch failed
            best = jsonschema.exceptions.best_match(e.context)
            text = best.message
            where = "/".join(str(p) for p in e.absolute_path + best.path) or where
        out.append("%s: %s" % (where, text))
    return out


def validate(schemas, name, schema, mode, body):
    try:
        return messages(schemas.validator(name, schema, mode).iter_errors(body))
    except (Unusable, jsonschema.exceptions.RefResolutionError) as e:
        return ["cannot check: %s" % e]


def annotations(value, found):
    """(key, value) of every annotation term in a body, at any depth."""
    if isinstance(value, dict):
        for key, sub in value.items():
            m = ANNOTATION.match(key)
            if m:
                found.append((key, m.group(1) or "", m.group(2), sub))
            annotations(sub, found)
    elif isinstance(value, list):
        for sub in value:
            annotations(sub, found)
    return found


class Fetcher:
    def __init__(self):
        user = os.environ.get("BRINGUP_BMC_USER", "root")
        password = os.environ.get("BRINGUP_BMC_PASSWORD", "")
        self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self.scheme = os.environ.get("BRINGUP_BMC_SCHEME", "http")
        self.cache = {}
        # loopback only: no proxy from the environment
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def odata_type(self, bmc, path):
        key = (bmc, path)
        if key not in self.cache:
            req = urllib.request.Request("%s://%s%s" % (self.scheme, bmc, path),
                                         headers={"Authorization": self.auth})
            try:
                with self.opener.open(req, timeout=FETCH_TIMEOUT_S) as resp:
                    self.cache[key] = json.load(resp).get("@odata.type")
            except (OSError, ValueError, urllib.error.URLError) as e:
                self.cache[key] = e
        return self.cache[key]


class Run:
    def __init__(self, schemas):
        self.schemas = schemas
        self.fetch = Fetcher()
        self.checked = {}
        self.terms = {}
        self.violations = []

    def target(self, bmc, path):
        """(namespace, version or None, type) the resource at path claims."""
        t = self.fetch.odata_type(bmc, path)
        if isinstance(t, Exception) or not isinstance(t, str):
            raise Unusable("cannot read the @odata.type of %s: %s" % (path, t))
        m = ODATA_TYPE.match(t) or ODATA_UNVERSIONED.match(t)
        if not m:
            raise Unusable("%s claims @odata.type %r" % (path, t))
        return (m.group(1), m.group(2), m.group(3)) if m.re is ODATA_TYPE else (m.group(1), None, m.group(2))

    def versioned(self, namespace, version):
        name = "%s.%s.json" % (namespace, version)
        if not self.schemas.has(name):
            raise Unusable("%s is not vendored: add it with tests/fixtures/dmtf-json-schema/vendor.py" % name)
        return name

    def check_patch(self, line, body):
        ns, version, typ = self.target(line["bmc"], line["path"])
        if ns == "DellAttributes":
            return "DellAttributes PATCH (Dell's facts)", messages(Checker(DELL_ATTRIBUTES_PATCH).iter_errors(body))
        if version is None:
            raise Unusable("%s claims the unversioned @odata.type #%s.%s" % (line["path"], ns, typ))
        name = self.versioned(ns, version)
        return "%s PATCH" % typ, validate(self.schemas, name, {"$ref": "#/definitions/" + typ}, "patch", body)

    def check_action(self, line, body, m):
        ns, version, _ = self.target(line["bmc"], m.group(1))
        kind = "%s.%s" % (m.group(2), m.group(3))
        if kind in DELL_ACTIONS and ns == m.group(2):
            return kind + " (Dell's facts)", messages(Checker(DELL_ACTIONS[kind]).iter_errors(body))
        if version is None or ns != m.group(2):
            raise Unusable("action %s on a %s resource" % (kind, ns))
        name = self.versioned(ns, version)
        action = self.schemas.node(name, "/definitions/" + m.group(3))
        if not isinstance(action, dict) or "parameters" not in action:
            return kind, ["%s does not define the action %s" % (name, kind)]
        params = action["parameters"]
        schema = {
            "type": "object",
            "properties": params,
            "patternProperties": {ANNOTATION.pattern: {}},
            "additionalProperties": False,
            "required": sorted(p for p, s in params.items() if s.get("requiredParameter")),
        }
        return kind, validate(self.schemas, name, schema, "action", body)

    def check_create(self, line, body):
        ns, _, typ = self.target(line["bmc"], line["path"])
        member = typ[:-len("Collection")] if typ.endswith("Collection") else None
        if member == "DellJob":
            return "DellJob create (Dell's facts)", messages(Checker(DELL_JOB_CREATE).iter_errors(body))
        name = self.schemas.newest(member) if member else None
        if not name:
            raise Unusable("no vendored schema for creating a member of %s (#%s.%s)" % (line["path"], ns, typ))
        return "%s create" % member, validate(self.schemas, name, {"$ref": "#/definitions/" + member}, "create",
                                              body)

    def check_multipart(self, line, parts):
        ns, version, _ = self.target(line["bmc"], "/redfish/v1/UpdateService")
        if ns != "UpdateService" or version is None:
            raise Unusable("the UpdateService claims #%s.%s" % (ns, version))
        name = self.versioned(ns, version)
        errors = []
        params = parts.get("UpdateParameters")
        if not isinstance(params, dict):
            errors.append("UpdateParameters: the part is missing or not a JSON object")
        else:
            errors += validate(self.schemas, name, {"$ref": "#/definitions/UpdateParameters"}, "action", params)
            errors += self.check_annotations(params, "action")
        f = parts.get("UpdateFile")
        if not isinstance(f, dict) or not f.get("filename") or not f.get("bytes"):
            errors.append("UpdateFile: the part is missing, has no file name or no bytes")
        return "UpdateService multipart", errors

    def check_ilo_push(self, parts):
        errors = []
        params = parts.get("parameters")
        want = {"UpdateRepository": bool, "UpdateTarget": bool, "ETag": str, "Section": int}
        if not isinstance(params, dict):
            errors.append("parameters: the part is missing or not a JSON object")
        else:
            for key, kind in want.items():
                value = params.get(key)
                if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                    errors.append("parameters.%s: missing or not a %s" % (key, kind.__name__))
            errors += ["parameters.%s: not a parameter of the form" % k for k in params if k not in want]
        f = parts.get("file")
        if not isinstance(f, dict) or not f.get("filename") or not f.get("bytes"):
            errors.append("file: the part is missing, has no file name or no bytes")
        sig = parts.get("compsig")
        if sig is not None and (not isinstance(sig, dict) or not sig.get("filename") or not sig.get("bytes")):
            errors.append("compsig: the part has no file name or no bytes")
        errors += ["%s: not a part of the form" % k for k in parts if k not in ("parameters", "file", "compsig")]
        return "iLO push (HPE's facts)", errors

    def check_annotations(self, body, mode):
        name = self.schemas.newest("redfish-payload-annotations")
        doc = self.schemas.raw.get(PREFIX + name, {}) if name else {}
        out = []
        for key, prop, term, value in annotations(body, []):
            schema = doc.get("properties", {}).get(term) if not prop else None
            if schema is None:
                schema = next((s for p, s in doc.get("patternProperties", {}).items() if re.match(p, key)), None)
            if schema is None:
                out.append("%s: not a term of DMTF's %s" % (key, name))
                continue
            self.terms[term] = self.terms.get(term, 0) + 1
            out += ["%s: %s" % (key, m.replace("(body): ", "", 1))
                    for m in validate(self.schemas, name, schema, mode, value)]
        return out

    def check(self, log, number, line):
        method = line.get("method")
        if "parts" in line and line.get("path", "").rstrip("/") == "/cgi-bin/uploadFile":
            kind, errors = self.check_ilo_push(line["parts"])
            return self.record(log, number, line, kind, errors)
        if "parts" in line:
            try:
                kind, errors = self.check_multipart(line, line["parts"])
            except Unusable as e:
                kind, errors = "unknown", [str(e)]
            return self.record(log, number, line, kind, errors)
        if "body_len" in line:
            return self.record(log, number, line, "unparsed", ["the body is not JSON (%d bytes)" % line["body_len"]])
        body = line["body"]
        m = ACTION.match(line.get("path", "").split("?")[0])
        try:
            if method == "PATCH":
                kind, errors = self.check_patch(line, body)
                mode = "patch"
            elif method == "POST" and m:
                kind, errors = self.check_action(line, body, m)
                mode = "action"
            elif method == "POST":
                kind, errors = self.check_create(line, body)
                mode = "create"
            else:
                return self.record(log, number, line, method, ["no rule for a %s with a body" % method])
            errors += self.check_annotations(body, mode)
        except Unusable as e:
            kind, errors = "unknown", [str(e)]
        self.record(log, number, line, kind, errors)

    def record(self, log, number, line, kind, errors):
        self.checked[kind] = self.checked.get(kind, 0) + 1
        for e in errors:
            self.violations.append({"log": log, "line": number, "node": line.get("node"),
                                    "method": line.get("method"), "path": line.get("path"),
                                    "kind": kind, "message": e})


def main(argv):
    as_json = "--json" in argv
    argv = [a for a in argv if a != "--json"]
    directory = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "dmtf-json-schema")
    if len(argv) > 1 and argv[0] == "--schemas":
        directory, argv = argv[1], argv[2:]
    if not argv or any(a.startswith("-") for a in argv):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        run = Run(Schemas(directory))
        for log in argv:
            with open(log) as f:
                lines = [(n, json.loads(text)) for n, text in enumerate(f, 1) if text.strip()]
            for number, line in lines:
                if "body" in line or "body_len" in line or "parts" in line:
                    run.check(log, number, line)
    except (OSError, ValueError, Unusable) as e:
        print("check-redfish-bodies: %s" % e, file=sys.stderr)
        return 2
    if as_json:
        json.dump({"checked": run.checked, "annotations": run.terms, "violations": run.violations}, sys.stdout,
                  indent=1, sort_keys=True)
        print()
    else:
        for v in run.violations:
            print("%(log)s:%(line)d: %(node)s %(method)s %(path)s (%(kind)s): %(message)s" % v)
        print("%d bodies checked (%s), %d violations" % (
            sum(run.checked.values()), ", ".join("%s %d" % kv for kv in sorted(run.checked.items())),
            len(run.violations)))
    return 1 if run.violations else 0


sys.exit(main(sys.argv[1:]))
