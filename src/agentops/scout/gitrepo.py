"""Adapter: the only module that runs ``git`` for the scout. Reads a checkout's
history and blobs through ``git`` subprocesses and hands the pure analyses plain
strings and frozen records.

Reads only: never checks out, fetches, or writes to the repository. Blobs, not the
working tree, so a link in the checkout cannot lead outside it. Every blob is bounded
(``MAX_BLOB_BYTES`` each, ``MAX_TREE_BYTES`` per tree): the repository is someone
else's, and a committed 3 GB file must not be read into memory to look for TODOs.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentops.errors import InputError
from agentops.untrusted_files import MAX_FILE_BYTES

MAX_BLOB_BYTES = MAX_FILE_BYTES
MAX_TREE_BYTES = 256 * 1024 * 1024  # all the text one tree loads (torchtitan: 6 MB)
# The longest Python file any analysis reads, in characters: the one place the cap lives.
# The blob cap lets a 4 MiB file in; parsing one takes seconds and its tree hundreds of
# megabytes, and tokenizing or pattern-scanning it is as costly. No real source file
# comes near (torchtitan's longest: under 100,000). A longer one is left out of the tree's
# files (and of ``history``) and listed in ``skipped`` with the reason -- whole, never cut
# short into a parse of its first part -- so no analysis sees it and the report counts it.
MAX_PYTHON_CHARS = 400_000
GIT_TIMEOUT = 600.0  # seconds for one git command on a large history
_LINK, _SUBMODULE = "120000", "160000"


@dataclass(frozen=True)
class Commit:
    """One commit from ``git log`` (S-1)."""

    sha: str
    date: str  # committer date, YYYY-MM-DD (UTC)
    subject: str
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class Tree:
    """The files of one commit the analyses need: every path, and the text of the
    files that were asked for (missing or binary blobs are simply absent)."""

    commit: str
    paths: frozenset[str]
    files: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    # Wanted paths whose text was not loaded, and why (a link, too large, binary).
    skipped: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    # Derived indexes the analyses share (parsed references, config classes), per tree.
    cache: dict[object, Any] = field(default_factory=dict, hash=False, compare=False,
                                     repr=False)

    def __post_init__(self) -> None:
        # A tree built by hand (tests, ``patches``) keeps the same cap as a loaded one.
        over = {p: why for p, t in self.files.items() if (why := python_over_cap(p, t))}
        if over:
            object.__setattr__(self, "files", {p: t for p, t in self.files.items()
                                               if p not in over})
            object.__setattr__(self, "skipped", {**self.skipped, **over})

    def text(self, path: str) -> str | None:
        """The text of ``path`` at this commit, or ``None`` when not loaded/absent."""
        return self.files.get(path)


def python_over_cap(path: str, text: str) -> str | None:
    """Why a Python file's text is too long for any analysis to read (``None`` if it is
    not)."""
    if path.endswith(".py") and len(text) > MAX_PYTHON_CHARS:
        return (f"{len(text):,} characters, over the {MAX_PYTHON_CHARS:,}-character cap"
                " for Python source")
    return None


class GitRepo:
    """Read-only view of a git checkout."""

    def __init__(self, checkout: str | Path) -> None:
        self.root = Path(checkout)
        if not self.root.is_dir():
            raise InputError("--checkout", f"{checkout} is not a directory",
                             fix="pass the path of a git checkout of the target repository")
        try:
            self._git("rev-parse", "--git-dir")
        except InputError as exc:
            raise InputError("--checkout", f"{checkout} is not a git checkout",
                             fix="clone the target repository and pass its path") from exc

    def _git(self, *args: str, stdin: bytes | None = None) -> bytes:
        try:
            proc = subprocess.run(["git", "-C", str(self.root), *args], input=stdin,
                                  capture_output=True, check=False, timeout=GIT_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            raise InputError("--checkout", f"git {args[0]} took longer than "
                             f"{GIT_TIMEOUT:.0f} s", fix="check the checkout (a huge history or "
                             "a slow disk); a shallower --since helps") from exc
        if proc.returncode != 0:
            msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise InputError("--checkout", f"git {args[0]} failed: {msg[-1] if msg else ''}",
                             fix="check that the checkout is a complete git clone")
        return proc.stdout

    def head(self) -> str:
        """The full sha of HEAD."""
        return self._git("rev-parse", "HEAD").decode().strip()

    def commit_before(self, date: str) -> str | None:
        """The last commit on HEAD's first-parent line before ``date`` 00:00 UTC."""
        out = self._git("rev-list", "-1", "--first-parent", f"--before={date}T00:00:00Z",
                        "HEAD").decode().strip()
        return out or None

    def is_ancestor(self, sha: str) -> bool:
        """Whether ``sha`` exists here and is an ancestor of (or equal to) HEAD."""
        proc = subprocess.run(["git", "-C", str(self.root), "merge-base", "--is-ancestor",
                               sha, "HEAD"], capture_output=True, check=False)
        return proc.returncode == 0

    def log(self, since: str, paths: list[str], *, base: str | None = None) -> list[Commit]:
        """Commits on HEAD touching ``paths``, newest first: after ``base`` when given
        (exact), else since ``since`` 00:00 UTC."""
        window = [f"{base}..HEAD"] if base else [f"--since={since}T00:00:00Z", "HEAD"]
        out = self._git("log", "--first-parent", "--name-only",
                        "--format=%x1e%H%x1f%cd%x1f%s", "--date=format-local:%Y-%m-%d",
                        *window, "--", *paths).decode("utf-8", "replace")
        commits = []
        for record in out.split("\x1e")[1:]:
            head, _, names = record.partition("\n")
            sha, date, subject = head.split("\x1f", 2)
            files = tuple(n for n in names.splitlines() if n.strip())
            commits.append(Commit(sha=sha, date=date, subject=subject, files=files))
        return commits

    def files_of(self, shas: list[str]) -> dict[str, tuple[str, ...]]:
        """Every file each commit changed (one ``git log --no-walk`` for all)."""
        if not shas:
            return {}
        out = self._git("log", "--no-walk=unsorted", "--name-only", "--format=%x1e%H",
                        *shas).decode("utf-8", "replace")
        files: dict[str, tuple[str, ...]] = {}
        for record in out.split("\x1e")[1:]:
            sha, _, names = record.partition("\n")
            files[sha.strip()] = tuple(n for n in names.splitlines() if n.strip())
        return files

    def tree(self, commit: str, want: Callable[[str], bool]) -> Tree:
        """The paths of ``commit`` and the text of the regular files ``want`` selects
        (links and submodules are listed in ``skipped``, never read)."""
        entries = self._git("ls-tree", "-r", "-z", commit).decode("utf-8", "replace")
        paths: set[str] = set()
        wanted: list[str] = []
        skipped: dict[str, str] = {}
        for entry in entries.split("\0"):
            meta, tab, path = entry.partition("\t")
            if not tab:
                continue
            paths.add(path)
            if not want(path):
                continue
            mode = meta.split(" ", 1)[0]
            if mode == _LINK:
                skipped[path] = "a symbolic link (never followed)"
            elif mode == _SUBMODULE:
                skipped[path] = "a submodule, not a file"
            else:
                wanted.append(path)
        files, too_big = self._load(commit, sorted(wanted))
        skipped.update(too_big)
        return Tree(commit=commit, paths=frozenset(paths), files=files, skipped=skipped)

    def history(self, commits: list[Commit], paths: set[str]
                ) -> dict[str, tuple[tuple[str, str], ...]]:
        """For each path, its text at every commit (of ``commits``) that touched it,
        oldest first; one ``cat-file --batch`` per commit."""
        out: dict[str, list[tuple[str, str]]] = {}
        for c in reversed(commits):  # commits come newest first
            touched = sorted(paths & set(c.files))
            for path, text in self._load(c.sha, touched)[0].items():
                out.setdefault(path, []).append((c.sha, text))
        return {k: tuple(v) for k, v in out.items()}

    def _load(self, commit: str, paths: list[str]) -> tuple[dict[str, str], dict[str, str]]:
        """(text by path, reason by path) for the regular blobs at ``commit``: sizes first
        (``cat-file --batch-check``), then one ``cat-file --batch`` for the blobs within
        the caps, so an oversized blob is never read."""
        if not paths:
            return {}, {}
        stdin = "".join(f"{commit}:{p}\n" for p in paths).encode()
        checks = self._git("cat-file", "--batch-check", stdin=stdin).decode(
            "utf-8", "replace").splitlines()
        skipped: dict[str, str] = {}
        small: list[str] = []
        budget = MAX_TREE_BYTES
        for path, line in zip(paths, checks, strict=False):
            parts = line.split()
            if len(parts) != 3 or parts[1] != "blob":
                continue  # missing at this commit, or not a file
            size = int(parts[2])
            if size > MAX_BLOB_BYTES:
                skipped[path] = f"{size:,} bytes, over the {MAX_BLOB_BYTES:,}-byte cap"
            elif size > budget:
                skipped[path] = f"the {MAX_TREE_BYTES:,}-byte budget for one tree is used up"
            else:
                budget -= size
                small.append(path)
        files: dict[str, str] = {}
        for path, blob in zip(small, self._cat(commit, small), strict=True):
            if blob is None:
                continue
            if b"\0" in blob[:8000]:
                skipped[path] = "binary content"
                continue
            text = blob.decode("utf-8", "replace")
            if why := python_over_cap(path, text):
                skipped[path] = why
                continue
            files[path] = text
        return files, skipped

    def _cat(self, commit: str, paths: list[str]) -> list[bytes | None]:
        # One `cat-file --batch` for all blobs: one process instead of one per file.
        if not paths:
            return []
        stdin = "".join(f"{commit}:{p}\n" for p in paths).encode()
        out = self._git("cat-file", "--batch", stdin=stdin)
        blobs: list[bytes | None] = []
        pos = 0
        for _path in paths:
            nl = out.index(b"\n", pos)
            header = out[pos:nl].decode("utf-8", "replace")
            pos = nl + 1
            if header.endswith(" missing") or len(header.split()) != 3:
                blobs.append(None)
                continue
            size = int(header.rsplit(" ", 1)[1])
            blobs.append(out[pos:pos + size])
            pos += size + 1
        return blobs
