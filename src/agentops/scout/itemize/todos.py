"""S-2 items: TODO/FIXME/HACK/XXX unblocked (a referenced PR merged, a named API now
in the installed torch), closed references, new/changed/resolved ones, and one line for
the rest (carried, or tracked on a first run).

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.model import Inputs, Item, stable_id

_EACH = 8  # up to this many new (or resolved) TODOs get a line each; more make one line


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    todos, resolved = res["todos"]
    out: list[Item] = []
    for t in todos:
        owner = f", owned by {t.owner}" if t.owner else ""
        for ref, state in t.pr_states:
            if state.startswith("merged"):
                out.append(Item(
                    id=stable_id("todo-unblocked", t.id, ref), section="S-2", kind="action",
                    title=f"TODO unblocked: {ref} {state} — `{t.file}:{t.line}` "
                          f"{t.text[:120]}",
                    why="the upstream change it waits for has landed",
                    where=f"{t.file}:{t.line}{owner}", priority="P1", severity="should-fix",
                    files=(t.file,), fix="remove the workaround the TODO describes",
                    facts=(state,)))
            elif state == "closed":
                out.append(Item(
                    id=stable_id("todo-closed", t.id, ref), section="S-2", kind="fyi",
                    title=f"{ref} was closed without merging; TODO `{t.file}:{t.line}` "
                          "waits on it", files=(t.file,), facts=(state,)))
        for name, module in t.api_hits:
            out.append(Item(
                id=stable_id("todo-api", t.id, name), section="S-2", kind="action",
                title=f"TODO may be unblocked: `{name}` exists in the installed "
                      f"{inp.torch.name + ' ' + inp.torch.version if inp.torch else ''} "
                      f"({module}) — "
                      f"`{t.file}:{t.line}` {t.text[:120]}",
                why="the API it waits for is there",
                where=f"{t.file}:{t.line}{owner}", priority="P2", severity="nice-to-have",
                files=(t.file,), fix=f"use `{module}.{name}` and drop the workaround",
                facts=(module,)))
    if inp.priors:
        fresh = [t for t in todos if t.status in ("new", "changed")]
        if len(fresh) <= _EACH:
            for t in fresh:
                owner = f" (owned by {t.owner})" if t.owner else ""
                out.append(Item(
                    id=stable_id("todo-" + t.status, t.id, t.fingerprint), section="S-2",
                    kind="fyi", title=f"{t.status.capitalize()} {t.tag} `{t.file}:{t.line}`"
                    f"{owner}: {t.text[:160]}", files=(t.file,), fingerprint=t.fingerprint))
        else:  # a long window: one line, every TODO in --json
            out.append(Item(
                id=stable_id("todo-fresh", inp.target.name), section="S-2", kind="fyi",
                title=f"{len(fresh)} new or changed TODO/FIXME/HACK/XXX since the last report, "
                      "e.g. " + "; ".join(f"`{t.file}:{t.line}` {t.text[:60]}"
                                          for t in fresh[:3]) + " (`todos` in --json)",
                files=tuple(sorted({t.file for t in fresh})),
                facts=tuple(sorted(t.id for t in fresh))))
        if len(resolved) <= _EACH:
            for t in resolved:
                out.append(Item(
                    id=stable_id("todo-resolved", t["id"]), section="S-2", kind="fyi",
                    title=f"{t.get('tag', 'TODO')} resolved (gone from `{t['file']}`): "
                          f"{str(t.get('text', ''))[:160]}", files=(t["file"],),
                    fingerprint=t["id"]))
        else:
            out.append(Item(
                id=stable_id("todo-resolved-many", inp.target.name), section="S-2",
                kind="fyi", title=f"{len(resolved)} TODO/FIXME/HACK/XXX resolved since the last "
                                  "report (`todos_resolved` in --json)",
                files=tuple(sorted({t["file"] for t in resolved})),
                facts=tuple(sorted(t["id"] for t in resolved))))
    carried = [t for t in todos if t.status == "carried"]
    if todos and (carried or not inp.priors):
        refs = sum(1 for t in todos if t.refs)
        title = (f"{len(carried)} TODO/FIXME/HACK/XXX carried from prior reports, unchanged "
                 f"(oldest first reported {min(t.first_reported for t in carried)})"
                 if inp.priors else
                 f"First run: {len(todos)} TODO/FIXME/HACK/XXX tracked in "
                 f"{len({t.file for t in todos})} file(s) ({refs} with upstream references, "
                 f"{sum(1 for t in todos if t.owner)} with an owner)")
        # One id for the summary line, its facts the set of TODOs: unchanged over three
        # reports, it is dropped like any other FYI.
        out.append(Item(id=stable_id("todo-summary", inp.target.name), section="S-2",
                        kind="fyi", title=title,
                        facts=tuple(sorted(t.id for t in (carried or todos)))))
    return out
