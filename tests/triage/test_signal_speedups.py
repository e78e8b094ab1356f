"""The planner's speed-ups change no verdict (issue #23: >= 2,000 issues/s on one core,
with the evaluate figures unchanged).

Each shortcut is checked against the plain regex it stands for, on made-up texts that
exercise its edge: case, non-ASCII letters that IGNORECASE folds onto ASCII ones, and
matches that start inside a word.
"""

from __future__ import annotations

import random
import re

import pytest

from agentops.triage.queue import load_queue
from agentops.triage.signals import Place, compile_signal, lowered_regex

# Made-up texts, not from any issue: mixed case, code, a traceback line, punctuation.
TEXTS = [
    "ALL_REDUCE hangs on Rank 3 after upgrading Torch from 2.3 to 2.4",
    "Steps To Reproduce:\n1. Run it\n2. See it fail",
    "model = MyModel(); Loss = CRITERION(out)\nresults ARE WRONG between Ranks",
    "RuntimeError: NCCL Error 3: Internal Check Failed\nWatchdog Thread Terminated",
    "See gist.GitHub.com/someone/abc and Torchrun --Nnodes 2 TRAIN.py",
    "xx=yy( and aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = bbbb(",
    "Silently produces INCORRECT gradients; outputs differ across GPUs",
    "no assignment here, just words words words and more words",
]


def _variants(text: str) -> list[str]:
    return [text, text.upper(), text.lower(), text.swapcase()]


def test_lowered_twins_find_the_same_spans_as_the_case_insensitive_patterns() -> None:
    queue = load_queue("distributed")
    checked = 0
    for sig in queue.rubric.signals:
        for (_, regex), twin in zip(sig.patterns, sig.lowered or [None] * len(sig.patterns),
                                    strict=True):
            if twin is None:
                continue
            for text in TEXTS:
                for v in _variants(text):
                    a, b = regex.search(v), twin.search(v.lower())
                    assert (a and a.span()) == (b and b.span()), (sig.id, regex.pattern, v)
                    checked += 1
    assert checked > 1000  # the rubric's patterns do get twins


@pytest.mark.parametrize("pattern,text", [
    (r"[A-Z]{2}\d", "ab1"), (r"[A-Z]{2}\d", "AB1"), (r"[^a-c]x", "Bx"), (r"[^a-c]x", "dx"),
    (r"\bcan't\b", "CAN'T"), (r"(a)\1", "aA"), (r"x(?=Y)", "Xy"), (r"(?<!Q)z", "qZ"),
])
def test_lowered_twin_matches_like_ignorecase(pattern: str, text: str) -> None:
    regex = re.compile(pattern, re.I | re.M)
    twin = lowered_regex(pattern, re.I | re.M)
    assert twin is not None
    a, b = regex.search(text), twin.search(text.lower())
    assert (a and a.span()) == (b and b.span())


def test_no_twin_where_case_folding_reaches_past_ascii() -> None:
    # IGNORECASE matches the Kelvin sign for "k" and a long s for "s"; a non-ASCII
    # literal, scoped flags or a case-sensitive pattern get no twin.
    assert lowered_regex("\u212aelvin", re.I) is None
    assert lowered_regex("(?-i:Data)x", re.I) is None
    assert lowered_regex("Data", 0) is None


def test_a_non_ascii_place_runs_the_original_pattern() -> None:
    sig = compile_signal({"id": "x", "role": "bug", "where": ["body"], "weight": 1,
                          "patterns": [r"\bs\w+d it\b"]})
    assert sig.lowered  # the pattern has a twin (and no needle to stop it first) ...
    # ... but "\u017fend" (long s) folds onto "send" only under IGNORECASE, and its
    # lowercase is not "send": the twin must not be used on this place.
    assert sig.fire(Place.of("please \u017fend it now")) == "\u017fend it"
    assert sig.fire(Place.of("please SEND IT now")) == "SEND IT"
    assert sig.fire(Place.of("please post it now")) is None


