"""Load and validate the post-mortem skill's data: the facts JSON Schema and the lint
rules (with their examples); ``validate_all`` is what scripts/validate_data.py runs.

Adapter side (reads files); never writes.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from agentops import data, files, untrusted_yaml
from agentops.errors import DataError
from agentops.postmortem.lint import Rule, SectionKind, compile_rules, compile_sections
from agentops.postmortem.model import REQUIRED, TITLES
from agentops.postmortem.mood import MOODS as MOODS_NAMES
from agentops.postmortem.mood import PROPOSAL_READINGS, MoodGrammar, compile_moods

HERE = Path(__file__).resolve().parent
SCHEMA = HERE / "schema.yaml"
LINT_RULES = HERE / "lint_rules.yaml"
MOODS = HERE / "moods.yaml"
SECTIONS = HERE / "sections.yaml"
SECTION_KINDS = HERE / "section_kinds.yaml"
EXAMPLES = HERE.parent.parent.parent / "examples" / "postmortem"

# count: the number of findings (default: at least one); line: the first one's line.
_WHERE = {"count": {"type": "integer", "minimum": 1},
          "line": {"type": "integer", "minimum": 1}}
_EXAMPLE = {"oneOf": [
    {"type": "object", "additionalProperties": False, "required": ["text"],
     "properties": {"text": {"type": "string", "minLength": 1},
                    "section": {"type": "string", "pattern": "^[a-z_]+$"},
                    "heading": {"type": "string", "minLength": 1}, **_WHERE}},
    {"type": "object", "additionalProperties": False, "required": ["draft"],
     "properties": {"draft": {"type": "string", "minLength": 1},
                    "facts": {"type": "object"}, **_WHERE}},
]}
_REGEX = {"type": "string", "minLength": 1}
_WORDS = {"type": "array", "minItems": 1,
          "items": {"type": "string", "pattern": "^[a-z][a-z-]*$"}}
_FAULTS = {
    "type": "object", "additionalProperties": False, "required": ["classes"],
    "properties": {
        # lemma -> [past, participle(, -ing)] when not the regular -ed.
        "irregular": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"},
                      "additionalProperties": {"type": "array", "minItems": 1,
                                               "maxItems": 3, "items": {
                                                   "type": "string",
                                                   "pattern": "^[a-z]+$"}}},
        # The writer's act in one sentence, its breakage in the next.
        "consequence": {
            "type": "object", "additionalProperties": False,
            "required": ["agents", "acts", "results", "subject"],
            "properties": {
                "agents": {"type": "array", "minItems": 1,
                           "items": {"type": "string", "pattern": "^[a-z_]+$"}},
                "acts": _WORDS, "subject": _REGEX,
                "results": {"type": "array", "minItems": 1,
                            "items": {"type": "string", "pattern": "^[a-z][a-z-]*$"}},
            }},
        "classes": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["class", "agents"],
            "anyOf": [{"required": ["lemmas"]}, {"required": ["adverbs"]}],
            "properties": {
                "class": {"type": "string", "pattern": "^[a-z][a-z-]*$"},
                "agents": {"type": "array", "minItems": 1,
                           "items": {"type": "string", "pattern": "^[a-z_]+$"}},
                "lemmas": _WORDS, "adverbs": _WORDS, "not_adverbs": _WORDS,
                "negated": {"type": "boolean"},
                "tenses": {"type": "array", "minItems": 1,
                           "items": {"enum": ["past", "present", "perfect"]}},
                "after": _REGEX, "not_after": _REGEX,
                "agent_from_by": {"type": "boolean"}, "no_perfect": {"type": "boolean"},
                "progressive": {"type": "boolean"},
            }}},
    }}
_GRAMMAR = {
    "type": "object", "additionalProperties": False,
    "required": ["boundaries", "agents", "filler", "stop", "coordinators", "relative"],
    "properties": {
        "boundaries": {"type": "array", "minItems": 1, "items": _REGEX},
        "agents": {"type": "object", "minProperties": 1,
                   "propertyNames": {"pattern": "^[a-z][a-z_]*$"},
                   "additionalProperties": _REGEX},
        "filler": _REGEX, "stop": _REGEX, "coordinators": _REGEX, "relative": _REGEX,
        "postmodifiers": _REGEX, "determiners": _REGEX, "owned_things": _REGEX, "accusing": _REGEX,
        "subject_words": {"type": "integer", "minimum": 1, "maximum": 20},
        # Agent classes that name a subject only when it is that one word ("Robin").
        "solo_agents": {"type": "array", "items": {"type": "string",
                                                   "pattern": "^[a-z][a-z_]*$"}},
        # Lexical classes, each with made-up phrases it must and must not find.
        "classes": {"type": "object", "propertyNames": {"pattern": "^[a-z][a-z_]*$"},
                    "additionalProperties": {
                        "type": "object", "additionalProperties": False,
                        "required": ["pattern", "match", "no_match"],
                        "properties": {
                            "pattern": _REGEX,
                            "match": {"type": "array", "minItems": 1,
                                      "items": {"type": "string", "minLength": 1}},
                            "no_match": {"type": "array", "minItems": 1,
                                         "items": {"type": "string", "minLength": 1}}}}},
    }}
_PROVEN = {"type": "object", "additionalProperties": False,
           "required": ["pattern", "match", "no_match"],
           "properties": {"pattern": _REGEX,
                          "match": {"type": "array", "minItems": 1,
                                    "items": {"type": "string", "minLength": 1}},
                          "no_match": {"type": "array", "minItems": 1,
                                       "items": {"type": "string", "minLength": 1}}}}
MOODS_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "required": ["version", "markers", "nouns"],
    "properties": {
        "version": {"const": 1},
        "markers": {"type": "object", "additionalProperties": False,
                    "required": list(MOODS_NAMES),
                    "properties": {m: _PROVEN for m in MOODS_NAMES}},
        "cancels": {"type": "object", "additionalProperties": False,
                    "properties": {m: {"type": "array", "items": _PROVEN}
                                   for m in MOODS_NAMES}},
        "nouns": {"type": "object", "minProperties": 1,
                  "propertyNames": {"pattern": "^[a-z][a-z_]*$"},
                  "additionalProperties": _PROVEN},
        # The past tense of a judgement's verb group (mood.PAST_STATE).
        "past": _PROVEN,
        # Deontic readings of a possibility modal (mood.Proposals).
        "proposals": {
            "type": "object", "additionalProperties": False,
            "required": ["readings"],
            "properties": {
                "acts": {"type": "array", "minItems": 1,
                         "items": {"type": "string", "pattern": "^[a-z][a-z-]*$"}},
                "irregular": {"type": "object",
                              "additionalProperties": {"type": "array", "minItems": 1,
                                                       "maxItems": 2,
                                                       "items": {"type": "string"}}},
                "readings": {"type": "object",
                             "propertyNames": {"enum": list(PROPOSAL_READINGS)},
                             "additionalProperties": {"type": "string",
                                                      "pattern": "^[a-z|]+$"}},
                "verdict": _PROVEN}},
        # The test matrix (tests/postmortem/test_postmortem_mood.py) is data too.
        "matrix": {"type": "object"},
    }}
# Blame as cues tied to a person-like agent (blamecues.py); each cue class proves its
# pattern on made-up phrases.
_CUES = {
    "type": "object", "additionalProperties": False,
    "required": ["agents", "acts", "classes"],
    "properties": {
        "agents": {"type": "array", "minItems": 1,
                   "items": {"type": "string", "pattern": "^[a-z_]+$"}},
        "acts": _WORDS,
        "irregular": _FAULTS["properties"]["irregular"],
        "classes": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["class", "tie", "pattern", "match", "no_match"],
            "properties": {
                "class": {"type": "string", "pattern": "^[a-z][a-z_]*$"},
                "tie": {"enum": ["act", "subject", "self"]},
                "agents": {"type": "array", "minItems": 1,
                           "items": {"type": "string", "pattern": "^[a-z_]+$"}},
                "pattern": _REGEX, "not_before": _REGEX,
                "reach": {"type": "integer", "minimum": 1, "maximum": 200},
                "attach": {"type": "boolean"},
                "acts": _WORDS,
                "match": {"type": "array", "minItems": 1,
                          "items": {"type": "string", "minLength": 1}},
                "no_match": {"type": "array", "minItems": 1,
                             "items": {"type": "string", "minLength": 1}}}}}}}
LINT_RULES_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["version", "rules"],
    "properties": {
        "version": {"const": 1},
        "grammar": _GRAMMAR,
        "rules": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["id", "kind", "message", "match", "no_match"],
            "properties": {
                "id": {"type": "string", "pattern": "^[a-z][a-z-]*$"},
                "kind": {"enum": ["lexicon", "check"]},
                "scope": {"type": "string",
                          "pattern": "^(all|(outside|section):[a-z_]+(,[a-z_]+)*)$"},
                "check": {"enum": ["required_sections", "identifiers",
                                   "verification_scope"]},
                "message": {"type": "string", "minLength": 1},
                "patterns": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "unless": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "clauses": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "required": ["agents", "predicates"],
                    "properties": {
                        "agents": {"type": "array", "minItems": 1,
                                   "items": {"type": "string", "pattern": "^[a-z_]+$"}},
                        "predicates": {"type": "array", "minItems": 1, "items": _REGEX},
                        "head": {"type": "boolean"},
                    }}},
                # Fault predicates as lemma classes (verbgroups.py).
                "faults": _FAULTS,
                "cues": _CUES,
                "cooccur": {"type": "array", "items": {
                    "type": "array", "minItems": 2,
                    "items": {"type": "string", "pattern": "^[a-z_]+$"}}},
                "cooccur_in": {"type": "object",
                               "propertyNames": {"pattern": "^[a-z_]+$"},
                               "additionalProperties": {"type": "array", "minItems": 1, "items": {
                                   "type": "array", "minItems": 1,
                                   "items": {"type": "string", "pattern": "^[a-z_]+$"}}}},
                "yield_to": {"type": "array", "items": {"type": "string"}},
                "yield_within": {"type": "array", "items": _REGEX},
                "concede": {"type": "array", "items": _REGEX},
                "beside_links": {"type": "array", "items": _REGEX},
                "keep_in": {"type": "object",
                            "propertyNames": {"pattern": "^[a-z_]+$"},
                            "additionalProperties": {"type": "array", "minItems": 1,
                                                     "items": _REGEX}},
                "skip_questions": {"type": "boolean"},
                "accusing_questions": {"type": "boolean"},
                "guess_questions": {"type": "array", "items": _REGEX},
                "skip_quoted": {"type": "boolean"},
                "always": {"type": "array", "items": _REGEX},
                # Clause moods (moods.yaml) the rule reads: mood -> topics (noun classes).
                "moods": {"type": "object", "propertyNames": {"enum": list(MOODS_NAMES)},
                          "additionalProperties": {"type": "array", "minItems": 1, "items": {
                              "type": "string", "pattern": "^[a-z_]+$"}}},
                # Readings of a reflective part (section_kinds.yaml, #24 round 48).
                "in_reflective": {
                    "type": "object", "additionalProperties": False,
                    "required": ["cooccur"],
                    "properties": {
                        "cooccur": {"type": "array", "minItems": 1, "items": {
                            "type": "array", "minItems": 1,
                            "items": {"type": "string", "pattern": "^[a-z_]+$"}}}}},
                # What a thread's sentence does (speechacts.py); each act proves itself
                # on made-up sentences both ways.
                "speech_acts": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "required": ["act", "cue", "match", "no_match"],
                    "properties": {
                        "act": {"enum": ["request", "agreement"]},
                        "cue": _REGEX, "needs": _REGEX, "unless": _REGEX,
                        "after_push": {"type": "boolean"},
                        "in_thread": {"type": "boolean"},
                        "match": {"type": "array", "minItems": 1,
                                  "items": {"type": "string", "minLength": 1}},
                        "no_match": {"type": "array", "minItems": 1,
                                     "items": {"type": "string", "minLength": 1}}}}},
                # Sanity: every rule proves itself both ways (style §12.6).
                "match": {"type": "array", "minItems": 1, "items": _EXAMPLE},
                "no_match": {"type": "array", "minItems": 1, "items": _EXAMPLE},
            }}},
    },
}


SECTION_KINDS_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["version", "kinds"],
    "properties": {
        "version": {"const": 1},
        "kinds": {"type": "object", "additionalProperties": False,
                  "required": ["remedy", "reflective", "narrative"],
                  "properties": {k: {"type": "array", "items": {
                      "type": "string", "pattern": "^[a-z][a-z_]*$"}}
                      for k in ("remedy", "reflective", "narrative")}},
    },
}


SECTIONS_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["version", "sections"],
    "properties": {
        "version": {"const": 1},
        "sections": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["key", "patterns", "examples", "not_examples"],
            "properties": {
                "key": {"type": "string", "pattern": "^[a-z][a-z_]*$"},
                "required": {"type": "boolean"},
                "patterns": {"type": "array", "minItems": 1,
                             "items": {"type": "string", "minLength": 1}},
                "examples": {"type": "array", "minItems": 1,
                             "items": {"type": "string", "minLength": 1}},
                "not_examples": {"type": "array", "minItems": 1,
                                 "items": {"type": "string", "minLength": 1}},
            }}},
    },
}


@functools.cache
def facts_schema() -> dict[str, Any]:
    """The facts JSON Schema (itself checked against the 2020-12 meta-schema)."""
    schema = data.load(SCHEMA, display="postmortem/schema.yaml").content
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise DataError("postmortem/schema.yaml", data.key_path(exc.absolute_path),
                        exc.message) from exc
    return schema


# A real facts file is a few KB; the cap leaves room for long logs pasted into it.
MAX_FACTS_BYTES = 512 * 1024
# Facts are plain data: a few hundred nodes. The budget stops an alias bomb before the
# schema validator or the renderer walks its expansion (#12 item 10).
MAX_FACTS_NODES = 20_000
MAX_FACTS_DEPTH = 32


FACTS_FORMAT = ("the keys are listed in docs/postmortem.md (Facts file); "
                "examples/postmortem/tada-hang.facts.yml is a complete one")


def load_facts(path: str | Path) -> data.Loaded:
    """A facts file, validated; errors name the file and the key (exit 1).

    Security: the facts may come from a workflow_dispatch input or a file someone else
    wrote, so the read is bounded (size, regular file only) and the YAML parse is
    bounded (alias expansion, depth) before the ordinary strict parse runs."""
    name = str(path)
    # The read names the file once: "facts file: X: no such file".
    raw = files.read_bytes(path, field="facts file", limit=MAX_FACTS_BYTES,
                           fix="check the path of the facts file (FACTS.yml, --facts, env "
                               "AGENTOPS_FACTS)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(name, "", f"not UTF-8 text ({files.where_undecodable(raw, exc)})",
                        fix="save the facts file as UTF-8") from exc
    if not name.endswith(".json"):
        try:
            untrusted_yaml.load(text, max_nodes=MAX_FACTS_NODES, max_depth=MAX_FACTS_DEPTH,
                                max_chars=MAX_FACTS_BYTES)
        except untrusted_yaml.UnsafeYAML as exc:
            raise DataError(name, "", f"refused: {exc}",
                            fix="write each value out; facts need no anchors or aliases "
                                "beyond a few, and no deep nesting") from exc
        except yaml.YAMLError:
            pass  # the strict parse below reports the syntax error with its line
    content = data.parse_text(text, name=name)
    data.validate(content, facts_schema(), name=name, fix=FACTS_FORMAT)
    return data.Loaded(path=name, sha256=hashlib.sha256(raw).hexdigest(), content=content)


@functools.cache
def moods() -> MoodGrammar:
    """The clause moods (``moods.yaml``), validated: every pattern compiles and finds its
    ``match`` phrases and none of its ``no_match`` phrases; errors name file and key."""
    name = "postmortem/moods.yaml"
    loaded = data.load(MOODS, MOODS_SCHEMA, display=name)
    content = loaded.content
    proven = [(f"markers.{m}", v) for m, v in content["markers"].items()]
    proven += [(f"cancels.{m}[{j}]", c) for m, v in (content.get("cancels") or {}).items()
               for j, c in enumerate(v)]
    proven += [(f"nouns.{k}", v) for k, v in content["nouns"].items()]
    if "past" in content:
        proven.append(("past", content["past"]))
    if "verdict" in (content.get("proposals") or {}):
        proven.append(("proposals.verdict", content["proposals"]["verdict"]))
    for key, item in proven:
        _regex(name, f"{key}.pattern", item["pattern"])
        _prove_examples(name, key, re.compile(item["pattern"], re.IGNORECASE), item)
    return compile_moods(content)


def _prove_examples(name: str, key: str, pattern: re.Pattern[str],
                    item: dict[str, Any]) -> None:
    """Every ``match`` example is found by ``pattern`` and no ``no_match`` one is: the
    data's own proof, checked on load with the failing key named."""
    for j, phrase in enumerate(item["match"]):
        if not pattern.search(phrase):
            raise DataError(name, f"{key}.match[{j}]", f"the pattern misses {phrase!r}",
                            fix="widen the pattern or drop the example")
    for j, phrase in enumerate(item["no_match"]):
        if pattern.search(phrase):
            raise DataError(name, f"{key}.no_match[{j}]", f"the pattern finds {phrase!r}",
                            fix="narrow the pattern or drop the example")


