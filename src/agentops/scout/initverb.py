"""The ``init`` verb (adapter): read the checkout at HEAD, build the draft target
(``draft``, pure), check that it loads as a target, print it or write it.

Reads git blobs through ``gitrepo``; writes only the ``--out`` file (atomically).
"""

from __future__ import annotations

import argparse
import subprocess

from agentops import console, data, files, flag_values
from agentops.errors import InputError
from agentops.scout import config, draft
from agentops.scout.gitrepo import GitRepo


def _want(path: str) -> bool:
    return path.endswith(".py") or (path.startswith(".github/workflows/")
                                    and path.endswith((".yml", ".yaml")))


def _remote_repo(checkout: str) -> str:
    """``owner/name`` from the checkout's ``origin`` remote when it is a GitHub URL."""
    proc = subprocess.run(["git", "-C", checkout, "config", "--get", "remote.origin.url"],
                          capture_output=True, text=True, check=False, timeout=30)
    return draft._git_repo_name(proc.stdout.strip()) if proc.returncode == 0 else ""


def init_command(args: argparse.Namespace) -> int:
    """``scout.py init``: print (or ``--out``) a draft target for ``--subproject``."""
    if args.out:
        files.check_writable(args.out, field="--out")
    # The checkout first: a folder that is no git checkout has no origin to read either.
    git = GitRepo(args.checkout)
    repo = args.repo or _remote_repo(args.checkout)
    if not repo:
        raise InputError("--repo", "the checkout's origin is not a GitHub repository",
                         fix="pass --repo OWNER/NAME")
    try:
        # --repo was checked by argparse; a name read from the remote gets the same rule.
        repo = flag_values.check_repo(repo)
    except argparse.ArgumentTypeError as exc:
        raise InputError("--repo", f"the checkout's origin: {exc}",
                         fix="pass --repo OWNER/NAME") from None
    sub = args.subproject.strip().strip("/")
    head = git.head()
    paths_only = git.tree(head, lambda p: False)
    if not sub or not any(p.startswith(sub + "/") for p in paths_only.paths):
        raise InputError("--subproject", f"{args.subproject!r} is no folder of the checkout at "
                         "HEAD", fix="give the folder's path relative to the repository root")
    parent = sub.rsplit("/", 1)[0] if "/" in sub else ""
    # The folder's docs, and the parent folder's (a guide that may link this folder).
    tree = git.tree(head, lambda p: _want(p) or (p.endswith(".md") and (
        p.startswith(sub + "/") or (bool(parent) and p.rsplit("/", 1)[0] == parent))))
    text = draft.to_yaml(draft.build(tree, sub, repo=repo))
    # The draft must load as a target as written (report runs on it unedited): the same
    # parse, schema and cross-key checks ``load_target`` applies, in memory.
    raw = data.parse_text(text, name="draft")
    data.validate(raw, config.SCHEMA, name="draft")
    config._check(raw, "draft")
    if args.out:
        files.write_atomic(args.out, text, field="--out")
        console.say(f"wrote {args.out}", err=True)
    else:
        # Names in the draft come from the checkout: the same gate as every other line.
        console.say(text, end="")
    return 0
