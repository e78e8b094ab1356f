"""The trusted repro-command path (S-3c, issue #21): the only place where a command the
scout proposes is made.

A CI log is outside text. Its ``Command: ...`` line is never run, never handed on
as a command and never quoted into one. It only *names* values (the module, the config,
the GPU count, flags); the command is the target file's ``repro.template`` with those
values filled in, and only when every value checks out:

- the log line is printable ASCII (no newline, no unicode look-alike), parses as shell
  words, and runs the template's own program with no other environment than the
  runner's known noise (dropped) and ``NGPU``/``MODULE``/``CONFIG``;
- the module names a config registry of the checkout, and the config is a function
  that registry defines;
- every flag is on the template's allowlist and its value is made of plain characters;
- each value goes into the template shell-quoted (``shlex.quote``).

Anything else gives no command, only the reason; the report shows the logged text
inert (docs/security.md). Pure: text and the checkout's files in, records out.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentops.errors import DataError

PLACEHOLDERS = ("ngpu", "module", "config", "flags")
DEFAULT_REGISTRY = "config_registry.py"
DEFAULT_MAX_NGPU = 64
MAX_LOGGED = 4000  # characters of a logged command looked at; longer is refused

# The integration runner's noise around the command: dropped, never carried over.
_DROP_ENV = frozenset({"TORCH_TRACE", "LOG_RANK", "CUDA_VISIBLE_DEVICES",
                       "HIP_VISIBLE_DEVICES"})
_DROP_FLAGS = frozenset({"--dump_folder", "--job.dump_folder"})
_VALUE_ENV = {"NGPU": "ngpu", "MODULE": "module", "CONFIG": "config"}

# Printable ASCII only: a newline, a NUL, a right-to-left mark or a full-width ";" all
# stop here, before any parsing.
_PRINTABLE = re.compile(r"[\x20-\x7e]*")
_ASSIGN = re.compile(r"([A-Z_][A-Z0-9_]*)=(.*)", re.S)
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CONFIG = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NGPU = re.compile(r"[1-9][0-9]{0,3}")
_FLAG = re.compile(r"--[A-Za-z][A-Za-z0-9_.-]*")
_FLAG_VALUE = re.compile(r"[A-Za-z0-9_.,:+=/-]{0,200}")
# What the template's literal text may hold: no quote, no "$", no ";", no backtick.
_TEMPLATE_TEXT = re.compile(r"[A-Za-z0-9_./=:,+@%{} -]+")
_SLOT = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True)
class Template:
    """``repro:`` of a target file, validated: the command's words with their slots."""

    words: tuple[str, ...]  # as written, e.g. ("NGPU={ngpu}", "./run_train.sh", "{flags}")
    program: str  # the first word that is not a VAR=value assignment
    flags: frozenset[str]  # the allowlist
    registry: str = DEFAULT_REGISTRY
    max_ngpu: int = DEFAULT_MAX_NGPU

    @property
    def slots(self) -> set[str]:
        return {m.group(1) for w in self.words for m in _SLOT.finditer(w)}


@dataclass(frozen=True)
class Proposal:
    """The checked command, or why there is none (``command`` empty)."""

    command: str = ""
    refused: str = ""


SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["template"],
    "properties": {
        "template": {"type": "string", "minLength": 1, "maxLength": 500},
        "flags": {"type": "array", "items": {"type": "string", "pattern": _FLAG.pattern + "$"}},
        "registry": {"type": "string", "pattern": r"^[A-Za-z_]\w*\.py$"},
        "max_ngpu": {"type": "integer", "minimum": 1, "maximum": 9999},
    },
}