def test_gate_needles_answer_like_the_regexes() -> None:
    sig = compile_signal({"id": "x", "role": "bug", "where": ["body"], "weight": 1,
                          "patterns": ["hangs"], "requires": ["(?i)multi-?node|send"],
                          "unless": ["Linear regression"]})
    assert sig.requires_needles[0] is not None
    assert sig.gate("a MULTINODE job") and sig.gate("Multi-Node")
    assert sig.gate("\u017fend it")  # non-ASCII: the case-insensitive regex decides
    assert not sig.gate("a single node job")
    assert not sig.gate("multinode Linear regression")  # unless (case-sensitive)
    assert sig.gate("multinode linear regression")


def test_assignment_pattern_is_linear_and_matches_the_same() -> None:
    # repro_code's assignment pattern: the rewritten form (no match may start inside a
    # word; runs do not give back) finds what the plain form finds.
    plain = re.compile(r"\w+\s*=\s*\w+\(", re.I | re.M)
    sig = load_queue("distributed").rubric.signal("repro_code")
    fast = sig.patterns[-1][1]
    for text in [*TEXTS, "a" * 5000 + " = b", "x =  f(1)", "__init__ = make("]:
        for v in _variants(text):
            a, b = plain.search(v), fast.search(v)
            assert (a and a.span()) == (b and b.span()), v


def test_deferred_reproduction_signals_give_the_hits_a_full_match_gives() -> None:
    # Step 6's reproduction signals are matched on first use (most plans end before
    # it); the reading must then hold exactly the hits of matching every signal at once.
    from agentops.triage.model import IssueSnapshot
    from agentops.triage.plan import read
    from agentops.triage.signals import match_signals

    queue = load_queue("distributed")
    rubric = queue.rubric
    assert rubric.deferred and all(s.role == "reproduction" for s in rubric.deferred)
    assert len(rubric.eager) + len(rubric.deferred) == len(rubric.signals)
    body = ("DDP hangs on rank 1.\n\nSteps to reproduce:\n1. run it\n2. wait\n\n"
            "```python\nimport torch\nmodel = Net()\n```\n")
    snap = IssueSnapshot(repo="example-org/example-ml", number=1,
                         title="[docs] DDP all_reduce hangs", body=body,
                         labels=("oncall: distributed",), comments=())
    reading = read(snap, queue)
    assert not any(h.role == "reproduction" for h in reading.hits)  # not matched yet
    score = reading.role_score("reproduction")
    full = match_signals(reading.text, rubric)
    assert score == sum(h.score for h in full if h.role == "reproduction")
    assert {h.signal for h in full if h.role == "reproduction"} == {
        "repro_code", "repro_steps", "docs_issue"}
    assert sorted((h.signal, h.where, h.score) for h in reading.hits) == sorted(
        (h.signal, h.where, h.score) for h in full)


# Characters around the word tokens' edge: every ASCII one (controls such as \x1c-\x1f
# that str.split treats as whitespace, "_", digits, punctuation), and non-ASCII ones that
# are letters (é, ß, dotted İ whose lowercase grows, the Kelvin sign), digits (Arabic-
# Indic), or whitespace to str.split but not to the regex (NBSP, NEL, line separator).
_EDGE = ([chr(i) for i in range(128)]
         + list("éßİKſ٣\u00a0\u0085\u2028\u3000🐛中") + ["ab", "c_9", "Rank", "NCCL"])


def _random_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_EDGE) for _ in range(rng.randint(0, 60)))
            for _ in range(count)]


