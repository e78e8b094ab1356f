"""Simple-index pages (PEP 503 HTML, PEP 691 JSON) → the nightly wheels of one package,
one per version, chosen by CPython tag and platform (S-10a).

Pure: parses text the adapter fetched; never opens a socket or a file. Versions are
``packaging`` versions (``2.9.0.dev20250709+cu126``); their ``dev`` number is the date.
"""

from __future__ import annotations

import datetime as dt
import html
import re
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from packaging import tags as pep425
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from agentops import flag_values
from agentops.errors import DataError, InputError
from agentops.http import loads_bounded, redact, short

# The index only keeps about this many nightlies per package listed (older ones are
# deleted), so a date older than the oldest listed one is gone, not mistyped.
RETENTION_HINT = 60
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_TYPE = "application/vnd.pypi.simple.v1+html"
ACCEPT = f"{JSON_TYPE}, {HTML_TYPE};q=0.2, text/html;q=0.01"
# Sanity: the torch page of a nightly index is ~0.5 MB with ~1,500 files; a page past
# these is hostile or not a project page (the adapter also caps its bytes).
MAX_LINKS = 100_000
MAX_JSON_DEPTH = 16
LISTED = 12  # names or tags shown in one message


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


# A PEP 503 page is a list of anchors. It is scanned for its <a> and <base> tags with
# linear regular expressions instead of html.parser, which takes minutes on 16 MiB of
# hostile markup ("<<<<…") and gigabytes on one tag with millions of attributes.
_TAG = re.compile(r"<(a|base)(?=[\s/>])([^<>]{0,8192})>", re.IGNORECASE)
_ATTR = re.compile(r"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""")
_CLOSE = re.compile(r"</a\s*>", re.IGNORECASE)
_INNER_TAG = re.compile(r"<[^<>]*>")
MAX_ANCHOR_TEXT = 4096


def _without_comments(text: str) -> str:
    out, pos = [], 0
    while (start := text.find("<!--", pos)) >= 0:
        out.append(text[pos:start])
        end = text.find("-->", start + 4)
        if end < 0:
            return "".join(out)  # an unclosed comment runs to the end, as in a browser
        pos = end + 3
    out.append(text[pos:])
    return "".join(out)