def load_template(raw: Mapping[str, Any] | None, display: str) -> Template | None:
    """``repro:`` of a target (schema-checked already) as a ``Template``; DataError naming
    the file and key when the template is not one the scout can fill safely."""
    if not raw:
        return None
    text = str(raw["template"])
    key = "repro.template"
    if not _TEMPLATE_TEXT.fullmatch(text):
        bad = sorted({c for c in text if not _TEMPLATE_TEXT.fullmatch(c)})
        raise DataError(display, key, f"holds {''.join(bad)!r}: a template is plain words "
                        "and {slots}, never quotes or shell syntax",
                        fix="e.g. 'NGPU={ngpu} ./run_train.sh --module {module} "
                            "--config {config} {flags}'")
    words = tuple(text.split())
    seen: list[str] = []
    for word in words:
        found = _SLOT.findall(word)
        if len(found) > 1 or word.count("{") != len(found) or word.count("}") != len(found):
            raise DataError(display, key, f"word {word!r} holds more than one slot or a "
                            "stray brace", fix="one {slot} per word")
        for name in found:
            if name not in PLACEHOLDERS:
                raise DataError(display, key, f"unknown slot {{{name}}}",
                                fix="use " + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS))
            if name == "flags" and word != "{flags}":
                raise DataError(display, key, "{flags} must be a word of its own",
                                fix="separate it with spaces")
        seen += found
    for name in ("module", "config"):
        if name not in seen:
            raise DataError(display, key, f"has no {{{name}}} slot",
                            fix="a repro names the module and the config it runs")
    dup = sorted({s for s in seen if seen.count(s) > 1})
    if dup:
        raise DataError(display, key, f"slot {{{dup[0]}}} appears twice", fix="use each once")
    program = next((w for w in words if not _ASSIGN.fullmatch(w)), "")
    if not program or "{" in program:
        raise DataError(display, key, "names no program (every word is VAR=value or a slot)",
                        fix="e.g. './run_train.sh --module {module} --config {config}'")
    return Template(words=words, program=program, flags=frozenset(raw.get("flags", ())),
                    registry=str(raw.get("registry", DEFAULT_REGISTRY)),
                    max_ngpu=int(raw.get("max_ngpu", DEFAULT_MAX_NGPU)))


def registries(files: Mapping[str, str], registry: str = DEFAULT_REGISTRY
               ) -> dict[str, frozenset[str]]:
    """What the checkout defines: the dotted package of every ``registry`` file (say
    ``torchtitan.models.llama3``) -> its public top-level function names."""
    out: dict[str, frozenset[str]] = {}
    for path, text in files.items():
        folder, _, name = path.rpartition("/")
        if name != registry or not folder:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        out[folder.replace("/", ".")] = frozenset(
            n.name for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and not n.name.startswith("_"))
    return out


def _module_defines(module: str, config: str, regs: Mapping[str, frozenset[str]],
                    registry: str) -> bool:
    """Whether ``module`` (short ``graph_trainer.llama3``, full, or full with the
    registry's own name) names a registry of the checkout that defines ``config``."""
    stem = "." + registry.removesuffix(".py")
    wanted = module.removesuffix(stem)
    return any(config in names for package, names in regs.items()
               if package == wanted or package.endswith("." + wanted))


