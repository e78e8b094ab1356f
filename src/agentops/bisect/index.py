"""Simple-index pages (PEP 503 HTML, PEP 691 JSON) → the nightly wheels of one package,
one per version, chosen by CPython tag and platform (S-10a).

Pure: parses text the adapter fetched; never opens a socket or a file. Versions are
``packaging`` versions (``2.9.0.dev20250709+cu126``); their ``dev`` number is the date.
"""

from __future__ import annotations

import datetime as dt
import html.parser
import json
import re
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from agentops.errors import DataError, InputError

# The index only keeps about this many nightlies per package listed (older ones are
# deleted), so a date older than the oldest listed one is gone, not mistyped.
RETENTION_HINT = 60
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_TYPE = "application/vnd.pypi.simple.v1+html"
ACCEPT = f"{JSON_TYPE}, {HTML_TYPE};q=0.2, text/html;q=0.01"


@dataclass(frozen=True)
class FileLink:
    """One file listed on a project page."""

    filename: str
    url: str  # absolute, fragment (hash) removed
    hashes: Mapping[str, str] = field(default_factory=dict)
    yanked: bool = False


@dataclass(frozen=True)
class Nightly:
    """One nightly version and the wheel chosen for it."""

    version: Version
    wheel: FileLink
    tag: str  # e.g. cp312-cp312-manylinux_2_28_x86_64

    @property
    def date(self) -> dt.date | None:
        return dev_date(self.version)

    @property
    def variant(self) -> str | None:
        """The local part (``cu126``, ``cpu``, ``rocm6.4``), if any."""
        return self.version.local

    def to_json(self) -> dict[str, Any]:
        date = self.date
        return {"version": str(self.version), "date": date.isoformat() if date else None,
                "wheel_url": self.wheel.url, "filename": self.wheel.filename, "tag": self.tag}