def test_word_tokens_are_the_token_regex_words() -> None:
    # Place.of splits with bytes.translate (issue #23, planner speed); the words must be
    # exactly those of the regex it replaces, in order, on ASCII and non-ASCII text.
    from agentops.triage.signals import MAX_BODY_CHARS, word_tokens

    token_re = re.compile(r"[a-z0-9_]+")
    texts = _random_texts(23, 3000)
    # Near the read bound: a body of MAX_BODY_CHARS, ASCII and with a non-ASCII tail.
    big = ("all_reduce x9 " * (MAX_BODY_CHARS // 14 + 1))[:MAX_BODY_CHARS]
    texts += [big, big[:-1] + "é", "é" * MAX_BODY_CHARS, "a" * MAX_BODY_CHARS, ""]
    # A lone surrogate (JSON can carry one), a question mark, control and Latin-1 bytes.
    texts += ["a\ud800b", "a?b", "x\x00y\x7fz\x80w\xffv", "ǅ_x", "ﬀ ſ K"]
    for text in texts:
        for lower in (text, text.lower()):
            assert word_tokens(lower) == token_re.findall(lower), repr(lower[:80])


def test_place_index_matches_the_plain_tokenisation() -> None:
    token_re = re.compile(r"[a-z0-9_]+")
    for text in [*_random_texts(12, 500), "Error in ProcessGroupNCCL: café ß İ\u00a0x"]:
        for humps in (False, True):
            place = Place.of(text, humps=humps)
            toks = token_re.findall(text.lower())
            assert place.norm == f" {' '.join(toks)} "
            assert set(toks) <= place.words
            if not humps:
                assert place.words == frozenset(toks)


def test_module_scores_are_the_label_scores() -> None:
    # _select_modules sums each module's hits inline to choose modules; what it keeps
    # must be what label_score's values choose, and the score it reports per module is
    # the confidence of that module's hits (confidence_score), on varied issues.
    from agentops.triage.plan import _select_modules, confidence_score, read
    from tests.property import hostile

    queue = load_queue("distributed")
    seen_kept = 0
    for seed in range(300):
        rng = random.Random(seed)
        snap = hostile.random_snapshot(rng, queue, number=seed + 1)
        reading = read(snap, queue)
        mods = _select_modules(reading, queue, set())
        t = queue.rubric.thresholds
        want = {m: confidence_score(reading.label_hits.get(m, ()), queue.rubric.where_factor,
                                    t["high_weight"]) for m in mods.keep}
        assert mods.scores == want
        # Each place counts once in the confidence (round tr-fit19), so it is at least
        # the strongest hit, not the plain sum of every hit.
        assert all(mods.scores[m] >= max(h.score for h in reading.label_hits[m])
                   and reading.label_score(m) >= t["module_min"] for m in mods.keep)
        seen_kept += len(mods.keep)
    assert seen_kept  # the inputs reach modules at all


def _plain_gate(sig, text: str) -> bool:  # type: ignore[no-untyped-def]
    return (all(p.search(text) for p in sig.requires)
            and not any(p.search(text) for p in sig.unless))


def test_gates_with_lowered_twins_answer_like_the_plain_regexes() -> None:
    # requires/unless read the whole issue; a case-insensitive one runs as its lowered
    # twin on text that folds like ASCII (issue #23, planner speed). Same answer as the
    # plain regexes on ASCII text, caseless non-ASCII (emoji, CJK), and text with the
    # Kelvin sign or a long s (IGNORECASE folds them onto k and s: the regex decides).
    rubric = load_queue("distributed").rubric
    gated = [s for s in rubric.signals if s.requires or s.unless]
    assert any(s.requires_lowered or s.unless_lowered for s in gated)
    made_up = compile_signal({
        "id": "made_up", "where": ["body"], "weight": 1.0, "keywords": ["hang"],
        "requires": [r"(?i)multi-?node|\b\d+ nodes\b|sk"],
        "unless": [r"(?i)(?:linear|logistic) regression", "Kelvin"]})
    assert made_up.requires_lowered and made_up.unless_lowered
    words = ["Multi-Node", "MULTINODE", "2 Nodes", "3 nodes", "nnodes", "across hosts",
             "Linear Regression", "logistic REGRESSION", "Activation Checkpoint",
             "state_dict", "checkpoint", "init_process_group", "c10d", "Deadlock",
             "\u212a", "\u017f", "\u212aelvin", "\u017fk", "Kelvin", "🐛", "中文", "é", "SK",
             "multi\u2028node", "\n", " ", "x"]
    rng = random.Random(2323)
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
             for _ in range(2000)]
    texts += ["multi node " * 6000 + "2 nodes", "\u212a" + "a" * 60_000 + " multinode"]
    for sig in [*gated, made_up]:
        for text in texts:
            assert sig.gate(text) == _plain_gate(sig, text), (sig.id, text[:80])
            assert sig.gate(text, text.lower()) == _plain_gate(sig, text), (sig.id, text[:80])


def _fence_texts(seed: int, count: int) -> list[str]:
    pieces = ["```", "````", "~~~", "~~~~", "``", "~", "`", " ", "\t", "\n", "\n", "x",
              "```python\n", "~~~~ text\n", "é", "🐛", "\r", "  ```", "\t~~~"]
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
            for _ in range(count)]


