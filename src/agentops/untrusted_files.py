"""Reading files whose names, types and sizes someone else chose: a checkout of another
repository, a directory of earlier reports, an installed package.

The rules (docs/security.md): only regular files are read (never a FIFO, a device such
as ``/dev/zero``, or a socket); a symbolic link is never followed, so nothing outside
the tree can be reached through one; every read is bounded in bytes (a file larger than
the cap is refused, not truncated, since half a file parses into wrong facts); a walk
never descends into a linked directory and stops after a bounded number of entries.

Adapter side: the only I/O is the reads themselves.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agentops import files

MAX_FILE_BYTES = 4 * 1024 * 1024  # the largest source file a scout analysis reads
MAX_WALK_ENTRIES = 200_000  # directory entries one walk looks at


class RefusedFile(Exception):
    """A file that is not read, and why (in words for a report line)."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


def _inside(root: Path, path: Path) -> None:
    """Refuse ``path`` unless every component below ``root`` is a plain directory or,
    for the last one, not a link (a component may be a symlink even if the final
    target would look fine)."""
    try:
        rel = path.relative_to(root)
    except ValueError as exc:
        raise RefusedFile(path, "outside the directory being read") from exc
    current = root
    for part in rel.parts:
        if part in ("", ".", ".."):
            raise RefusedFile(path, "not a plain relative path")
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except OSError as exc:
            raise RefusedFile(path, f"cannot stat: {exc.strerror}") from exc
        if stat.S_ISLNK(mode):
            raise RefusedFile(path, "a symbolic link (never followed)")


def read_bytes(path: str | Path, *, max_bytes: int = MAX_FILE_BYTES,
               root: str | Path | None = None) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``. With ``root``, the path
    must lie under it with no symbolic link on the way. Raises ``RefusedFile``."""
    path = Path(path)
    if root is not None:
        _inside(Path(root), path)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if os.path.islink(path):
            raise RefusedFile(path, "a symbolic link (never followed)") from exc
        raise RefusedFile(path, f"cannot open: {exc.strerror}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(path, "not a regular file")
        if info.st_size > max_bytes:
            raise RefusedFile(path, f"{info.st_size:,} bytes, over the {max_bytes:,}-byte cap")
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:  # it grew while being read
            raise RefusedFile(path, f"over the {max_bytes:,}-byte cap")
        return b"".join(chunks)
    except OSError as exc:
        raise RefusedFile(path, f"cannot read: {exc.strerror}") from exc
    finally:
        os.close(fd)


def read_text(path: str | Path, *, max_bytes: int = MAX_FILE_BYTES,
              root: str | Path | None = None, strict: bool = False) -> str:
    """``read_bytes`` decoded as UTF-8 (undecodable bytes replaced; with ``strict``,
    refused instead)."""
    data = read_bytes(path, max_bytes=max_bytes, root=root)
    try:
        return data.decode("utf-8", errors="strict" if strict else "replace")
    except UnicodeDecodeError as exc:
        raise RefusedFile(path, f"not UTF-8 text ({files.where_undecodable(data, exc)})") \
            from exc


@dataclass(frozen=True)
class Walk:
    """The regular files a walk found, and what it passed over."""

    files: tuple[Path, ...]
    refused: tuple[RefusedFile, ...] = ()
    truncated: bool = False  # stopped at ``MAX_WALK_ENTRIES``


def walk(root: str | Path, *, suffix: str = "", max_entries: int = MAX_WALK_ENTRIES,
         recursive: bool = True) -> Walk:
    """Regular files under ``root`` (only directly in it unless ``recursive``) whose
    name ends with ``suffix``, sorted; linked files and directories are listed as
    refused and never entered or read."""
    root = Path(root)
    files: list[Path] = []
    refused: list[RefusedFile] = []
    seen = 0
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > max_entries:
                return Walk(tuple(sorted(files)), tuple(refused), truncated=True)
            if entry.is_symlink():
                if entry.name.endswith(suffix):
                    refused.append(RefusedFile(entry.path, "a symbolic link (never followed)"))
                continue
            if entry.is_dir(follow_symlinks=False):
                if recursive:
                    stack.append(Path(entry.path))
            elif entry.name.endswith(suffix):
                if entry.is_file(follow_symlinks=False):
                    files.append(Path(entry.path))
                else:
                    refused.append(RefusedFile(entry.path, "not a regular file"))
    return Walk(tuple(sorted(files)), tuple(refused))
