"""Load a triage queue's data folder (``labels.json``, ``rubric.yml``,
``templates.json``), validate each file against its JSON Schema and the three against
each other, and compile the rubric once.

Reads files only (through ``agentops.data.load``); never writes. Errors name the file
and key, e.g. ``rubric.yml: signals[3].label: not in labels.json``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentops.data import Loaded, load
from agentops.errors import DataError, InputError
from agentops.triage.model import TITLE_LEAD, Queue, Selective, Template
from agentops.triage.signals import PLACES, compile_rubric

QUEUES_DIR = Path(__file__).resolve().parent / "queues"
FILES = ("labels.json", "rubric.yml", "templates.json")
# A queue may ship a small labelled set (the JSONL format `evaluate` reads): the default
# of `triage.py evaluate`, and what the demo measures.
LABELLED_SET = "labelled.jsonl"
ROLES = ("suboncall", "module", "marker", "triaged", "review", "needs_reproduction", "feature",
         "enhancement", "performance", "keep")
# Roles the planner needs exactly one label for.
SINGLE_ROLES = ("triaged", "review", "needs_reproduction", "feature", "enhancement",
                "performance")
SIGNAL_ROLES = ("distributed", "not_distributed", "high_priority", "request", "enhancement",
                "performance", "bug", "reproduction")
COMMENT_KINDS = ("not_distributed", "needs_reproduction")
# Signal flags that mean something for one role only: flag -> (that role, what it says).
ROLE_FLAGS = {
    "names_owner": ("not_distributed", "says whether it names another owner"),
    "contends": ("not_distributed",
                 "says whether its owner contends with a component named anywhere"),
    "fails_build": ("not_distributed",
                    "says whether it shows a build, link or import step failing"),
    "leads_title": ("not_distributed",
                    "says whether it counts only before every distributed word of the title"),
    "in_distributed_code": ("high_priority",
                            "says whether it holds only for distributed code"),
}

_STR = {"type": "string", "minLength": 1}
_STRS = {"type": "array", "items": _STR}
_REGEXES = {"type": "array", "items": _STR, "minItems": 1}

LABELS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["queue", "config", "labels"],
    "properties": {
        "queue": _STR,
        "description": {"type": "string"},
        "config": {
            "type": "object",
            "additionalProperties": False,
            "required": ["trigger_label", "marker_label"],
            "properties": {
                "trigger_label": _STR,
                "marker_label": _STR,
                "keep_labels": _STRS,
                "modules_after_route": {"type": "boolean"},
                "confidence": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["target_precision", "default", "thresholds"],
                    "properties": {
                        "description": {"type": "string"},
                        "target_precision": {"type": "number", "exclusiveMinimum": 0,
                                             "maximum": 1},
                        "default": {"type": "number", "minimum": 0},
                        "thresholds": {"type": "object",
                                       "additionalProperties": {"type": "number",
                                                                "minimum": 0}},
                        "fitted_on": {"type": "string"},
                    },
                },
            },
        },
        "labels": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "role"],
                "properties": {
                    "name": _STR,
                    "role": {"enum": list(ROLES)},
                    "description": {"type": "string"},
                    "suboncall": _STR,
                    "keywords": _STRS,
                },
            },
        },
    },
}

_SIGNAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "where", "weight", "examples"],
    "properties": {
        "id": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        "label": _STR,
        "role": {"enum": list(SIGNAL_ROLES)},
        "note": {"type": "string"},
        "keywords": _STRS,
        "patterns": _STRS,
        "case_sensitive": {"type": "boolean"},
        "where": {"type": "array", "minItems": 1, "items": {"enum": list(PLACES)}},
        "weight": {"type": "number", "exclusiveMinimum": 0, "maximum": 10},
        "requires": _REGEXES,
        "unless": _REGEXES,
        "suppresses": _STRS,
        "evidence": {"type": "boolean"},
        "subject": {"type": "boolean"},
        "names_owner": {"type": "boolean"},
        "contends": {"type": "boolean"},
        "fails_build": {"type": "boolean"},
        "leads_title": {"type": "boolean"},
        "in_distributed_code": {"type": "boolean"},
        "examples": {
            "type": "object",
            "additionalProperties": False,
            "required": ["match", "no_match"],
            "properties": {"match": {"type": "array", "items": _STR, "minItems": 1},
                           "no_match": {"type": "array", "items": _STR, "minItems": 1}},
        },
    },
}

_NUM = {"type": "number", "minimum": 0}
RUBRIC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["version", "text", "traceback", "scoring", "routing", "comments", "signals"],
    "properties": {
        "version": {"const": 1},
        "text": {"type": "object", "additionalProperties": False,
                 "required": ["drop_sections", "section_end"],
                 "properties": {"drop_sections": _STRS, "section_end": _STR,
                                "drop_lines": _STRS, "test_report": _STR,
                                "context_mention": _STR}},
        "traceback": {"type": "object", "additionalProperties": False,
                      "required": ["start", "innermost_first", "error_line", "frame",
                                   "distributed_frame", "substrate_frame", "ignore_frame"],
                      "properties": {"start": _REGEXES, "innermost_first": _STR,
                                     "error_line": _STR, "frame": _STR,
                                     "distributed_frame": _STR, "substrate_frame": _STR,
                                     "ignore_frame": _STR, "top_frame": _STR,
                                     "generic_frame": _STR}},
        "scoring": {
            "type": "object", "additionalProperties": False,
            "required": ["where_factor", "module_min", "module_relative", "high_weight",
                         "route_fit", "evidence_min", "not_distributed_min",
                         "high_priority_min", "request_min", "enhancement_min",
                         "performance_min", "reproduction_min"],
            "properties": {
                "where_factor": {"type": "object", "additionalProperties": False,
                                 "properties": {p: _NUM for p in (*PLACES, "labels")}},
                **{k: _NUM for k in ("module_min", "module_relative", "high_weight",
                                     "route_fit", "evidence_min", "not_distributed_min",
                                     "high_priority_min", "request_min", "enhancement_min",
                                     "performance_min", "reproduction_min")},
            },
        },
        "routing": {"type": "object", "additionalProperties": False,
                    "required": ["precedence", "default"],
                    "properties": {"precedence": {"type": "array", "items": _STR, "minItems": 1},
                                   "default": _STR}},
        "comments": {"type": "object", "additionalProperties": False,
                     "required": list(COMMENT_KINDS),
                     "properties": {k: _STR for k in COMMENT_KINDS}},
        "layering": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["label", "under", "keep_if"],
            "properties": {"label": _STR, "under": {"type": "array", "items": _STR, "minItems": 1},
                           "keep_if": {"type": "array",
                                       "items": {"enum": [*PLACES, TITLE_LEAD]}},
                           "over_signals": {"type": "array", "items": _STR,
                                            "minItems": 1},
                           "keep_signals": {"type": "array", "items": _STR,
                                            "minItems": 1}}}},
        "fragments": {"type": "object", "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
                      "additionalProperties": _STR},
        "signals": {"type": "array", "minItems": 1, "items": _SIGNAL_SCHEMA},
    },
}

TEMPLATES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["templates"],
    "properties": {
        "description": {"type": "string"},
        "templates": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "required": ["version", "body", "earlier", "intent_patterns"],
                "properties": {
                    "version": {"type": "integer", "minimum": 1},
                    "body": _STR,
                    "earlier": {"type": "array", "items": {
                        "type": "object", "additionalProperties": False,
                        "required": ["version", "body"],
                        "properties": {"version": {"type": "integer", "minimum": 1},
                                       "body": _STR}}},
                    "intent_patterns": _STRS,
                },
            },
        },
    },
}


def queue_dir(name_or_path: str) -> tuple[Path, bool]:
    """The data folder of a built-in queue name or a folder path (and whether built in)."""
    builtin = QUEUES_DIR / name_or_path
    if re.fullmatch(r"[A-Za-z0-9_-]+", name_or_path) and builtin.is_dir():
        return builtin, True
    path = Path(name_or_path)
    if path.is_dir():
        missing = [f for f in FILES if not (path / f).is_file()]
        if missing:
            # Named as the flag the user gave, not as the first file the loader misses.
            raise InputError("--queue", f"{name_or_path} lacks {', '.join(missing)}",
                             fix="a queue folder holds " + ", ".join(FILES) + " (copy "
                                 "src/agentops/triage/queues/distributed/ and edit it; "
                                 "docs/triage.md says what each holds)")
        return path, False
    known = ", ".join(sorted(p.name for p in QUEUES_DIR.iterdir() if p.is_dir()))
    raise InputError("--queue", f"{name_or_path!r} is neither a built-in queue ({known}) "
                     "nor a folder", fix="name a built-in queue or a folder holding "
                     + ", ".join(FILES))


def _regex(pattern: str, file: str, key: str, flags: int = 0) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise DataError(file, key, f"not a valid regular expression: {exc}") from exc


# A rubric regex names a shared fragment as ``(?&name)`` (PCRE's spelling of a named
# subpattern, which Python's re does not know): one alternation that several signals'
# gates need is written once under ``fragments`` and cannot drift between copies.
_FRAGMENT_REF = re.compile(r"\(\?&([a-z][a-z0-9_]*)\)")
_FRAGMENT_PARTS = ("patterns", "requires", "unless")


def _expand_fragments(content: Mapping[str, Any], file: str) -> dict[str, Any]:
    """``content`` with every ``(?&name)`` in a signal's regexes replaced by its fragment as a
    non-capturing group; an unknown name, or a fragment no signal uses, is a DataError."""
    fragments = dict(content.get("fragments") or {})
    for name, pattern in fragments.items():
        if _FRAGMENT_REF.search(pattern):
            raise DataError(file, f"fragments.{name}", "a fragment may not name another",
                            fix="write the alternation out in this fragment")
        _regex(pattern, file, f"fragments.{name}", re.M)
    used: set[str] = set()
    signals = []
    for i, raw in enumerate(content["signals"]):
        sig = dict(raw)
        for part in _FRAGMENT_PARTS:
            expanded = []
            for j, pattern in enumerate(sig.get(part) or ()):
                for name in _FRAGMENT_REF.findall(pattern):
                    if name not in fragments:
                        raise DataError(file, f"signals[{i}].{part}[{j}]",
                                        f"(?&{name}) names no fragment",
                                        fix=f"add {name} under fragments, or spell the regex out")
                    used.add(name)
                expanded.append(_FRAGMENT_REF.sub(
                    lambda m: f"(?:{fragments[m.group(1)]})", pattern))
            if part in sig:
                sig[part] = expanded
        signals.append(sig)
    for name in sorted(set(fragments) - used):
        raise DataError(file, f"fragments.{name}", "no signal names this fragment",
                        fix=f"use it as (?&{name}) in a signal's regex, or remove it")
    return {**content, "signals": signals}


def _check_labels(content: Mapping[str, Any], file: str) -> dict[str, dict[str, Any]]:
    by_name: dict[str, dict[str, Any]] = {}
    for i, label in enumerate(content["labels"]):
        if label["name"] in by_name:
            raise DataError(file, f"labels[{i}].name", f"duplicate label {label['name']!r}")
        by_name[label["name"]] = label
    roles: dict[str, list[str]] = {}
    for label in content["labels"]:
        roles.setdefault(label["role"], []).append(label["name"])
    for i, label in enumerate(content["labels"]):
        if label["role"] == "module":
            sub = label.get("suboncall")
            if not sub:
                raise DataError(file, f"labels[{i}]", "missing required key: suboncall "
                                "(the sub-oncall that owns this module)")
            if by_name.get(sub, {}).get("role") != "suboncall":
                raise DataError(file, f"labels[{i}].suboncall",
                                f"{sub!r} is not a label with role 'suboncall'")
        elif "suboncall" in label:
            raise DataError(file, f"labels[{i}].suboncall", "only module labels name a sub-oncall")
    if not roles.get("suboncall"):
        raise DataError(file, "labels", "no label with role 'suboncall'")
    for role in SINGLE_ROLES:
        if len(roles.get(role, [])) != 1:
            raise DataError(file, "labels", f"expected exactly one label with role {role!r}, "
                            f"got {len(roles.get(role, []))}")
    cfg = content["config"]
    if by_name.get(cfg["marker_label"], {}).get("role") != "marker":
        raise DataError(file, "config.marker_label",
                        f"{cfg['marker_label']!r} is not a label with role 'marker'")
    for j, keep in enumerate(cfg.get("keep_labels") or ()):
        if keep not in by_name:
            raise DataError(file, f"config.keep_labels[{j}]", f"{keep!r} not in labels")
    for name in (cfg.get("confidence") or {}).get("thresholds") or {}:
        if by_name.get(name, {}).get("role") not in ("module", "suboncall"):
            raise DataError(file, f"config.confidence.thresholds.{name}",
                            f"{name!r} is not a module or sub-oncall label of this queue",
                            fix="thresholds apply to the labels the planner weighs: modules "
                                "and sub-oncalls")
    return by_name


def _check_rubric(content: Mapping[str, Any], file: str, *, labels_file: str,
                  by_name: Mapping[str, Mapping[str, Any]], templates: Mapping[str, Any],
                  templates_file: str) -> None:
    subs = [n for n, lb in by_name.items() if lb["role"] == "suboncall"]
    routing = content["routing"]
    for i, sub in enumerate(routing["precedence"]):
        if sub not in subs:
            raise DataError(file, f"routing.precedence[{i}]", f"{sub!r} is not a sub-oncall "
                            f"in {labels_file}")
    missing = sorted(set(subs) - set(routing["precedence"]))
    if missing:
        raise DataError(file, "routing.precedence", f"missing sub-oncall(s): {missing}")
    if routing["default"] not in subs:
        raise DataError(file, "routing.default", f"{routing['default']!r} is not a sub-oncall "
                        f"in {labels_file}")
    for i, layer in enumerate(content.get("layering") or ()):
        for key, names in (("label", [layer["label"]]), ("under", layer["under"])):
            for j, name in enumerate(names):
                if by_name.get(name, {}).get("role") != "module":
                    where = f"layering[{i}].{key}" + (f"[{j}]" if key == "under" else "")
                    raise DataError(file, where, f"{name!r} is not a module in {labels_file}")
    for kind, name in content["comments"].items():
        if name not in templates:
            raise DataError(file, f"comments.{kind}", f"{name!r} not in {templates_file}")
    tb = content["traceback"]
    for key in ("innermost_first", "error_line", "frame", "distributed_frame",
                "substrate_frame", "ignore_frame"):
        _regex(tb[key], file, f"traceback.{key}")
    for key in ("top_frame", "generic_frame"):
        if key in tb:
            _regex(tb[key], file, f"traceback.{key}")
    for key in ("test_report", "context_mention"):
        if key in content["text"]:
            _regex(content["text"][key], file, f"text.{key}")
    for i, p in enumerate(tb["start"]):
        _regex(p, file, f"traceback.start[{i}]")
    frame = _regex(tb["frame"], file, "traceback.frame")
    if not {"path", "cpath"} <= set(frame.groupindex):
        raise DataError(file, "traceback.frame", "needs named groups 'path' and 'cpath'")
    for i, p in enumerate(content["text"]["drop_sections"]):
        _regex(p, file, f"text.drop_sections[{i}]")
    for i, p in enumerate(content["text"].get("drop_lines") or ()):
        _regex(p, file, f"text.drop_lines[{i}]", re.M)
    _regex(content["text"]["section_end"], file, "text.section_end")
    ids: set[str] = set()
    for i, sig in enumerate(content["signals"]):
        key = f"signals[{i}]"
        if sig["id"] in ids:
            raise DataError(file, f"{key}.id", f"duplicate signal id {sig['id']!r}")
        ids.add(sig["id"])
        if ("label" in sig) == ("role" in sig):
            raise DataError(file, key, "give exactly one of 'label' or 'role'")
        if "label" in sig:
            label = by_name.get(sig["label"])
            if label is None:
                raise DataError(file, f"{key}.label", f"not in {labels_file}")
            if label["role"] not in ("module", "suboncall"):
                raise DataError(file, f"{key}.label", f"{sig['label']!r} has role "
                                f"{label['role']!r}; signals point at modules or sub-oncalls")
        for flag, (role, says) in ROLE_FLAGS.items():
            if flag in sig and sig.get("role") != role:
                raise DataError(file, f"{key}.{flag}", f"only a {role} signal {says}",
                                fix=f"drop the key, or give the signal role {role!r}")
        if not sig.get("keywords") and not sig.get("patterns"):
            raise DataError(file, key, "needs 'keywords' or 'patterns'")
        for j, p in enumerate(sig.get("patterns") or ()):
            _regex(p, file, f"{key}.patterns[{j}]", re.M)
        for part in ("requires", "unless"):
            for j, p in enumerate(sig.get(part) or ()):
                _regex(p, file, f"{key}.{part}[{j}]", re.M)
    for i, sig in enumerate(content["signals"]):
        for j, other in enumerate(sig.get("suppresses") or ()):
            if other not in ids:
                raise DataError(file, f"signals[{i}].suppresses[{j}]", f"no signal {other!r}")
    for i, layer in enumerate(content.get("layering") or ()):
        for key in ("over_signals", "keep_signals"):
            for j, name in enumerate(layer.get(key) or ()):
                if name not in ids:
                    raise DataError(file, f"layering[{i}].{key}[{j}]", f"no signal {name!r}")


def _templates(content: Mapping[str, Any], file: str) -> dict[str, Template]:
    out: dict[str, Template] = {}
    for name, t in content["templates"].items():
        earlier = sorted((int(e["version"]), str(e["body"])) for e in t["earlier"])
        for k, (version, _) in enumerate(earlier):
            if version >= t["version"]:
                raise DataError(file, f"templates.{name}.earlier[{k}].version",
                                f"{version} is not older than the current {t['version']}")
        for k, p in enumerate(t["intent_patterns"]):
            _regex(p, file, f"templates.{name}.intent_patterns[{k}]")
        out[name] = Template(name=name, version=int(t["version"]), body=str(t["body"]),
                             earlier=tuple(earlier), intent_patterns=tuple(t["intent_patterns"]))
    return out


def load_queue(name_or_path: str, *, marker_label: str | None = None) -> Queue:
    """Load and validate a queue (built-in name or folder); ``marker_label`` overrides the
    configured marker (it must be a label with role ``marker``)."""
    folder, builtin = queue_dir(name_or_path)
    display = {f: (f if builtin else str(folder / f)) for f in FILES}
    lab: Loaded = load(folder / "labels.json", LABELS_SCHEMA, display=display["labels.json"])
    tpl: Loaded = load(folder / "templates.json", TEMPLATES_SCHEMA,
                       display=display["templates.json"])
    rub: Loaded = load(folder / "rubric.yml", RUBRIC_SCHEMA, display=display["rubric.yml"])
    by_name = _check_labels(lab.content, display["labels.json"])
    templates = _templates(tpl.content, display["templates.json"])
    rubric_content = _expand_fragments(rub.content, display["rubric.yml"])
    _check_rubric(rubric_content, display["rubric.yml"], labels_file="labels.json",
                  by_name=by_name, templates=templates, templates_file="templates.json")
    cfg = dict(lab.content["config"])
    if marker_label:
        if by_name.get(marker_label, {}).get("role") != "marker":
            markers = sorted(n for n, lb in by_name.items() if lb["role"] == "marker")
            raise InputError("marker label", f"{marker_label!r} is not a marker label of "
                             f"queue {lab.content['queue']!r}", fix=f"use one of {markers}")
        cfg["marker_label"] = marker_label
    role_of = {n: lb["role"] for n, lb in by_name.items()}

    def one(role: str) -> str:
        return next(n for n, r in role_of.items() if r == role)

    rubric = compile_rubric(rubric_content)
    for kind, name in rubric.comment_templates.items():
        if name not in templates:
            raise DataError(display["templates.json"], "templates",
                            f"missing template {name!r} (the {kind} comment)")
    return Queue(
        name=str(lab.content["queue"]),
        trigger_label=str(cfg["trigger_label"]),
        allowlist=frozenset(by_name),
        suboncalls=tuple(n for n, r in role_of.items() if r == "suboncall"),
        modules=tuple(n for n, r in role_of.items() if r == "module"),
        marker_label=str(cfg["marker_label"]),
        triaged_label=one("triaged"),
        review_label=one("review"),
        needs_repro_label=one("needs_reproduction"),
        type_labels=(one("feature"), one("enhancement")),
        keep_labels=tuple(cfg.get("keep_labels") or ()),
        templates=templates,
        provenance=(lab.provenance(), rub.provenance(), tpl.provenance()),
        rubric=rubric,
        module_suboncall={n: lb["suboncall"] for n, lb in by_name.items()
                          if lb["role"] == "module"},
        feature_label=one("feature"),
        enhancement_label=one("enhancement"),
        performance_label=one("performance"),
        label_keywords={n: tuple(lb.get("keywords") or ()) for n, lb in by_name.items()},
        modules_after_route=bool(cfg.get("modules_after_route", False)),
        confidence=_selective(cfg.get("confidence")),
    )


def _selective(raw: Mapping[str, Any] | None) -> Selective:
    """``config.confidence`` (validated), or no thresholds at all."""
    if not raw:
        return Selective()
    return Selective(target_precision=float(raw["target_precision"]),
                     default=float(raw["default"]),
                     thresholds={str(k): float(v) for k, v in raw["thresholds"].items()},
                     fitted_on=str(raw.get("fitted_on") or ""))