# What a code fence is, as one regex: the reference fences() is held to.
_FENCE_RE = re.compile(r"^[ \t]*+(`{3,}+|~{3,}+)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)",
                       re.M | re.S)


def test_fences_are_the_fence_regex_matches() -> None:
    # _split_markdown finds code fences line by line, and a fence's closing line from
    # newline to newline, instead of letting one regex try every position (issue #23,
    # planner speed): the same fences, in order, on nested and unclosed fences, both
    # kinds, indented ones, runs of other lengths, and texts near the body bound.
    from agentops.triage.signals import MAX_BODY_CHARS, fences

    texts = _fence_texts(7, 6000)
    texts += [
        "```\na\n````\nb\n```\n~~~\n```\nc\n~~~\nd",  # nested and longer runs
        "x ```\n```\ny\n```",  # a run after text on its line is no fence
        "```",  # a fence line without a newline
        "`" * MAX_BODY_CHARS,
        "a ```\n" * (MAX_BODY_CHARS // 6),
        "```\n" + "~~~\n" * (MAX_BODY_CHARS // 4 - 1),
        "````\n" + "```\n" * (MAX_BODY_CHARS // 4 - 2) + "```` \n",  # only the last closes
        " " * (MAX_BODY_CHARS - 4) + "```\n",
    ]
    for text in texts:
        want = [(m.start(), m.end(), m.group(2)) for m in _FENCE_RE.finditer(text)]
        assert [(f.start, f.end, f.content) for f in fences(text)] == want, repr(text[:80])


def test_line_search_is_the_regex_search() -> None:
    # The environment sections are found from newline to newline instead of letting a
    # ^-led regex try every position (issue #23, planner speed): the same answer on the
    # rubric's own section regexes, at the text's start and after it, and on regexes
    # that do not lead with ^ under re.M (their search is used as it is).
    from agentops.triage.matcher import line_search

    rubric = load_queue("distributed").rubric
    regexes = [*rubric.drop_sections,
               re.compile(r"^ab", re.M), re.compile(r"(?m)^ab"), re.compile(r"^ab"),
               re.compile(r"^ab|b", re.M), re.compile(r"x^ab", re.M),
               re.compile(r"^(?<=\n)ab", re.M), re.compile(r"^(?<![a-z]\n)ab", re.M)]
    pieces = ["## Versions\n", "# environment", "### System Info", "Collecting environment "
              "information...", "\n", "\n", " ", "\t", "#", "ab", "a", "b", "x", "version",
              "env", "é", "🐛", "\r\n"]
    rng = random.Random(11)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
             for _ in range(4000)]
    texts += ["## Versions", "ab\n", "\nab", "x\nab", "\n" * 5000 + "ab", "#" * 5000]
    hits = 0
    for regex in regexes:
        found = line_search(regex)
        for text in texts:
            want = regex.search(text) is not None
            assert found(text) == want, (regex.pattern, text)
            hits += want
    assert hits > 1000  # matches at the start and inside the texts are both exercised


def test_error_lines_are_looked_for_only_where_a_needle_is() -> None:
    # _split_lines tries the error-line regex on each line only when the text holds one
    # of its literals as written, and keeps a text whole when it holds neither one nor a
    # traceback start (issue #23, planner speed): the same split as trying every line,
    # and no shortcut at all for a regex that ignores case.
    import dataclasses

    from agentops.triage.signals import _split_markdown

    rubric = load_queue("distributed").rubric
    assert rubric.error_needles and "Error" in rubric.error_needles
    plain = dataclasses.replace(rubric)
    object.__setattr__(plain, "error_needles", None)
    pieces = ["RuntimeError: x", "  [rank0]: ValueError: y", "error: z", "ERROR",
              "KeyboardInterrupt", "Exception", "AssertionFailure:", "text", "\n", "\n",
              "```\n", " ", "é", "Errors", "Traceback (most recent call last):"]
    rng = random.Random(3)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 16))) for _ in range(3000)]
    cut = 0
    for text in texts:
        got, want = _split_markdown(text, rubric), _split_markdown(text, plain)
        assert got == want, repr(text)
        cut += bool(want.tracebacks)
    assert cut > 500  # error lines are found, not only skipped
    folded = dataclasses.replace(rubric, error_line=re.compile("(?i)" + rubric.error_line.pattern))
    assert folded.error_needles is None