class _Anchors(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.anchors: list[tuple[dict[str, str | None], str]] = []
        self.base: str | None = None
        self._open: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "base" and self.base is None:
            self.base = dict(attrs).get("href")
        elif tag == "a":
            self._open, self._text = dict(attrs), []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open is not None:
            self.anchors.append((self._open, "".join(self._text).strip()))
            self._open = None


def _split_url(base: str, href: str) -> tuple[str, dict[str, str]]:
    url = urllib.parse.urljoin(base, href)
    url, _, frag = url.partition("#")
    hashes = {}
    if "=" in frag:
        algo, _, digest = frag.partition("=")
        hashes[algo] = digest
    return url, hashes


def parse_html(text: str, base_url: str) -> list[FileLink]:
    """The files of a PEP 503 project page; hrefs may be relative, root-absolute or
    full URLs, and ``+`` arrives ``%2B``-encoded."""
    parser = _Anchors()
    parser.feed(text)
    base = urllib.parse.urljoin(base_url, parser.base) if parser.base else base_url
    out = []
    for attrs, text_ in parser.anchors:
        href = attrs.get("href")
        if not href:
            continue
        url, hashes = _split_url(base, href)
        name = text_ or urllib.parse.unquote(url.rsplit("/", 1)[-1])
        out.append(FileLink(filename=name, url=url, hashes=hashes,
                            yanked="data-yanked" in attrs))
    return out


def parse_json(text: str, base_url: str) -> list[FileLink]:
    """The files of a PEP 691 project page (``meta.api-version`` 1.x)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(base_url, "", f"not JSON although served as {JSON_TYPE}: {exc}") from exc
    version = str((doc.get("meta") or {}).get("api-version", "")) if isinstance(doc, dict) else ""
    if not version.startswith("1."):
        raise DataError(base_url, "meta.api-version",
                        f"expected a 1.x simple API page, got {version or 'none'!r}")
    out = []
    for i, f in enumerate(doc.get("files") or []):
        if not isinstance(f, dict) or not f.get("filename") or not f.get("url"):
            raise DataError(base_url, f"files[{i}]", "a file needs `filename` and `url`")
        url, frag = _split_url(base_url, str(f["url"]))
        hashes = {str(k): str(v) for k, v in (f.get("hashes") or frag).items()}
        out.append(FileLink(filename=str(f["filename"]), url=url, hashes=hashes,
                            yanked=bool(f.get("yanked"))))
    return out


def parse_page(text: str, content_type: str, base_url: str) -> list[FileLink]:
    """Dispatch on the served media type (the server decides after content negotiation)."""
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind == JSON_TYPE or kind.endswith("+json") or kind == "application/json":
        return parse_json(text, base_url)
    return parse_html(text, base_url)


def python_tag(python: str) -> str:
    """``3.12`` / ``312`` / ``cp312`` → ``cp312``."""
    raw = python.strip().lower().removeprefix("cp").removeprefix("py")
    m = re.fullmatch(r"(\d)\.?(\d+)", raw)
    if not m:
        raise InputError("--python", f"not a CPython version: {python!r}",
                         fix="give e.g. 3.12 (or cp312)")
    return f"cp{m.group(1)}{m.group(2)}"


def dev_date(version: Version) -> dt.date | None:
    """The date of a nightly version (``.devYYYYMMDD``), or None."""
    if version.dev is None:
        return None
    try:
        return dt.datetime.strptime(str(version.dev), "%Y%m%d").date()
    except ValueError:
        return None


def _platforms(platform: str) -> set[str]:
    # manylinux2014 is an alias of manylinux_2_17 (PEP 600); accept either spelling.
    alias = {"manylinux2014": "manylinux_2_17", "manylinux2010": "manylinux_2_12",
             "manylinux1": "manylinux_2_5"}
    out = {platform}
    for old, new in alias.items():
        if platform.startswith(old + "_"):
            out.add(new + platform[len(old):])
        if platform.startswith(new + "_"):
            out.add(old + platform[len(new):])
    return out


def select(links: Iterable[FileLink], *, package: str, python: str,
           platform: str) -> list[Nightly]:
    """One wheel per version for ``python`` (e.g. ``3.12``) on ``platform``, oldest
    first. The plain ABI (``cp312``) wins over free-threaded (``cp312t``); yanked files
    and sdists are skipped."""
    want_py = python_tag(python)
    plats = _platforms(platform)
    name = canonicalize_name(package)
    best: dict[Version, tuple[int, Nightly]] = {}
    for link in links:
        if link.yanked or not link.filename.endswith(".whl"):
            continue
        try:
            wname, version, _build, tags = parse_wheel_filename(link.filename)
        except (InvalidWheelFilename, InvalidVersion):
            continue
        if wname != name:
            continue
        for tag in tags:
            if tag.interpreter != want_py or tag.platform not in plats:
                continue
            rank = {want_py: 0, "abi3": 1}.get(tag.abi, 2)
            cand = Nightly(version=version, wheel=link,
                           tag=f"{tag.interpreter}-{tag.abi}-{tag.platform}")
            if version not in best or rank < best[version][0]:
                best[version] = (rank, cand)
    return [best[v][1] for v in sorted(best)]


def available_tags(links: Iterable[FileLink]) -> list[str]:
    """The distinct ``python-platform`` pairs on a page (for the "no wheel" message)."""
    out: set[str] = set()
    for link in links:
        try:
            _n, _v, _b, tags = parse_wheel_filename(link.filename)
        except (InvalidWheelFilename, InvalidVersion):
            continue
        out.update(f"{t.interpreter}/{t.platform}" for t in tags)
    return sorted(out)


_DATE_RE = re.compile(r"^(?:dev)?(\d{4})-?(\d{2})-?(\d{2})$")


def parse_date(text: str) -> dt.date | None:
    """``dev20260709`` / ``20260709`` / ``2026-07-09`` → a date; None if not a date."""
    m = _DATE_RE.match(text.strip().lower())
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def find(nightlies: Sequence[Nightly], spec: str, *, field_name: str = "--version") -> int:
    """The index in ``nightlies`` of a version given as a full version (with or without
    the ``+local`` part) or as a date; raises a clear InputError when it is not listed
    (and says when it is older than what the index keeps)."""
    if not nightlies:
        raise InputError(field_name, "the index lists no nightly for this package/tag/platform")
    date = parse_date(spec)
    if date is not None:
        hits = [i for i, n in enumerate(nightlies) if n.date == date]
    else:
        try:
            want = Version(spec.strip())
        except InvalidVersion as exc:
            raise InputError(field_name, f"neither a version nor a date: {spec!r}",
                             fix="give e.g. 2.9.0.dev20250709+cu126, dev20250709 or "
                                 "2025-07-09") from exc
        hits = [i for i, n in enumerate(nightlies)
                if n.version == want or (want.local is None and n.version.public == want.public)]
        date = dev_date(want)
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        listed = ", ".join(str(nightlies[i].version) for i in hits)
        raise InputError(field_name, f"{spec!r} matches several nightlies: {listed}",
                         fix="give the full version")
    oldest, newest = nightlies[0], nightlies[-1]
    span = f"the index lists {len(nightlies)} nightlies, {oldest.version} … {newest.version}"
    if date is not None and oldest.date is not None and date < oldest.date:
        raise InputError(field_name, f"{spec!r} is gone from the index: {span}; it keeps only "
                         f"about the newest {RETENTION_HINT} nightlies per package",
                         fix="pick a good/bad pair inside the listed window (run `versions`), "
                             "or resolve the commit from the nightly branch (--nightly-branch)")
    raise InputError(field_name, f"{spec!r} is not on the index: {span}",
                     fix="run `versions` to see what is listed (a nightly may be missing "
                         "for one day, or built for other Python tags only)")


def within(nightlies: Sequence[Nightly], *, since: dt.date | None,
           until: dt.date | None) -> list[Nightly]:
    """The nightlies dated between ``since`` and ``until`` (inclusive)."""
    out = []
    for n in nightlies:
        d = n.date
        if since and (d is None or d < since):
            continue
        if until and (d is None or d > until):
            continue
        out.append(n)
    return out


_INSTALLED_RE = re.compile(r"Successfully installed (.+)$", re.MULTILINE)


def version_from_log(text: str, package: str = "torch") -> str | None:
    """The version pip reported installing (``Successfully installed … torch-V``) in a
    CI log; the last such line wins (S-3b). None if the log has none."""
    prefix = canonicalize_name(package) + "-"
    found = None
    for m in _INSTALLED_RE.finditer(text):
        for token in m.group(1).split():
            name, _, version = token.rpartition("-")
            if canonicalize_name(name) + "-" != prefix:
                continue
            try:
                found = str(Version(version))
            except InvalidVersion:
                continue
    return found