@functools.cache
def lint_rules() -> tuple[Rule, ...]:
    """The lint rules, validated and compiled; a bad regex names its rule."""
    name = "postmortem/lint_rules.yaml"
    loaded = data.load(LINT_RULES, LINT_RULES_SCHEMA, display=name)
    grammar = loaded.content.get("grammar") or {}
    for where, pattern in _grammar_patterns(grammar):
        _regex(name, f"grammar.{where}", pattern)
    classes = set(grammar.get("agents") or {}) | {"system", "unstated"}
    for k, solo in enumerate(grammar.get("solo_agents") or []):
        if solo not in (grammar.get("agents") or {}):
            raise DataError(name, f"grammar.solo_agents[{k}]",
                            f"{solo!r} is no class of grammar.agents",
                            fix=f"add agents.{solo} or drop it from solo_agents")
    ids = [r["id"] for r in loaded.content["rules"]]
    for i, rule in enumerate(loaded.content["rules"]):
        for j, pattern in enumerate(rule.get("patterns", [])):
            _regex(name, f"rules[{i}].patterns[{j}]", pattern)
        for j, pattern in enumerate(rule.get("unless", [])):
            _regex(name, f"rules[{i}].unless[{j}]", pattern)
        for j, pattern in enumerate(rule.get("always", [])):
            _regex(name, f"rules[{i}].always[{j}]", pattern)
        for j, cond in enumerate(rule.get("clauses", [])):
            if not grammar:
                raise DataError(name, f"rules[{i}].clauses", "clause conditions need the "
                                "top-level grammar", fix="add grammar: (agents, ...)")
            unknown = sorted(set(cond["agents"]) - classes)
            if unknown:
                raise DataError(name, f"rules[{i}].clauses[{j}].agents",
                                f"unknown agent classes {unknown}; known: {sorted(classes)}")
            for k, pattern in enumerate(cond["predicates"]):
                _regex(name, f"rules[{i}].clauses[{j}].predicates[{k}]", pattern)
        for j, cls in enumerate((rule.get("faults") or {}).get("classes", [])):
            where = f"rules[{i}].faults.classes[{j}]"
            if not grammar:
                raise DataError(name, where, "fault classes need the top-level grammar",
                                fix="add grammar: (agents, ...)")
            unknown = sorted(set(cls["agents"]) - classes)
            if unknown:
                raise DataError(name, f"{where}.agents",
                                f"unknown agent classes {unknown}; known: {sorted(classes)}")
            for key in ("after", "not_after"):
                if key in cls:
                    _regex(name, f"{where}.{key}", cls[key])
        _check_cues(name, f"rules[{i}].cues", rule.get("cues"), grammar, classes)
        follow = (rule.get("faults") or {}).get("consequence")
        if follow is not None:
            where = f"rules[{i}].faults.consequence"
            unknown = sorted(set(follow["agents"]) - classes)
            if unknown:
                raise DataError(name, f"{where}.agents",
                                f"unknown agent classes {unknown}; known: {sorted(classes)}")
            named = {c["class"] for c in rule["faults"]["classes"]}
            missing = sorted(set(follow["results"]) - named)
            if missing:
                raise DataError(name, f"{where}.results",
                                f"{missing} name no class of faults.classes",
                                fix=f"use one of {sorted(named)}")
            _regex(name, f"{where}.subject", follow["subject"])
        for j, need in enumerate(rule.get("cooccur", [])):
            _known_classes(name, f"rules[{i}].cooccur[{j}]", need, grammar)
        for section, needs in (rule.get("cooccur_in") or {}).items():
            for j, need in enumerate(needs):
                _known_classes(name, f"rules[{i}].cooccur_in.{section}[{j}]", need, grammar)
        for j, need in enumerate((rule.get("in_reflective") or {}).get("cooccur", [])):
            _known_classes(name, f"rules[{i}].in_reflective.cooccur[{j}]", need, grammar)
        for j, pattern in enumerate(rule.get("yield_within", [])):
            _regex(name, f"rules[{i}].yield_within[{j}]", pattern)
        for j, pattern in enumerate(rule.get("concede", [])):
            _regex(name, f"rules[{i}].concede[{j}]", pattern)
        for j, pattern in enumerate(rule.get("beside_links", [])):
            _regex(name, f"rules[{i}].beside_links[{j}]", pattern)
        for j, pattern in enumerate(rule.get("guess_questions", [])):
            _regex(name, f"rules[{i}].guess_questions[{j}]", pattern)
        for j, act in enumerate(rule.get("speech_acts", [])):
            for key in ("cue", "needs", "unless"):
                if key in act:
                    _regex(name, f"rules[{i}].speech_acts[{j}].{key}", act[key])
        for section, patterns in (rule.get("keep_in") or {}).items():
            for j, pattern in enumerate(patterns):
                _regex(name, f"rules[{i}].keep_in.{section}[{j}]", pattern)
        for other in rule.get("yield_to", []):
            if other not in ids or other == rule["id"]:
                raise DataError(name, f"rules[{i}].yield_to",
                                f"{other!r} is not another rule's id")
        if rule["kind"] == "check" and not rule.get("check"):
            raise DataError("postmortem/lint_rules.yaml", f"rules[{i}]",
                            "a check rule names its check")
    if len(set(ids)) != len(ids):
        raise DataError("postmortem/lint_rules.yaml", "rules", "rule ids repeat")
    mood_grammar = None
    if any(rule.get("moods") for rule in loaded.content["rules"]):
        mood_grammar = moods()
        topics = set(mood_grammar.nouns) | {"any", "unclassed"}
        for i, rule in enumerate(loaded.content["rules"]):
            if rule.get("moods") and not grammar:
                raise DataError(name, f"rules[{i}].moods", "clause moods need the "
                                "top-level grammar", fix="add grammar: (boundaries, ...)")
            for mood, wanted in (rule.get("moods") or {}).items():
                unknown = sorted(set(wanted) - topics)
                if unknown:
                    raise DataError(name, f"rules[{i}].moods.{mood}",
                                    f"unknown noun classes {unknown}; known: {sorted(topics)}",
                                    fix="define them under nouns in postmortem/moods.yaml")
    return compile_rules(loaded.content, mood_grammar, section_kinds())