def _attrs(raw: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _ATTR.finditer(raw):
        value = next((v for v in m.group(2, 3, 4) if v is not None), "")
        out.setdefault(m.group(1).lower(), html.unescape(value))
    return out


def _anchors(text: str) -> tuple[str | None, list[tuple[dict[str, str], str]]]:
    """(the first <base href>, every <a>'s attributes and text) of a page."""
    base: str | None = None
    anchors = []
    text = _without_comments(text)
    for m in _TAG.finditer(text):
        attrs = _attrs(m.group(2))
        if m.group(1).lower() == "base":
            base = attrs.get("href") if base is None else base
            continue
        close = _CLOSE.search(text, m.end(), m.end() + MAX_ANCHOR_TEXT)
        inner = text[m.end():close.start()] if close else ""
        label = html.unescape(_INNER_TAG.sub("", inner)).strip()
        anchors.append((attrs, label))
        if len(anchors) > MAX_LINKS:
            raise _TooMany
    return base, anchors


class _TooMany(Exception):
    """More anchors than a project page holds: stop parsing."""


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
    try:
        page_base, anchors = _anchors(text)
    except _TooMany:
        raise _too_many(base_url) from None
    base = urllib.parse.urljoin(base_url, page_base) if page_base else base_url
    out = []
    for attrs, text_ in anchors:
        href = attrs.get("href")
        if not href:
            continue
        url, hashes = _split_url(base, href)
        name = text_ or urllib.parse.unquote(url.rsplit("/", 1)[-1])
        out.append(FileLink(filename=name, url=url, hashes=hashes,
                            yanked="data-yanked" in attrs))
    return out


def _too_many(base_url: str) -> DataError:
    return DataError(redact(base_url), "", f"more than {MAX_LINKS:,} files on one project "
                     "page: not a project page this reader accepts",
                     fix="check --index-url (it must be a simple index, e.g. "
                         "https://download.pytorch.org/whl/nightly/cpu)")


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def parse_json(text: str, base_url: str) -> list[FileLink]:
    """The files of a PEP 691 project page (``meta.api-version`` 1.x), every field
    this reader uses checked for its type (a wrong one is a DataError naming it)."""
    where = redact(base_url)
    try:
        doc = loads_bounded(text, max_depth=MAX_JSON_DEPTH)
    except ValueError as exc:
        raise DataError(where, "", f"not JSON although served as {JSON_TYPE}: "
                        f"{short(str(exc), 200)}") from exc

    def bad(key: str, want: str, got: Any) -> DataError:
        return DataError(where, key, f"expected {want}, got {_kind(got)}",
                         fix="the index does not follow PEP 691; report it, or use its HTML "
                             "page")

    if not isinstance(doc, dict):
        raise bad("(top level)", "an object", doc)
    meta = doc.get("meta")
    if not isinstance(meta, dict):
        raise bad("meta", "an object", meta)
    version = meta.get("api-version")
    if not isinstance(version, str):
        raise bad("meta.api-version", "a string such as \"1.1\"", version)
    if not version.startswith("1."):
        raise DataError(where, "meta.api-version",
                        f"expected a 1.x simple API page, got {short(version, 40)!r}")
    files = doc.get("files")
    if not isinstance(files, list):
        raise bad("files", "a list", files)
    if len(files) > MAX_LINKS:
        raise _too_many(base_url)
    out = []
    for i, f in enumerate(files):
        key = f"files[{i}]"
        if not isinstance(f, dict):
            raise bad(key, "an object", f)
        for name in ("filename", "url"):
            if not isinstance(f.get(name), str) or not f[name]:
                raise DataError(where, key, "a file needs `filename` and `url` as non-empty "
                                f"strings; its `{name}` is {_kind(f.get(name))}")
        hashes = f.get("hashes", {})
        if not isinstance(hashes, dict) or not all(isinstance(v, str) for v in hashes.values()):
            raise bad(f"{key}.hashes", "an object of hex strings", hashes)
        yanked = f.get("yanked", False)
        if not isinstance(yanked, (bool, str)):
            raise bad(f"{key}.yanked", "a boolean or a reason string", yanked)
        url, frag = _split_url(base_url, f["url"])
        out.append(FileLink(filename=f["filename"], url=url, hashes=dict(hashes or frag),
                            yanked=yanked is True or isinstance(yanked, str)))
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
        raise InputError("--python", f"not a CPython version: {short(python, 40)!r}",
                         fix="give e.g. 3.12 (or cp312)")
    return f"cp{m.group(1)}{m.group(2)}"


def _python_version(python: str) -> tuple[int, int]:
    tag = python_tag(python)
    return int(tag[2]), int(tag[3:])


def dev_date(version: Version) -> dt.date | None:
    """The date of a nightly version (``.devYYYYMMDD``), or None."""
    if version.dev is None:
        return None
    try:
        return dt.datetime.strptime(str(version.dev), "%Y%m%d").date()
    except ValueError:
        return None


# --- which wheel pip would take -----------------------------------------------------------

_LEGACY = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
_LEGACY_GLIBC = {v: k for k, v in _LEGACY.items()}


def compatible_platforms(platform: str) -> list[str]:
    """The platform tags pip accepts on a system described by ``platform``, most
    preferred first: ``manylinux_2_28_x86_64`` is a glibc 2.28 x86-64 system, which
    takes manylinux_2_28 … manylinux_2_5 wheels (with their legacy names
    manylinux2014, manylinux2010, manylinux1 at 2.17, 2.12, 2.5) and then
    linux_x86_64, in packaging's order; ``macosx_14_0_arm64`` takes older macOS
    versions and universal2; anything else is taken as given."""
    plat = platform.strip()
    legacy = re.fullmatch(r"(manylinux2014|manylinux2010|manylinux1)_(\w+)", plat)
    m = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", plat)
    if legacy:
        major, minor, arch = 2, _LEGACY_GLIBC[legacy.group(1)], legacy.group(2)
    elif m:
        major, minor, arch = int(m.group(1)), int(m.group(2)), m.group(3)
    else:
        mac = re.fullmatch(r"macosx_(\d+)_(\d+)_(\w+)", plat)
        if mac:
            return list(pep425.mac_platforms((int(mac.group(1)), int(mac.group(2))),
                                             mac.group(3)))
        return [plat]
    out = [] if major == 2 else [plat]
    if major == 2:
        # glibc below 2.5 (x86) or 2.17 (every other architecture) has no manylinux tag.
        lowest = 5 if arch in ("x86_64", "i686") else 17
        for glibc_minor in range(minor, lowest - 1, -1):
            out.append(f"manylinux_2_{glibc_minor}_{arch}")
            if glibc_minor in _LEGACY:
                out.append(f"{_LEGACY[glibc_minor]}_{arch}")
    out.append(f"linux_{arch}")
    return out


def supported_tags(python: str, platform: str) -> dict[pep425.Tag, int]:
    """pip's tags for CPython ``python`` on ``platform``, each with its preference
    (0 = most preferred): ``cp312-cp312-*``, then ``cp312-abi3-*``, ``cp312-none-*``,
    older abi3, then the pure-Python tags."""
    version = _python_version(python)
    plats = compatible_platforms(platform)
    order = [*pep425.cpython_tags(version, abis=[f"cp{version[0]}{version[1]}"],
                                  platforms=plats),
             *pep425.compatible_tags(version, interpreter=f"cp{version[0]}{version[1]}",
                                     platforms=plats)]
    out: dict[pep425.Tag, int] = {}
    for i, tag in enumerate(order):
        out.setdefault(tag, i)
    return out


def _parsed(link: FileLink, name: str) -> tuple[Version, tuple[Any, ...],
                                                frozenset[pep425.Tag]] | None:
    if not link.filename.endswith(".whl"):
        return None
    try:
        wname, version, build, wtags = parse_wheel_filename(link.filename)
    except (InvalidWheelFilename, InvalidVersion):
        return None
    return (version, tuple(build), wtags) if wname == name else None


def select(links: Iterable[FileLink], *, package: str, python: str,
           platform: str) -> list[Nightly]:
    """One wheel per version for CPython ``python`` (e.g. ``3.12``) on ``platform``,
    oldest first, picked as pip picks among the files of one version: the most
    preferred tag (``supported_tags``), then the highest build tag; yanked files and
    sdists are skipped. The order of the files on the page does not matter."""
    supported = supported_tags(python, platform)
    name = canonicalize_name(package)
    best: dict[Version, tuple[tuple[int, tuple[Any, ...]], Nightly]] = {}
    for link in links:
        parsed = None if link.yanked else _parsed(link, name)
        if parsed is None:
            continue
        version, build, wtags = parsed
        ranked = [(supported[t], t) for t in wtags if t in supported]
        if not ranked:
            continue
        rank, tag = min(ranked)
        # pip: max over (tag preference, build tag); negate the rank to compare as one.
        key = (-rank, build)
        if version not in best or key > best[version][0]:
            best[version] = (key, Nightly(version=version, wheel=link,
                                          tag=f"{tag.interpreter}-{tag.abi}-{tag.platform}"))
    return [best[v][1] for v in sorted(best)]


def available_tags(links: Iterable[FileLink], *, package: str | None = None,
                   version: Version | None = None, python: str | None = None) -> list[str]:
    """The distinct ``python/platform`` pairs of the wheels on a page (of ``version``
    only, if given), those for ``python`` first (for the "no wheel" messages)."""
    name = canonicalize_name(package) if package else None
    out: set[str] = set()
    for link in links:
        try:
            wname, wversion, _b, wtags = parse_wheel_filename(link.filename)
        except (InvalidWheelFilename, InvalidVersion):
            continue
        if (name and wname != name) or (version is not None and
                                         not _same_version(wversion, version)):
            continue
        out.update(f"{t.interpreter}/{t.platform}" for t in wtags)
    first = f"{python_tag(python)}/" if python else "\0"
    return sorted(out, key=lambda t: (not t.startswith(first), t))


def lists(nightlies: Sequence[Nightly], query: Query | None) -> str:
    """``the index lists 6 releases for cp312 on manylinux_2_28_x86_64 (8 versions in
    all)``: the count is of the selected wheels, so the scope is said with it; a bare
    "lists 6" read as wrong beside a page listing 8."""
    said = f"the index lists {noun(nightlies)}"
    if query is None:
        return said
    name = canonicalize_name(query.package)
    total = len({parsed[0] for link in query.links if not link.yanked
                 and (parsed := _parsed(link, name)) is not None})
    said += f" for {python_tag(query.python)} on {query.platform}"
    return said + (f" ({total} versions in all)" if total != len(nightlies) else "")


def _same_version(listed: Version, want: Version) -> bool:
    return listed == want or (want.local is None and listed.public == want.public)


def listing(tags_: Sequence[str], limit: int = LISTED) -> str:
    shown = ", ".join(short(t, 80) for t in tags_[:limit])
    return shown + (f" … ({len(tags_) - limit} more)" if len(tags_) > limit else "")


# --- what the versions are called ---------------------------------------------------------

def is_nightly(version: Version) -> bool:
    return dev_date(version) is not None


def noun(nightlies: Sequence[Nightly], count: int | None = None) -> str:
    """``3 nightlies`` / ``1 release`` / ``2 versions`` (a mix), by what is listed."""
    n = len(nightlies) if count is None else count
    kinds = {is_nightly(x.version) for x in nightlies}
    word = ("nightly", "nightlies") if kinds == {True} else (
        ("release", "releases") if kinds == {False} else ("version", "versions"))
    return f"{n} {word[0] if n == 1 else word[1]}"


def parse_date(text: str) -> dt.date | None:
    """``dev20260709`` / ``20260709`` / ``2026-07-09`` → a date; None if not a date (the
    same check --good/--bad/--since pass while parsing the command line)."""
    return flag_values.nightly_date(text)


@dataclass(frozen=True)
class Query:
    """What the wheels were selected for, and the whole page (to say what else
    exists when a version is missing)."""

    package: str
    python: str
    platform: str
    links: tuple[FileLink, ...] = ()


def find(nightlies: Sequence[Nightly], spec: str, *, field_name: str = "--version",
         query: Query | None = None) -> int:
    """The index in ``nightlies`` of a version given as a full version (with or without
    the ``+local`` part) or as a date; raises a clear InputError when it is not listed:
    "not on the index" only when no file of that version is; otherwise the
    Python/platform tags it has (the requested Python's first); and "gone" when it is
    older than what the index keeps."""
    date = parse_date(spec)
    want: Version | None = None
    if date is None:
        try:
            want = Version(spec.strip())
        except InvalidVersion as exc:
            raise InputError(field_name, f"neither a version nor a date: {short(spec, 80)!r}",
                             fix="give e.g. 2.9.0.dev20250709+cu126, dev20250709 or "
                                 "2025-07-09") from exc
    if date is not None:
        hits = [i for i, n in enumerate(nightlies) if n.date == date]
    else:
        assert want is not None  # Sanity: a spec is a date or a version
        hits = [i for i, n in enumerate(nightlies) if _same_version(n.version, want)]
        date = dev_date(want)
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        listed = listing([str(nightlies[i].version) for i in hits])
        raise InputError(field_name, f"{short(spec, 80)!r} matches "
                         f"{noun([nightlies[i] for i in hits])}: {listed}",
                         fix="give the full version")
    if query is not None:
        others = _elsewhere(query, want, date)
        if others:
            raise InputError(field_name, f"{short(spec, 80)} is on the index, but not for "
                             f"{python_tag(query.python)} on {query.platform}: its wheels "
                             f"are for {listing(others)}",
                             fix="pick --python/--platform from the tags listed (the first "
                                 "ones are for the requested Python)")
    if not nightlies:
        raise InputError(field_name, f"the index lists no {'nightly' if date else 'version'} "
                         "of the package for this python/platform")
    oldest, newest = nightlies[0], nightlies[-1]
    span = f"{lists(nightlies, query)}, {oldest.version} … {newest.version}"
    if date is not None and oldest.date is not None and date < oldest.date:
        raise InputError(field_name, f"{short(spec, 80)!r} is gone from the index: {span}; "
                         f"it keeps only about the newest {RETENTION_HINT} nightlies per "
                         "package",
                         fix="pick a good/bad pair inside the listed window (run `versions`), "
                             "or take the commit from the nightly branch (--commit-source "
                             "branch)")
    raise InputError(field_name, f"{short(spec, 80)!r} is not on the index: {span}",
                     fix="run `versions` to see what is listed"
                         + (" (a nightly may be missing for one day)" if date else ""))


def _elsewhere(query: Query, want: Version | None, date: dt.date | None) -> list[str]:
    """The python/platform tags of the page's wheels of the wanted version (or date)."""
    name = canonicalize_name(query.package)
    versions = set()
    for link in query.links:
        parsed = None if link.yanked else _parsed(link, name)
        if parsed is None:
            continue
        v = parsed[0]
        if (want is not None and _same_version(v, want)) or (
                want is None and date is not None and dev_date(v) == date):
            versions.add(v)
    out: list[str] = []
    for v in sorted(versions):
        for t in available_tags(query.links, package=query.package, version=v,
                                python=query.python):
            if t not in out:
                out.append(t)
    first = f"{python_tag(query.python)}/"
    return sorted(out, key=lambda t: (not t.startswith(first), out.index(t)))


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


def nightly_from_url(url: str, package: str) -> Nightly:
    """A wheel given by URL (a matrix cell's ``wheel_url``): its version and tag from
    the file name; no page needed."""
    filename = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
    try:
        wname, version, _build, wtags = parse_wheel_filename(filename)
    except (InvalidWheelFilename, InvalidVersion) as exc:
        raise InputError("--wheel-url", f"not a wheel file name: {short(filename, 120)!r}",
                         fix="pass the wheel_url of a matrix cell (a .whl URL)") from exc
    if wname != canonicalize_name(package):
        raise InputError("--wheel-url", f"a {wname} wheel, not {package}",
                         fix="pass the wheel of --package")
    tag = sorted(wtags, key=str)[0]
    return Nightly(version=version, wheel=FileLink(filename=filename, url=url),
                   tag=f"{tag.interpreter}-{tag.abi}-{tag.platform}")


def project_url(index_url: str, package: str) -> str:
    """``<index>/<normalised package>/`` (PEP 503)."""
    return index_url.rstrip("/") + "/" + canonicalize_name(package) + "/"


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