def _plain_drop_sections(text: str, rubric) -> str:  # type: ignore[no-untyped-def]
    """_drop_sections as it was: the line filter's sub on every text."""
    text = rubric.drop_lines.sub("", text)
    out, dropping = [], False
    for line in text.split("\n"):
        if any(p.match(line) for p in rubric.drop_sections):
            dropping = True
            continue
        if dropping and rubric.section_end.match(line):
            dropping = False
        if not dropping:
            out.append(line)
    return "\n".join(out)


def test_drop_lines_run_only_where_a_line_matches() -> None:
    # The environment-line filter leads with ^ under re.M; it runs only where a by-line
    # search finds a line to drop (issue #23, planner speed): the same text either way,
    # with the lines at the start, after a newline, indented, or not there at all.
    from agentops.triage.signals import _drop_sections

    rubric = load_queue("distributed").rubric
    pieces = ["[pip3] torch==2.5\n", "  [conda] numpy\n", "PyTorch version: 2.4\n",
              "OS: Ubuntu\n", "Is CUDA available: True", "## Versions\n", "### Next\n",
              "DDP hangs on rank 1\n", "\n", " ", "x", "é", "🐛 "]
    rng = random.Random(23)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
             for _ in range(3000)]
    dropped = 0
    for text in texts:
        assert rubric.drop_lines_found(text) == (rubric.drop_lines.search(text) is not None)
        assert _drop_sections(text, rubric) == _plain_drop_sections(text, rubric), repr(text)
        dropped += rubric.drop_lines.search(text) is not None
    assert 300 < dropped < len(texts) - 300  # both kinds of text are exercised


def test_hump_words_are_the_joined_parts() -> None:
    # Place.of grows each run of CamelCase parts from the last (issue #23, planner
    # speed): the words of a plain join of every slice of one to four parts.
    from agentops.triage.signals import _HUMP_RE, _camel_identifiers, word_tokens

    texts = [*_random_texts(12, 400), "NCCLSymmMemAllocator and TensorPipeDistAutogradTest",
             "ProcessGroupNCCL2Backend XMLHttpRequest aB ÉcoleNormale café İstanbulX",
             "ΑΣProcessGroupΣ"]
    for text in texts:
        want = set(word_tokens(text.lower()))
        for ident in _camel_identifiers(text):
            parts = _HUMP_RE.findall(ident)
            for i in range(len(parts)):
                for j in range(i + 1, min(len(parts), i + 4) + 1):
                    want.add("".join(parts[i:j]).lower())
        assert Place.of(text).words == frozenset(want), repr(text[:80])
    assert {"symmmem", "nccl", "processgroupnccl", "tensorpipedistautograd"} <= \
        Place.of(texts[-3]).words | Place.of(texts[-2]).words