def propose(logged: str, template: Template | None,
            regs: Mapping[str, frozenset[str]]) -> Proposal:
    """The template filled with the logged command's checked values, or the reason
    why not. ``logged`` is outside text (a CI log line)."""
    if template is None:
        return Proposal(refused="the target has no repro template")
    if len(logged) > MAX_LOGGED:
        return Proposal(refused=f"the logged command is longer than {MAX_LOGGED} characters")
    if not _PRINTABLE.fullmatch(logged):
        return Proposal(refused="the logged command holds a character that is not "
                                "printable ASCII")
    try:
        words = shlex.split(logged)
    except ValueError:
        return Proposal(refused="the logged command does not parse as shell words")
    values: dict[str, str] = {}
    i = 0
    while i < len(words) and _ASSIGN.fullmatch(words[i]):
        var, value = _ASSIGN.fullmatch(words[i]).groups()  # type: ignore[union-attr]
        if var in _VALUE_ENV:
            values[_VALUE_ENV[var]] = value
        elif var not in _DROP_ENV:
            return Proposal(refused=f"the logged command sets {var}, which the template "
                                    "does not")
        i += 1
    if i >= len(words) or words[i] != template.program:
        return Proposal(refused=f"the logged command does not run {template.program}")
    flags: list[tuple[str, str | None]] = []
    rest = words[i + 1:]
    j = 0
    while j < len(rest):
        word = rest[j]
        name, eq, value = word.partition("=")
        if not _FLAG.fullmatch(name):
            return Proposal(refused=f"word {j + 1} after the program is not a --flag")
        if not eq:
            has_value = j + 1 < len(rest) and not rest[j + 1].startswith("-")
            value = rest[j + 1] if has_value else ""
            j += 2 if has_value else 1
        else:
            has_value = True
            j += 1
        if name in _DROP_FLAGS:
            continue
        if name in ("--module", "--config"):
            values[name[2:]] = value
            continue
        if name not in template.flags:
            return Proposal(refused=f"flag {name} is not on the template's allowlist")
        if not _FLAG_VALUE.fullmatch(value):
            return Proposal(refused=f"the value of {name} holds characters a flag value "
                                    "never needs")
        flags.append((name, value if has_value else None))
    return _fill(template, values, flags, regs)


def _fill(template: Template, values: dict[str, str], flags: list[tuple[str, str | None]],
          regs: Mapping[str, frozenset[str]]) -> Proposal:
    module, config = values.get("module", ""), values.get("config", "")
    if not module or not config:
        return Proposal(refused="the logged command names no module and config")
    if not _MODULE.fullmatch(module) or not _CONFIG.fullmatch(config):
        return Proposal(refused="the module or config is not a Python name")
    if not _module_defines(module, config, regs, template.registry):
        return Proposal(refused=f"no {template.registry} of the checkout named by module "
                                f"{module} defines config {config}")
    slots = template.slots
    ngpu = values.get("ngpu", "")
    if ngpu and "ngpu" not in slots:
        return Proposal(refused="the logged command sets NGPU; the template has no {ngpu}")
    if ngpu and not (_NGPU.fullmatch(ngpu) and int(ngpu) <= template.max_ngpu):
        return Proposal(refused=f"NGPU is not a GPU count from 1 to {template.max_ngpu}")
    if flags and "flags" not in slots:
        return Proposal(refused="the logged command has flags; the template has no {flags}")
    filled = {"module": module, "config": config, "ngpu": ngpu}
    out: list[str] = []
    for word in template.words:
        if word == "{flags}":
            for name, value in flags:
                out.append(name if value is None else f"{name} {_shell_word(value)}")
            continue
        slot = _SLOT.search(word)
        if slot is None:
            out.append(word)
        elif filled[slot.group(1)]:
            out.append(word[:slot.start()] + _shell_word(filled[slot.group(1)])
                       + word[slot.end():])
        elif not _ASSIGN.fullmatch(word[:slot.start()]):
            # An empty {ngpu} drops its whole NGPU= word; elsewhere it would leave a gap.
            return Proposal(refused="the logged command gives no NGPU for the template")
    return Proposal(command=" ".join(out))


def _shell_word(value: str) -> str:
    """Every value goes into the command through here: one shell word, whatever it
    holds (the checks above already refused anything but plain characters)."""
    return shlex.quote(value)


def check_ci(live: Any, template: Template | None, files: Mapping[str, str]) -> Any:
    """``live`` (a ``LiveData``) with each failed test's ``command`` set from its
    ``logged_command`` through ``propose``, or cleared with the reason in
    ``command_refused``."""
    if not live.ci:
        return live
    regs = registries(files, template.registry) if template else {}
    health = []
    for wf in live.ci:
        tests = []
        for t in wf.failed_tests:
            p = propose(t.logged_command, template, regs) if t.logged_command else Proposal()
            tests.append(dataclasses.replace(t, command=p.command, command_refused=p.refused))
        health.append(dataclasses.replace(wf, failed_tests=tuple(tests)))
    return dataclasses.replace(live, ci=tuple(health))
