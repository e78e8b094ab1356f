#!/usr/bin/env python3
"""Third-party text in the repository (#24, #23): quoted strings and rule examples of
tracked files that occur word for word in a local cache of texts other people wrote.

The brief's rule: the judged post-mortems and the triage issue texts stay outside the
repository; only identifiers and our own paraphrase go in. This check lists every quoted
string ("..", \u201c..\u201d, '..'; in Python files every string constant, also each of its
lines) and every rule example (quoted strings and ``text:`` values of YAML files under
src/ and tests/) whose words run verbatim through a cache text: case-, whitespace- and
punctuation-insensitive, edge punctuation stripped. Reported per hit: file:line, the
number of words shared, the kind of cache and the cache file.

    python benchmarks/quote_check.py                      # the default caches below
    python benchmarks/quote_check.py --cache DIR_OR_FILE  # only these caches
    python benchmarks/quote_check.py --all                # also hits below the limits

Caches (a missing one is skipped with a message, so the check runs anywhere):
``~/.cache/agentops/postmortem`` and ``/work/shared/eval/postmortem`` (``*.md`` texts),
``~/.cache/agentops/triage/*.jsonl`` and ``/work/shared/eval/triage-dev*.jsonl`` (the
``title`` and ``text`` of each issue). A hit counts as a failure when the whole quote (or
one of its sentences, with or without a role prefix such as "Reply:") is at least
--min-words long (default 6), or at least --min-example-words (default 4) in a rule
example or a test string; a run inside a longer string of ours fails from
--min-run-words (default 8). Software strings (exception
messages, NCCL/CUDA texts, code, paths, issue-template headings) are listed as
``software`` and never fail: they are the program's words, not a writer's prose.

Exit codes: 0 no failing hit, 1 at least one failing hit, 2 bad arguments or no
repository to scan.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("src", "scripts", "tests", "benchmarks", "docs", "README.md", "actions")
DEFAULT_CACHES = (
    "~/.cache/agentops/postmortem",
    "/work/shared/eval/postmortem",
    "~/.cache/agentops/triage",
    "/work/shared/eval/triage-dev.jsonl",
    "/work/shared/eval/triage-dev2.jsonl",
)
MAX_FILE_BYTES = 2_000_000   # one tracked file or one cache file read at most this much
MAX_LINE_BYTES = 1_000_000   # one JSONL record
MAX_CACHE_FILES = 20_000
MAX_TOTAL_BYTES = 200_000_000
GIT_TIMEOUT_S = 30
SEED = 4                     # word n-grams indexed; shorter quotes are never hits

ROLE_PREFIX = re.compile(r"^\W*[A-Za-z@][\w@-]{0,30}:\s+")
SENTENCE_END = re.compile(r"(?<=[.;!?])\s+|\\n|\n")
WORD = re.compile(r"[a-z0-9]+(?:['\u2019][a-z]+)*")
QUOTED = re.compile(r'"([^"\n]{3,})"|\u201c([^\u201d\n]{3,})\u201d|'
                    r"(?<![A-Za-z0-9])'([^'\n]{3,})'(?![A-Za-z0-9])")
YAML_TEXT = re.compile(r"^\s*-?\s*text:\s*([^\s\"'#|>].*?)\s*$")
# Words and shapes of a program's output or code rather than a writer's sentence.
SOFTWARE = re.compile(
    r"\b\w*(?:Error|Exception|Warning|Interrupt)\b|\bNCCL\b|\bCUDA\b|\bcuda\w*|\bc10\b|"
    r"\bTraceback\b|\w\.\w|::|\w+_\w+|/\w+/|\bline \d+\b|--\w|`|=|\(\)|"
    r"\bsegmentation fault\b|\bcore dumped\b|\bSIG[A-Z]+\b|"
    # a rule's own pattern (alternation, groups, escapes) is code as well
    r"\w\|\w|\(\?|\\[bswd.()\[\]]|"
    # source lines and the text a bot files (disabled-test issues), not a reporter's
    r"\bdef \w+\(|\bfrom [\w.]+ import\b|^import \w|\bexit status\b|"
    r"\bPlatforms: \w|\bThis test was disabled because\b|\bit is (?:failing|flaky) (?:on|in)\b|"
    r"\bROCm-skipped\b|"
    # the field lines of PyTorch's environment report (collect_env) and a shell prompt's
    # command: a program's output and a command, whoever pasted them
    r"^(?:Is debug build|ROCM used to build PyTorch|GPU models and configuration|"
    r"Is XPU available|Versions of relevant libraries):|^\[(?:conda|pip3?)\] |"
    r"^GPU \d+: |^\$ \w|"
    # error texts of PyTorch, the C library and the kernel, quoted as such
    r"\bExpected to have finished reduction\b|\bdoes not have a sharding strategy\b|"
    r"\bUnable to find \w+ backend\b|\bToo many open files\b|\bconnection reset by peer\b|"
    # CPython's own last words before it aborts
    r"\bFatal Python error\b")
TEMPLATE_HEADINGS = frozenset({
    "describe the bug", "to reproduce", "expected behavior", "expected behaviour",
    "steps to reproduce", "versions", "environment", "additional context",
    "collecting environment information", "alternatives", "motivation", "pitch",
    "minified repro", "error logs", "the feature motivation and pitch",
    # headings of the common post-mortem templates
    "where we got lucky", "what went well", "what went wrong", "lessons learned",
    "action items", "root cause", "root causes", "supporting information",
})


@dataclass(frozen=True)
class CacheText:
    kind: str       # "postmortem" or "triage"
    source: str     # cache file (and record number for JSONL)
    words: str      # the text's words, one space apart, with a space at both ends


@dataclass(frozen=True)
class Quote:
    path: str
    line: int
    text: str
    kind: str       # "example", "test" or "other"


@dataclass(frozen=True)
class Hit:
    quote: Quote
    words: int      # length of the verbatim run shared with the cache
    whole: bool     # the whole quote (edge punctuation stripped) is the run
    cache_kind: str
    source: str
    software: bool

    def fails(self, min_words: int, min_example_words: int, min_run_words: int) -> bool:
        if self.software:
            return False
        if not self.whole:
            return self.words >= min_run_words
        # The lower limit holds for a whole example or test string (or one sentence of
        # it): four words of a common phrase inside a longer string of our own are no quote.
        short = self.quote.kind in ("example", "test")
        return self.words >= (min_example_words if short else min_words)


def words_of(text: str) -> list[str]:
    return WORD.findall(text.lower().replace("\u2019", "'"))


# The C library's error texts ("No space left on device"), whoever quotes them: the
# words are the system's, the same in a test's fake error and in a pasted log.
OS_ERRORS = frozenset(" ".join(words_of(os.strerror(n))) for n in range(1, 134))


def is_software(text: str) -> bool:
    plain = " ".join(words_of(text))
    return bool(SOFTWARE.search(text)) or plain in TEMPLATE_HEADINGS or plain in OS_ERRORS


# ---------------------------------------------------------------- caches


def _read_bounded(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    with path.open("rb") as fh:
        return fh.read(limit).decode("utf-8", errors="replace")


def _jsonl_texts(path: Path, raw: str) -> Iterator[tuple[str, str]]:
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip() or len(line) > MAX_LINE_BYTES:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        parts = [record.get(k) for k in ("title", "text", "body")]
        text = "\n".join(p for p in parts if isinstance(p, str))
        if text:
            yield f"{path}#{n}", text


def _cache_files(spec: Path) -> list[Path]:
    if spec.is_file():
        return [spec]
    found = [p for p in sorted(spec.rglob("*"))
             if p.is_file() and p.suffix in (".md", ".jsonl") and p.name != "README.md"]
    return found[:MAX_CACHE_FILES]


def load_caches(specs: Iterable[str], say=print) -> list[CacheText]:
    texts: list[CacheText] = []
    total = 0
    for spec in specs:
        root = Path(spec).expanduser()
        if not root.exists():
            say(f"cache {spec}: missing, skipped")
            continue
        files = _cache_files(root)
        for path in files:
            if total >= MAX_TOTAL_BYTES:
                say(f"cache {spec}: byte budget reached, rest skipped")
                break
            try:
                raw = _read_bounded(path)
            except OSError as exc:
                say(f"cache {path}: unreadable ({exc.strerror}), skipped")
                continue
            total += len(raw)
            if path.suffix == ".jsonl":
                for source, text in _jsonl_texts(path, raw):
                    texts.append(CacheText("triage", source, f" {' '.join(words_of(text))} "))
            else:
                texts.append(CacheText("postmortem", str(path),
                                       f" {' '.join(words_of(raw))} "))
        say(f"cache {spec}: {len(files)} files")
    return texts


class CacheIndex:
    """Word 4-grams of every cache text, so a quote's verbatim runs are found without
    scanning every text for every quote; a run is then confirmed by a plain search."""

    def __init__(self, texts: list[CacheText]) -> None:
        self.texts = texts
        self.grams: set[tuple[str, ...]] = set()
        for t in texts:
            w = t.words.split()
            self.grams.update(tuple(w[i:i + SEED]) for i in range(len(w) - SEED + 1))

    def where(self, run: list[str]) -> CacheText | None:
        needle = f" {' '.join(run)} "
        for t in self.texts:
            if needle in t.words:
                return t
        return None

    def longest_run(self, words: list[str]) -> tuple[int, CacheText | None]:
        """Longest run of consecutive words of ``words`` found verbatim in one text."""
        present = [tuple(words[i:i + SEED]) in self.grams
                   for i in range(len(words) - SEED + 1)]
        best: tuple[int, CacheText | None] = (0, None)
        i = 0
        while i < len(present):
            if not present[i]:
                i += 1
                continue
            j = i
            while j + 1 < len(present) and present[j + 1]:
                j += 1
            # Consecutive n-grams may come from different texts: shrink until one holds it.
            length = j - i + SEED
            for start in range(i, j + 1):
                if length - (start - i) <= best[0]:
                    break
                run = words[start:j + SEED]
                hit = self.where(run)
                while hit is None and len(run) > max(SEED, best[0]):
                    run = run[:-1]
                    hit = self.where(run)
                if hit is not None and len(run) > best[0]:
                    best = (len(run), hit)
            i = j + 1
        return best


# ---------------------------------------------------------------- quotes


def tracked_files(root: Path) -> list[str]:
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--", *SCANNED],
                             capture_output=True, timeout=GIT_TIMEOUT_S, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SystemExit(f"error: cannot list the tracked files of {root}: {exc}") from exc
    return [p for p in out.stdout.decode("utf-8", "replace").split("\0") if p]


def _kind(rel: str) -> str:
    if rel.endswith((".yaml", ".yml")) and rel.startswith(("src/", "tests/")):
        return "example"
    if rel.startswith("tests/"):
        return "test"
    return "other"


def _line_quotes(rel: str, text: str, kind: str) -> Iterator[Quote]:
    for n, line in enumerate(text.splitlines(), 1):
        for m in QUOTED.finditer(line):
            yield Quote(rel, n, next(g for g in m.groups() if g), kind)
        if kind == "example":
            m = YAML_TEXT.match(line)
            if m:
                yield Quote(rel, n, m.group(1), kind)


def _python_quotes(rel: str, text: str, kind: str) -> Iterator[Quote]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        yield from _line_quotes(rel, text, kind)
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
            yield Quote(rel, node.lineno, value, kind)
            lines = value.splitlines()
            if len(lines) > 1:
                for k, part in enumerate(lines):
                    yield Quote(rel, node.lineno + k, part, kind)
    # quotes inside comments and docstrings: “..” and the like on each line
    for n, line in enumerate(text.splitlines(), 1):
        if "#" in line or "\u201c" in line:
            for m in QUOTED.finditer(line):
                yield Quote(rel, n, next(g for g in m.groups() if g), kind)


def quotes_of(root: Path, rel: str) -> Iterator[Quote]:
    path = root / rel
    if not path.is_file() or path.suffix not in (".py", ".md", ".yaml", ".yml", ".txt",
                                                 ".toml", ".json", ".tsv", ".sh"):
        return
    try:
        text = _read_bounded(path)
    except OSError:
        return
    kind = _kind(rel)
    if path.suffix == ".py":
        yield from _python_quotes(rel, text, kind)
    else:
        yield from _line_quotes(rel, text, kind)


def segments(text: str, min_sentence: int = 6) -> list[list[str]]:
    """The quote, the quote without a role prefix ("Reply: ..."), and each sentence of
    it: a copied sentence counts whole whatever our own string puts around it. A sentence
    of a longer string counts only from ``min_sentence`` words: a short stock sentence
    ("Thanks for the report.") inside our own text is everybody's phrase, and a longer
    run of it still fails from the run limit."""
    whole = [text, ROLE_PREFIX.sub("", text, count=1)]
    sentences = SENTENCE_END.split(text)
    parts = list(whole)
    for sentence in sentences if len(sentences) > 1 else []:
        parts += [sentence, ROLE_PREFIX.sub("", sentence, count=1)]
    out: list[list[str]] = []
    for i, part in enumerate(parts):
        w = words_of(part)
        # a template heading stays a segment of its own: it is then the template's
        least = SEED if i < len(whole) or " ".join(w) in TEMPLATE_HEADINGS \
            else max(SEED, min_sentence)
        if len(w) >= least and w not in out:
            out.append(w)
    return out


def hit_of(q: Quote, index: CacheIndex) -> Hit | None:
    words = words_of(q.text)
    if len(words) < SEED:
        return None
    best: Hit | None = None
    for seg in segments(q.text):
        where = index.where(seg) if tuple(seg[:SEED]) in index.grams else None
        if where is not None and (best is None or len(seg) > best.words):
            # a template heading at the head of our own text is the template's
            software = is_software(q.text) or " ".join(seg) in TEMPLATE_HEADINGS
            best = Hit(q, len(seg), True, where.kind, where.source, software)
    length, where = index.longest_run(words)
    if where is not None and (best is None or length > best.words):
        best = Hit(q, length, length == len(words), where.kind, where.source,
                   is_software(q.text))
    return best


def find_hits(root: Path, files: list[str], index: CacheIndex,
              limits: tuple[int, int, int]) -> list[Hit]:
    """Per line the worst hit: a failing one before the longest."""
    best: dict[tuple[str, int], Hit] = {}
    for rel in files:
        for q in quotes_of(root, rel):
            hit = hit_of(q, index)
            if hit is None:
                continue
            k = (q.path, q.line)
            old = best.get(k)
            if old is None or (hit.fails(*limits), hit.words) > (old.fails(*limits), old.words):
                best[k] = hit
    return sorted(best.values(), key=lambda h: (h.quote.path, h.quote.line))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--cache", action="append", metavar="PATH",
                   help="a cache folder (*.md, *.jsonl inside) or file; repeatable "
                        "(default: the caches listed below)")
    p.add_argument("--root", default=str(ROOT), help="repository to scan (default: %(default)s)")
    p.add_argument("--min-words", type=int, default=6,
                   help="a shared run this long fails anywhere (default: %(default)s)")
    p.add_argument("--min-example-words", type=int, default=4,
                   help="... and this long in a rule example or test string (default: "
                        "%(default)s)")
    p.add_argument("--min-run-words", type=int, default=8,
                   help="a run this long inside a longer string of ours fails (default: "
                        "%(default)s; shorter runs are mostly common phrases)")
    p.add_argument("--all", action="store_true",
                   help="list hits below the limits and software strings too")
    args = p.parse_args(argv)
    limits = (args.min_words, args.min_example_words, args.min_run_words)
    if min(limits) < SEED:
        p.error(f"--min-words, --min-example-words and --min-run-words must be at least {SEED}")
    root = Path(args.root)
    if not (root / ".git").exists():
        p.error(f"--root {root}: not a git repository (give the repository to scan)")
    texts = load_caches(args.cache or DEFAULT_CACHES)
    index = CacheIndex(texts)
    hits = find_hits(root, tracked_files(root), index, limits)
    failing = [h for h in hits if h.fails(*limits)]
    by_kind: dict[str, int] = {}
    for h in hits:
        if h in failing or args.all:
            tag = "FAIL" if h in failing else ("software" if h.software else "below")
            print(f"{h.quote.path}:{h.quote.line}: {h.words} words ({h.quote.kind}, "
                  f"{'whole' if h.whole else 'part'}) {tag} in {h.cache_kind} "
                  f"{h.source}: {h.quote.text.strip()[:100]!r}")
        if h in failing:
            by_kind[h.cache_kind] = by_kind.get(h.cache_kind, 0) + 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())) or "none"
    print(f"{len(texts)} cache texts; {len(hits)} quotes share words with them; "
          f"failing: {len(failing)} ({summary})")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
