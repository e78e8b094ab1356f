"""Checks recorded GitHub API traffic (vcrpy cassettes) against GitHub's official
OpenAPI description and a small allowlist of documented GraphQL mutations.

Test-side helper (style practice 9: "cassette paths and fields are checked against
GitHub's OpenAPI description"). It only reads files; it never talks to the network.

The description comes from the npm package ``@octokit/openapi`` (installed by
``.ci/npm-fixtures`` into ``.ci/npm/node_modules``). It is 70+ MB of JSON, so it is
parsed once per process (``load_index`` is cached) and every operation is indexed by
method with a compiled path regex; response/request validators are built lazily.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import re
import urllib.parse
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
NPM = ROOT / ".ci" / "npm" / "node_modules"
OPENAPI_JSON = NPM / "@octokit" / "openapi" / "generated" / "api.github.com.deref.json"
WEBHOOK_EXAMPLES = NPM / "@octokit" / "webhooks-examples" / "api.github.com" / "index.json"
INSTALL_COMMAND = "bash .ci/npm-fixtures"
MISSING_HINT = f"run `{INSTALL_COMMAND}` (installs the pinned @octokit npm packages)"


class FixtureMissing(RuntimeError):
    """An npm fixture a check needs is not installed where the check must not vanish."""


def load_index_or_say_why(check: str) -> OpenAPIIndex | None:
    """The OpenAPI index for ``check``; when the npm file is missing, under CI
    (``CI=true``) ``FixtureMissing`` naming the install command (a check that can
    vanish is a defect), elsewhere ``None`` with a warning that says the check is off."""
    if OPENAPI_JSON.exists():
        return load_index()
    why = f"{OPENAPI_JSON} is missing, so {check} is off: {MISSING_HINT}"
    if os.environ.get("CI", "").strip().lower() in ("true", "1", "yes"):
        raise FixtureMissing(why)
    warnings.warn(why, stacklevel=2)
    return None


def webhook_examples() -> dict[str, list[dict[str, Any]]]:
    """Real webhook payloads by event name (npm @octokit/webhooks-examples), or
    FileNotFoundError when .ci/npm-fixtures has not installed them."""
    data = json.loads(WEBHOOK_EXAMPLES.read_text(encoding="utf-8"))
    return {entry["name"]: entry["examples"] for entry in data}


def webhook_example(event: str, action: str) -> dict[str, Any]:
    """A fresh copy of the first real ``event`` payload with that ``action``."""
    found = next(e for e in webhook_examples()[event] if e.get("action") == action)
    return json.loads(json.dumps(found))


METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
# Path parameters that may legitimately span several segments (contents paths, git
# refs, branch names); every other parameter is exactly one segment.
MULTI_SEGMENT_PARAMS = frozenset({"path", "ref", "branch", "basehead", "file_path"})
GHES_PREFIX = "/api/v3"
GRAPHQL_PATHS = ("/graphql", "/api/graphql")
# Security: recorded requests must not carry credentials (conftest filters them at
# record time; a hand-written cassette could still contain one).
SECRET_HEADERS = ("authorization", "cookie", "set-cookie")


# --- the REST side ------------------------------------------------------------------


@dataclass(frozen=True)
class Operation:
    """One OpenAPI operation, ready to match a concrete request path."""

    method: str
    template: str
    operation_id: str
    regex: re.Pattern[str]
    literal_len: int  # characters outside {params}: more specific templates win
    param_names: tuple[str, ...]  # in template order (the regex groups)
    path_params: Mapping[str, Mapping[str, Any]]
    query_params: Mapping[str, Mapping[str, Any]]
    required_query: tuple[str, ...]
    raw: Mapping[str, Any]

    @property
    def label(self) -> str:
        return f"{self.operation_id} ({self.method.upper()} {self.template})"


def _compile(template: str, *, greedy: bool) -> re.Pattern[str]:
    out, pos = [], 0
    for m in re.finditer(r"\{([^}]+)\}", template):
        out.append(re.escape(template[pos:m.start()]))
        name = m.group(1)
        seg = ".+" if greedy and name in MULTI_SEGMENT_PARAMS else "[^/]+"
        out.append(f"({seg})")  # positional: some names have hyphens
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return re.compile("^" + "".join(out) + "/?$")


def to_jsonschema(schema: Any) -> Any:
    """OpenAPI 3.0 schema → JSON Schema (draft 4): ``nullable: true`` becomes an
    ``anyOf`` with ``null``; everything else is already JSON Schema."""
    if isinstance(schema, list):
        return [to_jsonschema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    # Data-valued keywords stay verbatim; `example` is kept (validators ignore it) for
    # complete_cassettes, which fills missing fields with GitHub's own examples.
    out = {k: v if k in ("example", "default", "enum", "required") else to_jsonschema(v)
           for k, v in schema.items()
           if k not in ("nullable", "examples", "description", "discriminator")}
    # `properties` maps names to schemas: its keys are not keywords, so restore any
    # property literally named like a dropped keyword.
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {k: to_jsonschema(v) for k, v in schema["properties"].items()}
    if schema.get("nullable") is True:
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return {"anyOf": [{"type": "null"}, out]}
    return out


def _json_content(content: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    for ctype, media in (content or {}).items():
        if ctype == "application/json" or ctype.endswith("+json"):
            return media
    return None


def _where(path: Iterable[Any], root: str) -> str:
    out = root
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def schema_errors(schema: Any, value: Any, *, root: str, limit: int = 5) -> list[str]:
    """Validation errors of ``value`` against an OpenAPI schema, each ``where: what``."""
    validator = _validator(schema)
    errors = sorted(validator.iter_errors(value),
                    key=lambda e: (len(e.path), list(map(str, e.path))))
    out = []
    seen = set()
    for err in errors:
        best = _deepest(err)
        where = _where(best.absolute_path, root)
        if best.validator == "required":
            # Name every missing property of that object at once: the fix is one edit.
            missing = sorted(set(best.validator_value) - set(best.instance))
            message = "missing required " + ", ".join(repr(m) for m in missing)
        else:
            message = best.message
        if (where, message) not in seen:
            seen.add((where, message))
            out.append(f"{where}: {message}")
        if len(out) >= limit:
            break
    return out


def _deepest(err: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """A oneOf/anyOf failure says little ("… is not of type 'null'" for a nullable
    object); the deepest sub-error that is not the null branch names the field."""
    leaves: list[jsonschema.ValidationError] = []
    stack = [err]
    while stack:
        e = stack.pop()
        if e.context:
            stack.extend(e.context)
        elif not (e.validator == "type" and e.validator_value == "null"):
            leaves.append(e)
    if not leaves:
        return err
    return max(leaves, key=lambda e: (len(e.absolute_path), e.validator == "required"))


# Keyed by id(): the schemas live as long as the cached index; the object is kept in
# the value so its id cannot be reused.
_VALIDATORS: dict[int, tuple[Any, jsonschema.Draft4Validator]] = {}


def _validator(schema: Any) -> jsonschema.Draft4Validator:
    hit = _VALIDATORS.get(id(schema))
    if hit is None or hit[0] is not schema:
        hit = (schema, jsonschema.Draft4Validator(to_jsonschema(schema)))
        _VALIDATORS[id(schema)] = hit
    return hit[1]


def _param_ok(schema: Mapping[str, Any], raw: str) -> bool:
    """Whether a path/query string fits the parameter's declared scalar type."""
    kind = schema.get("type")
    value: Any = raw
    if kind == "integer":
        if not re.fullmatch(r"-?\d+", raw):
            return False
        value = int(raw)
    elif kind == "number":
        try:
            value = float(raw)
        except ValueError:
            return False
    elif kind == "boolean":
        return raw in ("true", "false")
    elif kind == "array":
        return True  # comma-separated lists: any string is a list of strings
    return not schema_errors(schema, value, root="_")


