"""What a sentence of a thread does, for the post-mortem lint (P-5, #24).

Most pushes that a reply of a breakage thread makes hold no norm word: the reply asks the
other party for a change of practice ("please make sure every tag goes through CI
before you publish"), or endorses a change someone proposed ("+1", "sounds fair").
Such a sentence is advocacy by what it does, not by its
words, and what it does depends on the thread: an agreement is a push only when
something was pushed before it.

An act is data (``speech_acts`` of a rule in ``lint_rules.yaml``): its cue (the form of
the act: a request's "please", "could you", "I'd suggest"; an agreement's "+1"), what the
words after the cue must hold for the act to be about practice rather than this one bug
(``needs``), what takes the act back (``unless``: a debugging step, reader guidance) and
whether it needs an earlier push in the same thread (``after_push``). This module only
reads a sentence with them; the caller knows the thread.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# How far after its cue an act's object may reach (characters, within the sentence): a
# request's object follows its cue closely ("please, from now on, tag releases only
# after CI"); further on, a later clause is about something else.
REACH = 160


@dataclass(frozen=True)
class Act:
    name: str
    cue: re.Pattern[str]
    needs: re.Pattern[str] | None = None
    unless: re.Pattern[str] | None = None
    after_push: bool = False
    in_thread: bool = False


def compile_acts(content: Sequence[Mapping[str, Any]]) -> tuple[Act, ...]:
    """The acts from the validated ``speech_acts`` list of a rule."""
    def rx(pattern: str | None) -> re.Pattern[str] | None:
        return re.compile(pattern, re.IGNORECASE) if pattern else None

    acts = []
    for a in content:
        cue = rx(a["cue"])
        assert cue is not None
        acts.append(Act(name=a["act"], cue=cue, needs=rx(a.get("needs")),
                        unless=rx(a.get("unless")),
                        after_push=bool(a.get("after_push", False)),
                        in_thread=bool(a.get("in_thread", False))))
    return tuple(acts)


def spans(text: str, acts: Sequence[Act], *, in_thread: bool, pushed: bool
          ) -> Iterator[tuple[int, int, str]]:
    """The cue spans of the acts ``text`` performs: (start, end, act name). ``in_thread``:
    the sentence is part of a thread's comments; ``pushed``: something earlier in the
    same text was a push (an advocacy finding or an act)."""
    for act in acts:
        if (act.after_push and not pushed) or (act.in_thread and not in_thread):
            continue
        for m in act.cue.finditer(text):
            if m.end() == m.start():
                continue
            window = text[m.start():m.start() + REACH]
            if not text[m.end():].strip(" .!?)*_\"'"):
                # A cue closing the sentence ("tag from CI only, please") takes what it
                # closes as its object: the words before it.
                window = text[max(0, m.start() - REACH):m.end()]
            if act.needs is not None and not act.needs.search(window):
                continue
            if act.unless is not None and act.unless.search(window):
                continue
            yield m.start(), m.end(), act.name
            break