@functools.cache
def section_kinds() -> dict[str, str]:
    """Section key -> kind (remedy, reflective, narrative), from ``section_kinds.yaml``:
    every key of ``sections.yaml`` in exactly one kind, no key it does not define."""
    name = "postmortem/section_kinds.yaml"
    loaded = data.load(SECTION_KINDS, SECTION_KINDS_SCHEMA, display=name)
    known = [s.key for s in sections()]
    out: dict[str, str] = {}
    for kind, keys in loaded.content["kinds"].items():
        for j, key in enumerate(keys):
            if key not in known:
                raise DataError(name, f"kinds.{kind}[{j}]",
                                f"{key!r} is no section key of postmortem/sections.yaml",
                                fix=f"use one of {sorted(known)}")
            if key in out:
                raise DataError(name, f"kinds.{kind}[{j}]",
                                f"{key!r} is already of kind {out[key]!r}",
                                fix="list each section under one kind")
            out[key] = kind
    missing = [k for k in known if k not in out]
    if missing:
        raise DataError(name, "kinds", f"sections of no kind: {missing}",
                        fix="list each under remedy, reflective or narrative")
    return out


def _check_cues(name: str, key: str, cues: dict[str, Any] | None,
                grammar: dict[str, Any], classes: set[str]) -> None:
    """A cue reading names known agent classes, and each cue class's pattern finds its
    match phrases and none of its no_match phrases."""
    if cues is None:
        return
    if not grammar:
        raise DataError(name, key, "cue classes need the top-level grammar",
                        fix="add grammar: (agents, ...)")
    unknown = sorted(set(cues["agents"]) - classes)
    if unknown:
        raise DataError(name, f"{key}.agents",
                        f"unknown agent classes {unknown}; known: {sorted(classes)}")
    for j, cls in enumerate(cues["classes"]):
        where = f"{key}.classes[{j}]"
        narrower = sorted(set(cls.get("agents") or ()) - set(cues["agents"]))
        if narrower:
            raise DataError(name, f"{where}.agents",
                            f"{narrower} are not among the cue agents {cues['agents']}",
                            fix="a class may only narrow cues.agents")
        extra = sorted(set(cls.get("acts") or ()) - set(cues["acts"]))
        if extra:
            raise DataError(name, f"{where}.acts", f"{extra} are not among the cue acts",
                            fix="add them to cues.acts or drop them here")
        _regex(name, f"{where}.pattern", cls["pattern"])
        if "not_before" in cls:
            _regex(name, f"{where}.not_before", cls["not_before"])
        _prove_examples(name, where, re.compile(cls["pattern"], re.IGNORECASE), cls)