class OpenAPIIndex:
    """Every operation of one OpenAPI description, by method, ready to match paths."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.version = str(spec.get("info", {}).get("version", ""))
        self._ops: dict[str, list[Operation]] = {m: [] for m in METHODS}
        self._greedy: dict[str, list[tuple[re.Pattern[str], Operation]]] = {m: [] for m in METHODS}
        for template, item in spec["paths"].items():
            shared = item.get("parameters") or []
            for method in METHODS:
                raw = item.get(method)
                if not raw:
                    continue
                params = [*shared, *(raw.get("parameters") or [])]
                op = Operation(
                    method=method,
                    template=template,
                    operation_id=str(raw.get("operationId") or f"{method} {template}"),
                    regex=_compile(template, greedy=False),
                    literal_len=len(re.sub(r"\{[^}]+\}", "", template)),
                    param_names=tuple(re.findall(r"\{([^}]+)\}", template)),
                    path_params={p["name"]: p.get("schema") or {} for p in params
                                 if p.get("in") == "path"},
                    query_params={p["name"]: p.get("schema") or {} for p in params
                                  if p.get("in") == "query"},
                    required_query=tuple(p["name"] for p in params
                                         if p.get("in") == "query" and p.get("required")),
                    raw=raw,
                )
                self._ops[method].append(op)
                if any(n in MULTI_SEGMENT_PARAMS for n in op.path_params):
                    self._greedy[method].append((_compile(template, greedy=True), op))
        for ops in self._ops.values():
            ops.sort(key=lambda o: -o.literal_len)

    def __len__(self) -> int:
        return sum(len(v) for v in self._ops.values())

    def match(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        """The most specific operation whose template matches ``path`` (still
        percent-encoded, so an encoded ``/`` in a label name stays in its segment)."""
        method = method.lower()
        for op in self._ops.get(method, ()):
            m = op.regex.match(path)
            if m:
                return op, dict(zip(op.param_names, m.groups(), strict=True))
        for regex, op in self._greedy.get(method, ()):
            m = regex.match(path)
            if m:
                return op, dict(zip(op.param_names, m.groups(), strict=True))
        return None

    def similar(self, method: str, path: str, *, limit: int = 3) -> list[str]:
        """Templates that share the longest literal prefix with ``path`` (for the error)."""
        def score(op: Operation) -> int:
            t, n = op.template.split("/"), path.split("/")
            return sum(1 for a, b in zip(t, n, strict=False) if a == b or a.startswith("{"))
        ops = sorted(self._ops.get(method.lower(), ()), key=score, reverse=True)
        return [f"{o.method.upper()} {o.template}" for o in ops[:limit]]


@functools.cache
def load_index(path: Path = OPENAPI_JSON) -> OpenAPIIndex:
    """The parsed and indexed OpenAPI description (once per process)."""
    with open(path, encoding="utf-8") as fh:
        return OpenAPIIndex(json.load(fh))


# --- the GraphQL side -----------------------------------------------------------------

# Documented GraphQL mutations agentops may record, with their input fields (GitHub
# GraphQL reference, "Mutations" and "Input objects"): required first, then optional.
# A mutation not listed here fails the check; add it only after reading its
# reference entry, with the exact field names.
GRAPHQL_MUTATIONS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "addProjectV2DraftIssue": (frozenset({"projectId", "title"}),
                               frozenset({"body", "assigneeIds", "clientMutationId"})),
    "addProjectV2ItemById": (frozenset({"projectId", "contentId"}),
                             frozenset({"clientMutationId"})),
    "updateProjectV2ItemFieldValue": (frozenset({"projectId", "itemId", "fieldId", "value"}),
                                      frozenset({"clientMutationId"})),
    "updateProjectV2DraftIssue": (frozenset({"draftIssueId"}),
                                  frozenset({"title", "body", "assigneeIds",
                                             "clientMutationId"})),
    "updateIssueComment": (frozenset({"id", "body"}), frozenset({"clientMutationId"})),
    "addComment": (frozenset({"subjectId", "body"}), frozenset({"clientMutationId"})),
    "addLabelsToLabelable": (frozenset({"labelableId", "labelIds"}),
                             frozenset({"clientMutationId"})),
}
# ProjectV2FieldValue: exactly one of these keys (the field's type decides which).
PROJECT_FIELD_VALUE_KEYS = frozenset({"text", "number", "date", "singleSelectOptionId",
                                      "iterationId"})
# Root Query fields agentops reads; anything else is a typo or an undocumented field.
GRAPHQL_QUERY_ROOTS = frozenset({"repository", "organization", "user", "node", "nodes",
                                 "viewer", "search", "rateLimit", "__typename"})

_GQL_TOKEN = re.compile(r"""
    (?P<ws>[\s,\ufeff]+|\#[^\n]*)
  | (?P<block>\"\"\"(?:\\\"\"\"|[^"]|"(?!""))*\"\"\")
  | (?P<str>"(?:\\.|[^"\\])*")
  | (?P<spread>\.\.\.)
  | (?P<var>\$[_A-Za-z][_0-9A-Za-z]*)
  | (?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<name>[_A-Za-z][_0-9A-Za-z]*)
  | (?P<punct>[!():=@\[\]{}|&])
