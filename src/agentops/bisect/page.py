"""The project page of a simple index, fetched once per run, and reusable across runs
and matrix jobs through a saved copy (``--page-cache FILE``) that is revalidated with a
conditional request (``If-None-Match`` / ``If-Modified-Since``): an unchanged page costs
one request and no body (HTTP 304) instead of ~0.5 MB. The copy holds the page's parsed
links, not its text: a 304 re-parses nothing and re-joins no URL (issue #25 item 12;
benchmarks/page_cache.py).

Adapter side of the I/O line (reads the index and the cache file; the command writes
the new copy, ``Page.to_save``, with the one atomic writer); what the page means is
``index``'s. The cache file is untrusted input too: a copy that does not parse, is for
another URL or is too big is ignored with a notice and replaced. It never holds
credentials: URLs are stored without their ``user:password@``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentops import ghactions
from agentops.bisect import index as idx
from agentops.errors import InputError
from agentops.http import Transport, redact, short, strip_userinfo, with_credentials_of

# Sanity: a nightly index's torch page is ~0.5 MB; PyPI's is a few MB.
MAX_PAGE_BYTES = 16 * 1024 * 1024
CACHE_FORMAT = 2  # 1 held the page text, parsed again after every 304


@dataclass(frozen=True)
class Page:
    """A fetched project page and what it listed."""

    url: str  # as requested (may carry credentials: never print it unredacted)
    content_type: str
    links: tuple[idx.FileLink, ...]
    bytes: int  # body bytes received for it in this run (0 when the copy was current)
    cached: bool = False  # the saved copy was current (HTTP 304)
    to_save: str | None = None  # the new cache file's text, when one should be written


def check_cache_path(path: str | None) -> Path | None:
    """The ``--page-cache`` path, refused up front if it cannot be a file."""
    if not path:
        return None
    p = Path(path)
    if p.is_dir():
        raise InputError("--page-cache", f"{path} is a directory",
                         fix="give a file path, e.g. .cache/torch-page.json")
    return p


def _load(cache: Path, url: str) -> dict[str, Any] | None:
    try:
        if not cache.is_file():
            return None
        if cache.stat().st_size > 2 * MAX_PAGE_BYTES:
            raise ValueError("larger than any page")
        doc = json.loads(cache.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != CACHE_FORMAT:
            raise ValueError("not a page cache of this version")
        fields = ("url", "final_url", "content_type")
        if not all(isinstance(doc.get(k), str) for k in fields):
            raise ValueError("a field is missing or not text")
        if not any(isinstance(doc.get(k), str) and doc[k] for k in ("etag", "last_modified")):
            raise ValueError("no validator to revalidate it with")
        _check_links(doc.get("links"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        ghactions.notice(f"page cache {cache}: ignored ({short(str(exc), 120)}); fetching "
                         "the page again")
        return None
    if doc["url"] != strip_userinfo(url):
        return None  # another index or package: refetch, then overwrite
    return doc


def _check_links(rows: Any) -> None:
    """The saved links as the parser made them: ``[filename, url, hashes, yanked,
    had_credentials]`` rows, as many as a page may hold; anything else is refused (the
    file is untrusted input), so the copy is ignored and the page fetched."""
    if not isinstance(rows, list) or len(rows) > idx.MAX_LINKS:
        raise ValueError("links: not a list of at most the links a page holds")
    for i, row in enumerate(rows):
        if not (isinstance(row, list) and len(row) == 5 and isinstance(row[0], str)
                and isinstance(row[1], str) and row[1] and isinstance(row[2], dict)
                and all(isinstance(k, str) and isinstance(v, str) for k, v in row[2].items())
                and isinstance(row[3], bool) and isinstance(row[4], bool)):
            raise ValueError(f"links[{i}]: not a saved link")


def _saved_links(links: Sequence[idx.FileLink]) -> list[list[Any]]:
    # Security: no credentials on disk; a link that carried the index URL's gets them
    # back from the index URL of the run that reads the copy.
    return [[f.filename, strip_userinfo(f.url), dict(f.hashes), f.yanked,
             f.url != strip_userinfo(f.url)] for f in links]


def _loaded_links(rows: list[list[Any]], index_url: str) -> list[idx.FileLink]:
    return [idx.FileLink(filename=name, url=with_credentials_of(url, index_url) if creds
                         else url, hashes=hashes, yanked=yanked)
            for name, url, hashes, yanked, creds in rows]


def fetch_page(http: Transport, index_url: str, package: str, *,
               cache: Path | None = None) -> Page:
    """GET ``<index>/<package>/`` asking for JSON (PEP 691) first, HTML otherwise; with
    ``cache``, conditionally, reusing the saved copy when the server says 304."""
    url = idx.project_url(index_url, package)
    saved = _load(cache, url) if cache else None
    headers = {"Accept": idx.ACCEPT}
    if saved:
        if saved.get("etag"):
            headers["If-None-Match"] = saved["etag"]
        if saved.get("last_modified"):
            headers["If-Modified-Since"] = saved["last_modified"]
    before = http.counter.body_bytes
    to_save: str | None = None
    resp = http.request("GET", url, headers=headers, max_bytes=MAX_PAGE_BYTES,
                        what="index page")
    if resp.status == 304 and saved:
        ctype = saved["content_type"]
        links = _loaded_links(saved["links"], url)
        cached = True
    else:
        text = (resp.body or b"").decode("utf-8", errors="replace")
        ctype = resp.headers.get("Content-Type", "text/html")
        final_url = resp.url or url
        cached = False
        links = idx.parse_page(text, ctype, final_url)
        etag, modified = resp.headers.get("ETag"), resp.headers.get("Last-Modified")
        if cache is not None:
            if etag or modified:
                to_save = json.dumps({
                    "format": CACHE_FORMAT, "url": strip_userinfo(url),
                    "final_url": strip_userinfo(final_url), "content_type": ctype,
                    "etag": etag or "", "last_modified": modified or "",
                    "links": _saved_links(links)})
            else:
                ghactions.notice(f"{redact(url)} sends no ETag or Last-Modified: the page "
                                 "cannot be revalidated, so it is not cached")
    return Page(url=url, content_type=ctype.split(";")[0], links=tuple(links),
                bytes=http.counter.body_bytes - before, cached=cached, to_save=to_save)