def _grammar_patterns(grammar: dict[str, Any]) -> list[tuple[str, str]]:
    out = [(f"boundaries[{j}]", p) for j, p in enumerate(grammar.get("boundaries", []))]
    out += [(f"agents.{k}", p) for k, p in (grammar.get("agents") or {}).items()]
    out += [(k, grammar[k]) for k in ("filler", "stop", "coordinators", "relative",
                                      "postmodifiers", "determiners", "owned_things",
                                      "accusing")
            if k in grammar]
    out += [(f"classes.{k}.pattern", v["pattern"])
            for k, v in (grammar.get("classes") or {}).items()]
    return out


def _known_classes(name: str, key: str, need: list[str], grammar: dict[str, Any]) -> None:
    """A co-occurrence condition names only lexical classes the grammar defines."""
    known = grammar.get("classes") or {}
    unknown = sorted(set(need) - set(known))
    if unknown:
        raise DataError(name, key, f"unknown lexical classes {unknown}; known: {sorted(known)}",
                        fix="define them under grammar.classes")


def _regex(name: str, key: str, pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise DataError(name, key, f"not a valid regex: {exc}") from exc


@functools.cache
def sections() -> tuple[SectionKind, ...]:
    """The section meanings, validated and compiled: every key unique, the seed's nine
    sections all present, exactly its four required ones required."""
    name = "postmortem/sections.yaml"
    loaded = data.load(SECTIONS, SECTIONS_SCHEMA, display=name)
    items = loaded.content["sections"]
    for i, section in enumerate(items):
        for j, pattern in enumerate(section["patterns"]):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise DataError(name, f"sections[{i}].patterns[{j}]",
                                f"not a valid regex: {exc}") from exc
    keys = [s["key"] for s in items]
    if len(set(keys)) != len(keys):
        raise DataError(name, "sections", "section keys repeat")
    missing = [k for k in TITLES if k not in keys]
    if missing:
        raise DataError(name, "sections", f"the seed's sections are missing: {missing}",
                        fix="add an entry (key, patterns, examples) for each")
    required = sorted(s["key"] for s in items if s.get("required"))
    if required != sorted(REQUIRED):
        raise DataError(name, "sections", f"required sections are {required}; the seed "
                        f"requires exactly {sorted(REQUIRED)}")
    return compile_sections(loaded.content)


def hedge_rule() -> Rule:
    """The hedging rule, shared by the gate (a hedged root cause is a hypothesis)."""
    return next(r for r in lint_rules() if r.id == "hedging")


def validate_all() -> list[str]:
    """Validate the shipped data and the bundled example facts files."""
    facts_schema()
    lint_rules()
    sections()
    moods()
    section_kinds()
    checked = ["postmortem/schema.yaml", "postmortem/lint_rules.yaml",
               "postmortem/sections.yaml", "postmortem/moods.yaml",
               "postmortem/section_kinds.yaml"]
    if EXAMPLES.is_dir():
        for path in sorted(EXAMPLES.glob("*.facts.yml")):
            load_facts(path)
            checked.append(f"examples/postmortem/{path.name}")
    return checked