""", re.VERBOSE)


class GraphQLSyntaxError(ValueError):
    pass


def _gql_tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        m = _GQL_TOKEN.match(text, pos)
        if not m:
            raise GraphQLSyntaxError(f"unexpected {text[pos:pos + 10]!r} at offset {pos}")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append((str(m.lastgroup), m.group()))
    return out


@dataclass(frozen=True)
class GqlField:
    name: str
    alias: str | None
    args: Mapping[str, Any]  # literal values; variables as ("$", name)


@dataclass(frozen=True)
class GqlOperation:
    kind: str  # query | mutation | subscription
    name: str | None
    variables: Mapping[str, tuple[str, bool]]  # name -> (type, has default)
    fields: tuple[GqlField, ...]  # top-level selections
    used_variables: frozenset[str]


class _GqlParser:
    """Just enough of the GraphQL grammar (October 2021 spec) to see operations, their
    variables and top-level fields with arguments; nested selections are skipped."""

    def __init__(self, text: str) -> None:
        self.toks = _gql_tokens(text)
        self.i = 0
        self.used: set[str] = set()

    def peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def take(self, want: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.toks):
            raise GraphQLSyntaxError(f"unexpected end of document (wanted {want or 'more'})")
        tok = self.toks[self.i]
        if want is not None and tok[1] != want:
            raise GraphQLSyntaxError(f"expected {want!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def document(self) -> list[GqlOperation]:
        ops = []
        while self.peek() is not None:
            if self.peek() == "fragment":
                self.take()
                self.take()  # name
                self.take("on")
                self.take()  # type
                self.directives()
                self.selection_set(top=False)
                continue
            self.used = set()
            kind, name, variables = "query", None, {}
            if self.peek() in ("query", "mutation", "subscription"):
                kind = self.take()[1]
                if self.toks[self.i][0] == "name":
                    name = self.take()[1]
                if self.peek() == "(":
                    variables = self.variable_definitions()
                self.directives()
            fields = self.selection_set(top=True)
            ops.append(GqlOperation(kind, name, variables, tuple(fields), frozenset(self.used)))
        return ops

    def variable_definitions(self) -> dict[str, tuple[str, bool]]:
        out = {}
        self.take("(")
        while self.peek() != ")":
            kind, var = self.take()
            if kind != "var":
                raise GraphQLSyntaxError(f"expected a $variable, got {var!r}")
            self.take(":")
            typ = self.type_ref()
            has_default = False
            if self.peek() == "=":
                self.take()
                self.value()
                has_default = True
            self.directives()
            out[var[1:]] = (typ, has_default)
        self.take(")")
        return out

    def type_ref(self) -> str:
        if self.peek() == "[":
            self.take()
            inner = self.type_ref()
            self.take("]")
            typ = f"[{inner}]"
        else:
            typ = self.take()[1]
        if self.peek() == "!":
            self.take()
            typ += "!"
        return typ

    def directives(self) -> None:
        while self.peek() == "@":
            self.take()
            self.take()
            if self.peek() == "(":
                self.arguments()

    def arguments(self) -> dict[str, Any]:
        out = {}
        self.take("(")
        while self.peek() != ")":
            name = self.take()[1]
            self.take(":")
            out[name] = self.value()
        self.take(")")
        return out

    def value(self) -> Any:
        kind, tok = self.take()
        if kind == "var":
            self.used.add(tok[1:])
            return ("$", tok[1:])
        if kind in ("str", "block"):
            return json.loads(tok) if kind == "str" else tok[3:-3]
        if kind == "num":
            return float(tok) if any(c in tok for c in ".eE") else int(tok)
        if tok == "[":
            items = []
            while self.peek() != "]":
                items.append(self.value())
            self.take("]")
            return items
        if tok == "{":
            obj = {}
            while self.peek() != "}":
                key = self.take()[1]
                self.take(":")
                obj[key] = self.value()
            self.take("}")
            return obj
        return {"true": True, "false": False, "null": None}.get(tok, tok)  # enum value

    def selection_set(self, *, top: bool) -> list[GqlField]:
        fields = []
        self.take("{")
        while self.peek() != "}":
            if self.peek() == "...":
                self.take()
                if self.peek() == "on":  # inline fragment: its fields count as ours
                    self.take("on")
                    self.take()
                self.directives()
                if self.peek() == "{":
                    inner = self.selection_set(top=top)
                    fields += inner if top else []
                else:
                    self.take()  # a named fragment spread
                    self.directives()
                continue
            first = self.take()[1]
            alias, name = None, first
            if self.peek() == ":":
                self.take()
                alias, name = first, self.take()[1]
            args = self.arguments() if self.peek() == "(" else {}
            self.directives()
            if self.peek() == "{":
                self.selection_set(top=False)
            if top:
                fields.append(GqlField(name, alias, args))
        self.take("}")
        return fields


def parse_graphql(text: str) -> list[GqlOperation]:
    """The operations of a GraphQL document (raises GraphQLSyntaxError)."""
    return _GqlParser(text).document()


def _resolve(value: Any, variables: Mapping[str, Any]) -> Any:
    if isinstance(value, tuple) and value and value[0] == "$":
        return variables.get(value[1])
    if isinstance(value, dict):
        return {k: _resolve(v, variables) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, variables) for v in value]
    return value


def graphql_problems(body: Mapping[str, Any], response: Any) -> list[tuple[str, str]]:
    """(operation, message) pairs for one GraphQL request/response."""
    query, variables = body.get("query"), body.get("variables") or {}
    if not isinstance(query, str):
        return [("graphql", "request body has no \"query\" string")]
    if not isinstance(variables, dict):
        return [("graphql", "\"variables\" must be an object")]
    try:
        ops = parse_graphql(query)
    except GraphQLSyntaxError as exc:
        return [("graphql", f"query does not parse: {exc}")]
    if len(ops) != 1 and not body.get("operationName"):
        return [("graphql", f"{len(ops)} operations in one document without operationName")]
    out = []
    for op in ops:
        if body.get("operationName") and op.name != body["operationName"]:
            continue
        label = f"graphql {op.kind} {op.name or '(anonymous)'}"
        if op.kind not in ("query", "mutation"):
            out.append((label, f"operation kind {op.kind!r}: only query and mutation are used"))
            continue
        for var in sorted(op.used_variables - set(op.variables)):
            out.append((label, f"${var} is used but not declared"))
        for var, (typ, has_default) in sorted(op.variables.items()):
            if typ.endswith("!") and not has_default and variables.get(var) is None:
                out.append((label, f"variable ${var} ({typ}) is required but not provided"))
        for field in op.fields:
            out += [(f"{label} {field.name}", msg)
                    for msg in _field_problems(op.kind, field, variables, response)]
    return out


def _field_problems(kind: str, field: GqlField, variables: Mapping[str, Any],
                    response: Any) -> list[str]:
    out = []
    if kind == "query":
        if field.name not in GRAPHQL_QUERY_ROOTS:
            out.append(f"{field.name!r} is not a Query root field agentops knows "
                       f"({', '.join(sorted(GRAPHQL_QUERY_ROOTS))})")
    else:
        spec = GRAPHQL_MUTATIONS.get(field.name)
        if spec is None:
            return [f"mutation {field.name!r} is not in the documented allowlist "
                    f"({', '.join(sorted(GRAPHQL_MUTATIONS))})"]
        required, optional = spec
        if set(field.args) != {"input"}:
            out.append(f"arguments {sorted(field.args)}: a mutation takes exactly one "
                       "argument, input")
        given = _resolve(field.args.get("input"), variables)
        if not isinstance(given, dict):
            return [*out, "input is not an object (literal or variable)"]
        for key in sorted(required - {k for k, v in given.items() if v is not None}):
            out.append(f"input.{key}: required input field missing")
        for key in sorted(set(given) - required - optional):
            out.append(f"input.{key}: not a field of the {field.name} input")
        value = given.get("value")
        if field.name == "updateProjectV2ItemFieldValue" and isinstance(value, dict):
            keys = set(value)
            if len(keys) != 1 or not keys <= PROJECT_FIELD_VALUE_KEYS:
                out.append(f"input.value: ProjectV2FieldValue takes exactly one of "
                           f"{sorted(PROJECT_FIELD_VALUE_KEYS)}, got {sorted(keys)}")
    if isinstance(response, dict):
        if not ("data" in response or "errors" in response):
            out.append("response has neither \"data\" nor \"errors\"")
        elif not response.get("errors"):
            data = response.get("data") or {}
            if (field.alias or field.name) not in data:
                out.append(f"response data lacks {field.alias or field.name!r}")
    return out


# --- cassettes ----------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One mismatch between a recorded interaction and the API contract."""

    cassette: str
    index: int
    operation: str
    message: str

    def __str__(self) -> str:
        return f"{self.cassette}: interaction {self.index}: {self.operation}: {self.message}"