def test_step1_reuses_the_traceback_paths_split_issue_parsed() -> None:
    # IssueText keeps each traceback's frame paths (issue #23, planner speed): they are
    # the paths parsed from the regions, and a text built without them parses them.
    import dataclasses

    from agentops.triage.signals import _region_paths, region_paths, split_issue

    rubric = load_queue("distributed").rubric
    tb = ('Traceback (most recent call last):\n'
          '  File "/x/torch/_dynamo/eval_frame.py", line 1, in _fn\n'
          '  File "/x/torch/distributed/fsdp/_fully_shard.py", line 2, in f\n'
          'RuntimeError: boom\n\nmore\n\n'
          'Traceback (most recent call last):\n'
          '  File "/x/torch/distributed/c10d.py", line 3, in g\nValueError: x\n')
    text = split_issue("FSDP fails", tb, [tb], rubric)
    assert len(text.tracebacks) >= 2
    want = _region_paths(text.tracebacks, rubric)
    assert [list(p) for p in region_paths(text, rubric)] == want
    assert any(want)
    bare = dataclasses.replace(text, region_paths=())
    assert [list(p) for p in region_paths(bare, rubric)] == want


def test_a_hit_made_without_init_is_the_hit_init_makes() -> None:
    # match_signals builds its hits with Hit.made (issue #23, planner speed): every
    # field set, and equal, hashed and shown as Hit(...) would be.
    import dataclasses

    from agentops.triage.signals import Hit
    fields = {"signal": "s", "label": "module: x", "role": None, "where": "body",
              "weight": 3.0, "score": 4.5, "places": frozenset({"body", "title"}),
              "evidence": False, "subject": True, "source": "Some Text", "found": "Text",
              "source_lower": "some text", "title_at": 5}
    assert set(fields) == {f.name for f in dataclasses.fields(Hit)}
    made, init = Hit.made(**fields), Hit(**fields)
    assert made == init and hash(made) == hash(init) and repr(made) == repr(init)
    assert vars(made) == vars(init) and made.excerpt == init.excerpt == "Some Text"
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.score = 1.0  # type: ignore[misc]


def test_after_cue_search_from_negations_is_the_substring_test_per_cue() -> None:
    """``_any_after_cue`` looks only where "not "/"n't " occurs; it must say what one
    ``in`` per cue says, on texts with and without a cue, with a cue after more
    negations than it looks at one by one (then the per-cue tests decide), and with
    the parenthesised forms alone."""
    from agentops.triage.signals import _AFTER_CUES, MAX_NEG_TRIED, _any_after_cue
    pieces = ["not ", "n't ", "not", "used", "in", "involved", "enabled", "needed",
              "required", "(unused", "(not", "nothing ", "isn't", " x ", "\n", "kno",
              "unused", "(", "notin"]
    rng = random.Random(23)
    texts = ["", "not", "not used", "isn't in", "(unused)", "(not enabled)", "knot us",
             "not " * (MAX_NEG_TRIED + 3) + "used", "n't " * (MAX_NEG_TRIED * 2) + "in",
             "not x " * (MAX_NEG_TRIED + 1), "not " * (MAX_NEG_TRIED - 1) + "required"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
              for _ in range(3000)]
    seen = {True: 0, False: 0}
    for text in texts:
        want = any(cue in text for cue in _AFTER_CUES)
        assert _any_after_cue(text) is want, text
        seen[want] += 1
    assert seen[True] > 100 and seen[False] > 100


def test_a_cited_hit_keeps_its_excerpt_outside_its_fields() -> None:
    # Hit.excerpt is cut once and kept (issue #23, planner speed): a hit whose excerpt
    # was read is still equal, hashed and shown as one whose was not, and a copy with
    # another source cuts its own excerpt.
    import dataclasses

    from agentops.triage.signals import Hit, _excerpt
    source = "x" * 50 + " the all_reduce HANGS on rank 3 " + "y" * 50
    cited = Hit(signal="s", label=None, role="hang", where="body", weight=1.0, score=1.0,
                places=frozenset({"body"}), source=source, found="hangs")
    fresh = dataclasses.replace(cited)
    assert cited.excerpt == _excerpt(source, "hangs") and "HANGS on rank 3" in cited.excerpt
    assert cited.excerpt is cited.excerpt
    assert cited == fresh and hash(cited) == hash(fresh) and repr(cited) == repr(fresh)
    other = dataclasses.replace(cited, source="it hangs at init")
    assert other.excerpt == "it hangs at init" != cited.excerpt
