"""Files named on a command line: read with an error that names the flag, the file and
the fix, and written atomically (a temporary file beside the target, then one rename),
so a failed or interrupted run never leaves half a file (issue #13).

Shell side, and the one place that turns ``OSError`` / ``UnicodeDecodeError`` about a
user's file into an ``InputError``: verbs call these instead of ``Path.read_text`` /
``write_text``, so no ``[Errno N]`` or traceback reaches the user.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentops import redaction
from agentops.errors import InputError

_UTF8_FIX = "save it as UTF-8 text (e.g. `iconv -f LATIN1 -t UTF-8 FILE > FILE.utf8`)"


def os_reason(exc: OSError) -> str:
    """What the OS said, in words: ``no such file or directory`` (never ``[Errno 2] …``
    with the path repeated)."""
    text = exc.strerror or type(exc).__name__
    return text[:1].lower() + text[1:]


def read_bytes(path: str | os.PathLike[str], *, field: str, fix: str | None = None,
               limit: int | None = None) -> bytes:
    """The bytes of a file the user named with ``field``; at most ``limit`` bytes."""
    p = Path(path)
    try:
        if p.is_dir():
            raise InputError(field, f"{path} is a folder, not a file",
                             fix="give the path of a file")
        # Security: a device or FIFO (`/dev/zero`, a named pipe) never ends; only a
        # regular file has a size worth reading. A named pipe is refused before it is
        # opened: opening one for reading waits for a writer that may never come.
        if not stat.S_ISREG(os.stat(p).st_mode):
            raise InputError(field, f"{path} is not a regular file",
                             fix=fix or "give the path of a regular file")
        with p.open("rb") as fh:
            # Checked again on what was opened: the path may have changed in between.
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise InputError(field, f"{path} is not a regular file",
                                 fix=fix or "give the path of a regular file")
            data = fh.read(-1 if limit is None else limit + 1)
    except FileNotFoundError as exc:
        raise InputError(field, f"{path}: no such file", fix=fix or "check the path") from exc
    except PermissionError as exc:
        raise InputError(field, f"{path}: permission denied",
                         fix=fix or "make the file readable by this user") from exc
    except OSError as exc:
        raise InputError(field, f"cannot read {path}: {os_reason(exc)}", fix=fix) from exc
    if limit is not None and len(data) > limit:
        raise InputError(field, f"{path} is larger than {limit} bytes, the most this reads",
                         fix=fix or "give a smaller file")
    return data


def read_text(path: str | os.PathLike[str], *, field: str, fix: str | None = None,
              limit: int | None = None) -> str:
    """The UTF-8 text of a file the user named with ``field``; a file in another
    encoding is an input error naming the first bad byte's line."""
    data = read_bytes(path, field=field, fix=fix, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(field, f"{path} is not UTF-8 text ({where_undecodable(data, exc)})",
                         fix=f"{fix}; {_UTF8_FIX}" if fix else _UTF8_FIX) from exc


def where_undecodable(data: bytes, exc: UnicodeDecodeError) -> str:
    """``line 2, column 1 is 0xe9``: where an editor shows the first bad byte, both
    counted from 1 (the column in characters of the line before it), never a raw offset
    counted from zero."""
    line_start = data.rfind(b"\n", 0, exc.start) + 1
    line = data.count(b"\n", 0, exc.start) + 1
    column = len(data[line_start:exc.start].decode("utf-8", errors="replace")) + 1
    return f"line {line}, column {column} is 0x{data[exc.start]:02x}"


def read_json(path: str | os.PathLike[str], *, field: str, expect: type = dict,
              fix: str | None = None, limit: int | None = None) -> Any:
    """A JSON document of the type ``expect`` (object or list) from a file the user
    named; syntax errors give the line and column, a wrong top-level type says what
    was found."""
    text = read_text(path, field=field, fix=fix, limit=limit)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(field, f"{path} is not valid JSON (line {exc.lineno}, column "
                                f"{exc.colno}: {exc.msg})", fix=fix) from exc
    except RecursionError as exc:
        raise InputError(field, f"{path} nests too deeply to read", fix=fix) from exc
    if not isinstance(doc, expect):
        raise InputError(field, f"{path} holds a JSON {json_kind(doc)}, not a JSON "
                                f"{json_kind(expect())}", fix=fix)
    return doc


def json_kind(value: Any) -> str:
    """``object``, ``list``, ``string``, ``number``, ``true/false`` or ``null``."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "true/false"
    return "null" if value is None else "number"


def shape_reason(exc: Exception) -> str:
    """Why a parsed document did not fit a record, in words rather than Python's
    (``'int' object is not subscriptable``, ``__init__() got an unexpected …``)."""
    text = str(exc)
    if isinstance(exc, KeyError):
        return f"missing key {exc.args[0]!r}" if exc.args else "a key is missing"
    m = re.search(r"unexpected keyword argument '([^']+)'", text)
    if m:
        return f"unknown key {m.group(1)!r}"
    m = re.search(r"missing \d+ required (?:positional|keyword-only) arguments?: (.+)$", text)
    if m:
        return "missing key(s) " + m.group(1).replace(" and ", ", ")
    return "a value has the wrong type or form (an object, list, text or number where " \
           "another kind was expected)"


_NOT_REGULAR = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                (stat.S_ISSOCK, "a socket"))


def _existing_kind(p: Path) -> str | None:
    """What is at ``p`` when it is not a regular file (the entry itself, a link not
    followed); None when nothing is there or a regular file is."""
    try:
        mode = os.lstat(p).st_mode
    except FileNotFoundError:
        return None
    except OSError:
        return None  # unreadable parent etc.: the write reports it in words
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    return next((name for test, name in _NOT_REGULAR if test(mode)), "not a regular file")


def check_writable(path: str | os.PathLike[str], *, field: str) -> Path:
    """Refuse, before anything is computed or written, an output path that cannot
    become a file: an existing folder, a folder that is a file, or one this user
    cannot write. Missing folders are fine: ``write_atomic`` creates them.

    Security (docs/security.md, "Outputs"): an existing path that is not a regular
    file is refused, never replaced and never written through: a symbolic link
    (dangling or not; ``/dev/stdout`` is one), a FIFO, a device (``/dev/null``), a
    socket. Replacing would swap the link or node for a file (as root, a system's
    ``/dev/stdout``); writing through would follow a link someone else placed."""
    p = Path(path)
    if not str(path).strip():
        raise InputError(field, "empty path", fix="give the path of the file to write")
    kind = _existing_kind(p)
    if kind == "a folder":
        raise InputError(field, f"{path} is a folder; this writes a file",
                         fix=f"give a file path, e.g. {p / 'out'}")
    if kind is not None:
        raise InputError(field, f"{path} is {kind}, not a regular file; agentops writes "
                                "a new file or replaces a regular one, never anything else",
                         fix="give the path of a new or regular file (to see the output "
                             "on the terminal, leave the flag out)")
    _check_ancestor(p.parent, path, field)
    return p


def _check_ancestor(folder: Path, path: str | os.PathLike[str], field: str) -> None:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(field, f"cannot write {path}: {folder} is a file, not a folder",
                         fix="give a path whose folders are folders (missing ones are "
                             "created)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(field, f"cannot write {path}: permission denied on {folder}",
                         fix="give a path in a folder this user may write")


def check_folder(path: str | os.PathLike[str], *, field: str) -> Path:
    """Refuse an output folder that is a file (or under one); missing ones are fine."""
    p = Path(path)
    if not str(path).strip():
        raise InputError(field, "empty path", fix="give the folder to write into")
    if p.exists() and not p.is_dir():
        raise InputError(field, f"{path} is a file; this writes into a folder",
                         fix="give a folder (it is created when missing)")
    _check_ancestor(p, path, field)
    return p


def _mode(target: Path) -> int:
    # mkstemp makes 0600 files; the result should look like any file this user writes.
    with contextlib.suppress(OSError):
        return stat.S_IMODE(target.stat().st_mode)
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, field: str) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` all at once or not at all; folders
    on the way are created; registered secrets are scrubbed (``agentops.redaction``).
    Errors name ``field`` and the file."""
    p = check_writable(path, field=field)
    # Security: a file is output too; a secret a server echoed never lands in one.
    raw = (redaction.scrub(data).encode("utf-8") if isinstance(data, str)
           else redaction.scrub_bytes(data))
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise InputError(field, f"cannot write {path}: {os_reason(exc)}",
                         fix="give a path in a folder this user may write") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.chmod(tmp, _mode(p))
        # Security: checked again just before the rename, which would replace a link
        # or node put there meanwhile.
        check_writable(p, field=field)
        os.replace(tmp, p)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(field, f"cannot write {path}: {os_reason(exc)}; nothing was "
                                    "written", fix="free space or pick another path") from exc
        raise
    return p


def write_all(files: Iterable[tuple[str | os.PathLike[str], str | bytes, str]]) -> None:
    """Several files that belong together (an artifact and its hash): every path is
    checked first, so a bad second path does not leave the first one written."""
    todo = list(files)
    for path, _, field in todo:
        check_writable(path, field=field)
    for path, data, field in todo:
        write_atomic(path, data, field=field)