def _text(body: Any, headers: Mapping[str, Any] | None = None) -> str | None:
    if isinstance(body, dict):
        body = body.get("string")
    if body is None:
        return None
    if isinstance(body, bytes):
        enc = {k.lower(): v for k, v in (headers or {}).items()}.get("content-encoding")
        enc = enc[0] if isinstance(enc, list) and enc else enc
        if enc == "gzip":
            body = gzip.decompress(body)
        body = body.decode("utf-8")
    return str(body)


def _json(text: str | None) -> tuple[bool, Any]:
    if text is None or text == "":
        return True, None
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


def load_cassette(path: Path) -> list[Mapping[str, Any]]:
    """The interactions of a vcrpy YAML cassette."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    interactions = data.get("interactions")
    if not isinstance(interactions, list):
        raise ValueError(f"{path}: not a vcrpy cassette (no interactions list)")
    return interactions


def check_cassette(path: Path, index: OpenAPIIndex, *, display: str | None = None
                   ) -> list[Problem]:
    """Every contract problem of one cassette (empty when it matches the real API)."""
    name = display or str(path)
    try:
        interactions = load_cassette(path)
    except (ValueError, yaml.YAMLError) as exc:
        return [Problem(name, -1, "cassette", str(exc))]
    problems = []
    for i, inter in enumerate(interactions):
        problems += [Problem(name, i, op, msg) for op, msg in check_interaction(inter, index)]
    return problems


def is_github_api(url: urllib.parse.SplitResult) -> bool:
    """Whether a recorded URL is GitHub's REST/GraphQL API: api.github.com, a GHES
    ``/api/v3`` or ``/api/graphql`` path, or a stand-in on loopback. Anything else (a
    log download's storage redirect, JIRA, a package index) is not this contract's."""
    host = (url.hostname or "").lower()
    return (host == "api.github.com" or host in ("127.0.0.1", "localhost", "::1")
            or url.path.startswith((GHES_PREFIX + "/", "/api/graphql")))


def api_path(path: str) -> str:
    """A recorded path as the OpenAPI description spells it: GHES prefix dropped, and
    GitHub's own pagination links (``Link: rel="next"``), which name the repository by
    id (``/repositories/123/issues/1/comments?page=2``), mapped to ``/repos/{owner}/{repo}``."""
    if path.startswith(GHES_PREFIX + "/"):
        path = path[len(GHES_PREFIX):]
    m = re.match(r"^/repositories/\d+(/.*)$", path)
    return "/repos/{owner}/{repo}" + m.group(1) if m else path


def check_interaction(inter: Mapping[str, Any], index: OpenAPIIndex) -> list[tuple[str, str]]:
    """(operation, message) for each problem of one recorded request/response."""
    req, resp = inter.get("request") or {}, inter.get("response") or {}
    method = str(req.get("method") or "").upper()
    url = urllib.parse.urlsplit(str(req.get("uri") or ""))
    path = url.path
    out: list[tuple[str, str]] = []
    for header in req.get("headers") or {}:
        if header.lower() in SECRET_HEADERS:
            out.append((f"{method} {path}", f"request header {header!r} must be filtered"))
    if not is_github_api(url):
        return out  # e.g. the blob-storage URL a job-log download redirects to
    path = api_path(path)
    status = int((resp.get("status") or {}).get("code") or 0)
    ok_resp, resp_json = _json(_text(resp.get("body"), resp.get("headers")))
    ok_req, req_json = _json(_text(req.get("body")))

    if method == "POST" and path in GRAPHQL_PATHS:
        if not ok_req or not isinstance(req_json, dict):
            return [*out, ("graphql", "request body is not a JSON object")]
        if status != 200:
            out.append(("graphql", f"status {status}: GitHub's GraphQL endpoint answers 200"))
        if not ok_resp:
            out.append(("graphql", "response body is not JSON"))
        return out + graphql_problems(req_json, resp_json)

    hit = index.match(method, path)
    if hit is None:
        near = "; nearest: " + ", ".join(index.similar(method, path)) if path else ""
        return [*out, (f"{method} {path}", f"no operation in GitHub's OpenAPI "
                                          f"description ({index.version}) matches{near}")]
    op, values = hit
    label = op.label
    for pname, raw in values.items():
        schema = op.path_params.get(pname, {})
        decoded = urllib.parse.unquote(raw)
        if not decoded or not _param_ok(schema, decoded):
            out.append((label, f"path parameter {pname}={raw!r} does not fit {schema}"))
    query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
    for qname in op.required_query:
        if qname not in query:
            out.append((label, f"required query parameter {qname!r} missing"))
    for qname, qvalues in query.items():
        qschema = op.query_params.get(qname)
        if qschema is None:
            out.append((label, f"query parameter {qname!r} is not one this operation takes "
                               f"({', '.join(sorted(op.query_params)) or 'none'})"))
        elif not all(_param_ok(qschema, v) for v in qvalues):
            out.append((label, f"query parameter {qname}={qvalues} does not fit {qschema}"))

    body_spec = (op.raw.get("requestBody") or {})
    media = _json_content(body_spec.get("content"))
    if not ok_req:
        out.append((label, "request body is not JSON"))
    elif req_json is not None:
        if media is None:
            out.append((label, "request has a body but the operation takes none"))
        elif media.get("schema"):
            out += [(label, e) for e in schema_errors(media["schema"], req_json,
                                                      root="request body")]
    elif body_spec.get("required"):
        out.append((label, "request body is required"))

    responses = op.raw.get("responses") or {}
    spec_resp = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX")
    if spec_resp is None:
        if status < 400:  # an error status the description omits is GitHub's habit
            out.append((label, f"status {status} is not a documented response "
                               f"({', '.join(sorted(responses))})"))
        return out
    media = _json_content(spec_resp.get("content"))
    if not ok_resp:
        if media is not None:
            out.append((label, f"response {status} body is not JSON"))
        return out
    if media is not None and media.get("schema"):
        if resp_json is None:
            out.append((label, f"response {status} has no body; the API returns one"))
        else:
            out += [(label, e) for e in schema_errors(media["schema"], resp_json,
                                                      root=f"response {status} body")]
    return out


def check_request(method: str, path: str, body: Any, index: OpenAPIIndex) -> list[str]:
    """Problems of one request a fake client recorded: a real operation, a body that fits
    its request schema (for property tests that never touch a cassette)."""
    hit = index.match(method, urllib.parse.urlsplit(path).path)
    if hit is None:
        return [f"{method} {path}: no operation in GitHub's OpenAPI description matches"]
    op, _ = hit
    media = _json_content((op.raw.get("requestBody") or {}).get("content"))
    if body is None or media is None or not media.get("schema"):
        return [] if body is None else [f"{op.label}: takes no JSON body"]
    return [f"{op.label}: {e}" for e in schema_errors(media["schema"], body, root="request body")]
