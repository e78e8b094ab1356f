"""What one nightly_bisect run reads, cached: the index page (once per run, and across
runs with ``--page-cache``), the nightlies it lists, resolved wheels and the nightly
branch, and the commit of a nightly from the configured source(s). Every verb but
``auto`` starts by making a ``Session`` of its arguments.

Shell side: wires the adapters (``page``, ``wheels``, ``nightly_branch``) to the pure
core (``index``); writes nothing but the ``--page-cache`` file (atomically).
"""

from __future__ import annotations

import argparse
import datetime as dt
from typing import Any

from agentops import files, ghactions
from agentops.bisect import index as idx
from agentops.bisect import nightly_branch as nb
from agentops.bisect import page as pg
from agentops.bisect import wheels
from agentops.errors import ApiError, InputError
from agentops.http import check_http_url, mask_credentials, redact, short, with_credentials_of

DEFAULT_INDEX = "https://download.pytorch.org/whl/nightly/cpu"
DEFAULT_PLATFORM = "manylinux_2_28_x86_64"
DEFAULT_REPO = "pytorch/pytorch"
SOURCES = ("wheel", "branch", "both")


class Session:
    """What one run reads, cached: the index page (fetched once per run, and reused
    across runs with ``--page-cache``), resolved wheels, nightly branch."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        # Security: credentials in index URLs are masked before anything can print them
        # (and every message redacts them).
        for url in (getattr(args, "index_url", None), getattr(args, "extra_index_url", None),
                    getattr(args, "wheel_url", None)):
            if url:
                mask_credentials(url)
        self.page_cache = pg.check_cache_path(getattr(args, "page_cache", None))
        self.http = wheels.transport()
        self.page: pg.Page | None = None
        self._nightlies: list[idx.Nightly] | None = None
        self._releases: list[nb.NightlyRelease] | None = None
        self.client: Any = None
        self.branch_failed = False

    @property
    def source(self) -> str:
        src = getattr(self.args, "commit_source", "wheel") or "wheel"
        if src not in SOURCES:
            raise InputError("--commit-source", f"expected one of {', '.join(SOURCES)}, "
                             f"got {src!r}")
        return src

    def nightlies(self) -> list[idx.Nightly]:
        """The listed versions for the package/python/platform, oldest first."""
        if self._nightlies is None:
            a = self.args
            check_http_url(a.index_url, field_name="--index-url",
                           example="https://download.pytorch.org/whl/nightly/cpu")
            page = pg.fetch_page(self.http, a.index_url, a.package, cache=self.page_cache)
            # The page parsed: only now is the copy for the next run written.
            if self.page_cache is not None and page.to_save is not None:
                files.write_atomic(self.page_cache, page.to_save, field="--page-cache")
            self.page = page
            shown_url = redact(page.url)
            found = idx.select(page.links, package=a.package, python=a.python,
                               platform=a.platform)
            if not found:
                tags = idx.available_tags(page.links, package=a.package, python=a.python)
                raise InputError("--python/--platform",
                                 f"{shown_url} lists no {a.package} wheel for "
                                 f"{idx.python_tag(a.python)} on {a.platform} "
                                 f"({len(page.links)} files; tags: "
                                 f"{idx.listing(tags) or 'none'})",
                                 fix="pick a python/platform pair from the tags listed")
            variant = getattr(a, "variant", None)
            variants = sorted({n.variant or "" for n in found})
            shown_variants = idx.listing([v or "none" for v in variants])
            if variant:
                found = [n for n in found if n.variant == variant]
                if not found:
                    raise InputError("--variant", f"no {variant} build on {shown_url} "
                                     f"(variants: {shown_variants})")
            elif len(variants) > 1:
                # Sanity: cpu and cu126 builds of one day are different wheels; a range
                # that mixes them bisects nothing.
                raise InputError("--variant", f"{shown_url} lists several build variants "
                                 f"({shown_variants})",
                                 fix="pick one, e.g. --variant " + (variants[-1] or "none"))
            self._nightlies = found
        return self._nightlies

    def query(self) -> idx.Query:
        """What ``find`` needs to say which tags a missing version does have."""
        a = self.args
        return idx.Query(package=a.package, python=a.python, platform=a.platform,
                         links=self.page.links if self.page else ())

    def find(self, spec: str, *, field_name: str = "--version") -> int:
        return idx.find(self.nightlies(), spec, field_name=field_name, query=self.query())

    def given_wheel(self) -> idx.Nightly | None:
        """The wheel named by ``--wheel-url`` (a matrix cell's), which needs no page;
        the index URL's credentials go with it to the same host."""
        url = getattr(self.args, "wheel_url", None)
        if not url:
            return None
        check_http_url(url, field_name="--wheel-url",
                       example="the wheel_url of a plan matrix cell")
        n = idx.nightly_from_url(with_credentials_of(url, self.args.index_url or ""),
                                 self.args.package)
        spec = getattr(self.args, "version", None)
        if spec:
            try:
                idx.find([n], spec)
            except InputError:
                raise InputError("--wheel-url", f"the wheel is {n.version}, not "
                                 f"{short(spec, 80)} (--version)",
                                 fix="pass the version and wheel_url of the same matrix "
                                     "cell") from None
        return n

    def releases(self) -> list[nb.NightlyRelease] | None:
        """The nightly branch's releases; with ``both``, None (and a warning) when the
        API cannot be read, so the wheels alone still give an answer."""
        if self._releases is None:
            self.client = self.client or nb.client_from_env()
            try:
                self._releases = nb.read_releases(self.client, self.args.repo)
            except ApiError as exc:
                if self.source != "both":
                    raise
                ghactions.warning(f"nightly branch not read, commits from version.py only: "
                                  f"{exc.one_line()}", title="commit cross-check skipped")
                self._releases = []
                self.branch_failed = True
        return None if self.branch_failed else self._releases

    def commit(self, n: idx.Nightly | None, *, date: dt.date | None,
               git_version: str | None = None) -> tuple[nb.Commit, wheels.Resolved | None]:
        """The main commit of one nightly from the configured source(s)."""
        resolved = None
        if self.source in ("wheel", "both") and n is not None and git_version is None:
            resolved = wheels.resolve(self.http, n)
            git_version = resolved.git_version
        releases = self.releases() if self.source in ("branch", "both") else None
        return nb.cross_check(date, git_version, releases), resolved

    def finish(self) -> None:
        """The closing lines every live run prints."""
        c = self.http.counter
        cached = " (the project page from --page-cache, unchanged)" if (
            self.page and self.page.cached) else ""
        ghactions.notice(f"HTTP (index and wheels): {c.total} request(s), {c.retries} "
                         f"retries, {c.body_bytes} body bytes{cached}")
        if self.client is not None:
            line = self.client.counter.line()
            ghactions.notice(line)
            ghactions.append_summary(line)
