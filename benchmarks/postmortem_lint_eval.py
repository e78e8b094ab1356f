#!/usr/bin/env python3
"""Post-mortem lint against the shared judged sets (#24, P-5): precision and recall of
the hedging, blame and advocacy rules per split (fit / heldout), on judged line spans.

The sets (``set1/``, ``set2/``, ... under the folder given) are real write-ups of other
projects judged by hand: ``texts/<doc>.md`` and ``judged.tsv`` (doc, start, end, cat,
strength, phrase; 1-based lines; cat H hedging, B blame, A advocacy). Their text never
enters this repository; ``benchmarks/data/postmortem_lint_eval_split.yaml`` records only
which document is in which split, fixed before any rule was fitted on them:

    python benchmarks/postmortem_lint_eval.py EVAL_DIR --write-split   # once
    python benchmarks/postmortem_lint_eval.py EVAL_DIR                  # fit, heldout, all
    python benchmarks/postmortem_lint_eval.py EVAL_DIR --split heldout --verbose

Scoring: a flag is one (document, line, category) the lint reports. A flag inside a
judged span of its category is a true positive; a flag outside every span of its
category counts against precision (every span not listed is judged clean). A span is
found when at least one flag of its category lies on its lines; recall is spans found
over spans listed. Flags on headings and crashes are counted apart. ``--verbose`` lists
the errors by document and line only (never the text).

``--by-form`` repeats each split's figures for written-up post-mortems and for threads
apart, reading each document's form from its set's ``sources.tsv`` kind (``form_of``: the
kind's head decides before its parenthesis; a word naming an incident write-up first,
then a thread word, then other written documents). The lint's own input is a written-up
document (P-5), while most gathered material is breakage threads, so the two are not to
be mixed in one reading.

The split is by document: sha256 of ``<set>/<doc>``, first byte even -> fit, odd ->
heldout. Fit the rules on ``fit``; read ``heldout`` once per major round.

How the splits were used (#24, 2026-12-04; P / R per hedging, blame, advocacy):

- baseline, rules of 422496a: fit 0.57/0.86, 1.00/0.37, 0.25/0.17; heldout 0.61/0.77,
  0.83/0.33, 0.38/0.50.
- round 1 (clause analysis, fitted on ``fit`` only), heldout read once: 0.69/0.77,
  0.62/0.33, 0.50/0.67. Round 2 (forms from public breakage threads), heldout read
  once: 0.71/0.77, 0.67/0.47, 0.50/0.67. After that the held-out errors were fitted
  too, so later figures on either half are fit figures.
- fresh checks: benchmarks/data/postmortem_lint_gathered/ (sets 3-16, judged blind,
  each measured once before being fitted on; see its README). Round 2 (lexical classes,
  co-occurrence of a norm word or an evaluation with a process noun): pooled first
  readings of sets 14-16 on its rules: hedging 0.55/0.60, blame 0.33/0.14, advocacy
  0.53/0.53; the shared sets after it (both halves fitted earlier) 0.87/0.92, 0.97/0.85,
  0.73/0.83.
- round 5, hedging and advocacy (#24, branch pm-hedgeadv; fit: set18 after its blind
  reading, gathered sets 3-17, the shared fit half, made-up probes): set18 hedging
  0.69/0.85 -> 1.00/1.00, advocacy 0.51/0.64 -> 0.87/0.93 (fit figures now); sets 3-17
  pooled hedging 0.94/0.94 unchanged, advocacy 0.90/0.85 -> 0.94/0.85; shared held-out
  half read as figures only, before and after: hedging 0.81/0.90, advocacy 0.86/0.83.
- round 3, hedging only (#24, branch h7-lhedge; fit: shared fit half and gathered sets
  3-13, made-up probes): held-out hedging unchanged, sets 14-16 0.90/0.90 and shared
  held-out half 0.81/0.90 (both fitted in earlier rounds). Five fresh blind readings of
  public threads (86 texts, 91 hedged paragraphs, texts kept outside the repository),
  each read once before any fit on it: pooled P 0.83 R 0.66 on main, P 0.85 R 0.67 on
  the branch of the day; fitted on afterwards.
- round 6, advocacy and hedging as clause moods (#24, branch pm-advgram; mood.py,
  moods.yaml; fit: set19 after its blind reading, sets 3-18, the shared fit half):
  set19 advocacy 0.58/0.35 -> 0.78/0.72, hedging 0.77/0.70 -> 0.80/0.74 (fit figures);
  sets 3-19 and the shared fit half pooled advocacy 0.85/0.74 -> 0.89/0.83, hedging
  0.92/0.90 -> 0.92/0.91, no set losing precision; shared held-out half read as figures
  only: hedging 0.81/0.90 unchanged, advocacy 0.86/0.83 -> 0.60/0.83 (3 new false
  flags). While listing errors, one run printed the false-flag lines of the whole shared
  set, four of them from held-out documents; nothing was fitted on them, but the
  held-out advocacy figure is no longer a clean reading.
- round 5, blame only (#24, branch pm-blame; fit: gathered sets 3-18, set18 released
  after its blind reading, and the shared fit half): shared held-out half blame read
  before and after, P 0.77 R 0.73 both times (its 3 false flags date from an earlier
  round); set18 blame 0.83/0.44 -> 1.00/0.91, now a fit figure; sets 3-18 and the
  shared fit half pooled 0.96/0.80 -> 1.00/0.93.
- round 6, blame grammar (#24, branch pm-grammar; fit: gathered sets 3-19, set19
  released after two blind readings, and the shared fit half): fault predicates as lemma
  classes read from verb groups (tense, aspect, voice, polarity, mood) and the writer's
  act followed by its breakage. Shared held-out half blame before and after: tp 10,
  fp 3, 11/15 found (P 0.77 R 0.73), unchanged; it was read as a figure after each step
  (texts never read), so it is no longer a clean check of this round. set19 blame 5/28
  -> 13/28 found, false flags 2 -> 2; sets 3-19 and the shared fit half pooled P 0.986
  R 0.806 (137/170) -> P 0.986 R 0.853 (145/170).
- round 7, advocacy cues (#24, branch pm-advcue; fit: sets 3-20, the shared fit half):
  clause-opening imperatives of a practice and deficiency heads of problem-list items
  as moods, evaluative nouns of limitation and difficulty, "must never happen again",
  stressed modals ("_should not_"). Shared held-out half as figures only, before and
  after: advocacy 0.60/0.83 unchanged, hedging 0.81/0.90 -> 0.83/0.90 (a hedge inside
  a clause now read as an opinion). set20 advocacy P 0.68 R 0.24 (13/55) -> P 0.85
  R 0.62 (34/55), set19 0.78/0.72 -> 0.78/0.74 (fit figures); sets 3-20 and the shared
  fit half pooled advocacy P 0.867 R 0.694 -> P 0.876 R 0.785, hedging false flags
  34 -> 31 (each inside a judged advocacy line), blame unchanged.
- round 7, blame cues (#24, branch pm-blamecue; blamecues.py, ``cues`` of the blame
  rule; fit: sets 12-20 from their caches, both read after their blind readings, and
  the shared fit half): a person-like agent tied to a fault cue (missing safeguard,
  wrong object, causation, unready, apology, no excuse, doing better, botched act,
  owned failing). Shared held-out half read as figures only, before and after: tp 10,
  fp 3, 11/15 (P 0.77 R 0.73) both times; one wrong-object flag it gained was removed
  by the general narrowing to acts that put something out (reproducing a broken thing
  is a reporter's act), its text never read. set19 blame 13/28 -> 14/28 (fp 2 -> 2),
  set20 9/33 -> 22/33 (fp 2 -> 2); sets 12-20 pooled P 0.96 R 0.66 (93/140, fp 4) ->
  P 0.96 R 0.76 (107/140, fp 4); shared fit half 1.00/1.00 unchanged.
- round 8, blame transfer (#24, branch pm-blame2): the fit sets split into a writing part
  (cached sets 12-18, gathered sets 3-11, the shared fit half, the project corpus, made-up
  probes) and a check part (sets 19-21, read in earlier rounds, no rule written from them
  this round); a change was kept only if it raised blame recall on the check part without
  lowering its precision. Kept: a failing owned through a possessive, a person's own not
  knowing or expecting what the act needed (cue classes may now narrow their agents, so
  the team's belief at the time stays clean). Check part blame 50/105, 8 false (P 0.86
  R 0.48; set19 14/28, set20 22/33, set21 14/44) -> 52/105, 8 false (P 0.87 R 0.50;
  set21 16/44); writing part unchanged (sets 12-18 71/79, sets 3-11 42/44, shared fit half
  19/19, corpus 6 TP, all without a false flag); shared held-out half as figures only,
  before and after: 0.77/0.73. Tried and dropped, each +0 found on the check part (some
  +1 false): sixteen more cue classes (apology tied to the act, a bad outcome brought
  about, a verdict with only "it", a wrong choice of any act, premature acts, skipped
  diligence, slips, an owned cause, a bare apology, a belief owned, ...), an open act
  lexicon (any regular past, the gain a lemmatiser would bring), past progressive and
  gerund acts, a wider consequence pair, "we" in the slip class, and an agent reading of
  role compounds and person relatives ("a team member", "the person who cut it").
- round 8, hedging and advocacy measured as transfer (#24, branch pm-moods2): rules
  written only from a writing part (cached sets 12-18, the shared fit half, the corpus of
  ``postmortem_lint_judged.yaml``); set19-21 pooled were the check part, read as figures
  only, and a change was kept only when it raised hedging precision (recall >= 0.70) or
  advocacy recall (precision >= 0.60) there. Kept: a judgement needs no process noun
  (evaluative mood about any topic but the incident's own objects), a past-tense judgement
  of an unclassed thing is narrative, a lone deficiency head is a label, doubt over the
  writer's own next step is deliberation, a clause after an opinion (unless it turns
  against it) argues for it and its hedge words are the argument's. Check part, before ->
  after: hedging P 0.658 R 0.820 (73 TP, 38 FP) -> P 0.689 R 0.820 (73, 33); advocacy P
  0.777 R 0.575 (73/127, 21 FP) -> P 0.780 R 0.614 (78/127, 22 FP); per set (H then A)
  set19 0.80/0.74, 0.78/0.74 -> 0.80/0.74, 0.76/0.74; set20 0.57/0.87, 0.85/0.62 ->
  0.65/0.87, 0.86/0.67; set21 0.58/0.91, 0.54/0.24 -> 0.60/0.91, 0.60/0.31. Writing part
  sets 12-18 hedging 0.947/0.928 unchanged, advocacy 0.916/0.888 -> 0.906/0.888; shared
  fit half advocacy 0.71/0.83 -> 0.62/0.83 (one more false flag); the corpus unchanged (H
  0.84/0.93, A 0.21/0.82, one more unjudged flag); shared held-out half (figures only)
  unchanged, H 0.83/0.90, A 0.60/0.83. Measured and dropped (no gain on the check part, or
  a loss on the writing part that the check did not repay): a general sentiment lexicon's
  words as evaluative predicates (valence >= 2: check A 0.73/0.65 but +8 false flags for 4
  spans, writing part A P 0.86, shared fit half A P 0.50; valence >= 1.5 took the shared
  held-out A to P 0.29), a norm about any topic, a general clause-opening imperative,
  every process noun inside Lessons, What went well or Why it slipped, general evaluative
  adjectives, excess ("too slow", "not ... enough"), a hedge before an opinion's clause
  (it drops a hedged cause set before a norm with a semicolon), a question anywhere in the
  sentence, past appearances, "you" with a hedge, first-person plans with any modal.
- round 9, set22 released as fit (#24, branch pm-fit22; set22 read blind twice, then fitted
  on; check part set19-21, one root per set, and the shared held-out half, figures only; a
  change kept only if no figure there fell). The general reason for set22's low hedging:
  conversational threads. Belief frames before an opinion of any topic, doubt conceded
  before one, hedged own plans and obligations, a fix's effect expected or put to the
  test, guesses after a comment's role prefix, irregular and hyphenated participles. set22
  (fit now) H 0.36/0.38 -> 0.69/0.77, B 0.83/0.41 -> 0.85/0.46, A 0.59/0.39 -> 0.61/0.42;
  set20 H 0.65/0.87 -> 0.67/0.87, every other check figure unchanged (set19 H 0.80/0.74,
  B 0.88/0.50, A 0.76/0.74; set20 B 0.92/0.67, A 0.86/0.67; set21 H 0.60/0.91, B
  0.80/0.36, A 0.60/0.31); shared held-out half H 0.83/0.90, B 0.77/0.73, A 0.60/0.83
  unchanged; writing part (sets 12-18, shared fit half) unchanged. Dropped: "problematic"
  as a judgement (+1 advocacy false flag on set21); "not sure" as a belief frame with "the
  right place" as a judgement (+1 advocacy false flag on set22).
- round 10, advocacy from recurrence (#24, branch pm-advocacy; fit: sets 12-23, set23
  released after three blind readings, one root per set; set24 blind, never opened).
  Every advocacy miss and false flag of sets 12-23 (98 misses, 47 false flags) was
  classed by its clause (norm, evaluation, imperative, wish, praise, agreement; the
  text's own recovery, plans and reader guidance) and by text kind; only groups with
  errors in three or more sets were fixed. Fixed: a modal that prescribes nothing
  (expectation after fixes, ability, "has to do with", inference), the response's own
  recovery, "can" of ability, a verdict on someone's past act (false flags); a verdict
  of merit on a way of working, agreement opening a reply, a norm under the writer's
  present belief, praise of a report or practice, a wish for prevention or for
  others' act, an imperative made a habit by its complement (misses). Sets 12-23
  pooled advocacy P 0.798 R 0.655 (186/284, 47 false) -> P 0.852 R 0.729 (207/284, 36
  false); per set (A) set19 0.76/0.74 -> 0.80/0.77, set20 0.86/0.67 -> 0.91/0.73,
  set21 0.60/0.31 -> 0.81/0.45, set22 0.61/0.42 -> 0.74/0.61, set23 0.50/0.27 ->
  0.68/0.50; hedging false flags 54 -> 53 (set20), blame unchanged on every set;
  shared held-out half as figures only, unchanged: H 0.83/0.90, B 0.77/0.73, A
  0.60/0.83. Left (recurring, not solved by a clause reading here): evaluations of a
  design in formal reports ("not resilient to a full outage", "a lack of canary
  testing"), negative imperatives inside a sentence, a counterfactual benefit ("would
  have prevented"), and the writer's own plans in threads said with "we should".
- round 11, advocacy evaluations and counterfactuals (#24, branch pm-adv2; fit: sets
  12-23, one root per set; set24 blind, never opened). Candidate analyses were scanned
  over every line of sets 12-23 (new spans found, new false flags, sets hit) and kept
  only with new hits in three or more sets and pooled precision >= 0.7. Kept: a present
  verdict of inadequacy on a design or a way of working (a design or process noun
  denied its adequacy, "is getting more painful", "leaves a lot to be desired", the
  writer's problems with a workflow): +5 spans in sets 20-23, 0 new false flags; with
  any subject it added a false flag on the shared held-out half (figures only), so the
  denial needs a design or process head noun. Measured and dropped: "lack of / absence
  of" in running text (+1 span, +6 false: mostly causes in the narrative, "lack of disk
  space"), "no ... in place" (no hit), "would/could have prevented or caught" (+2 spans
  in sets 22-23, +3 false in sets 18, 19, 21: the judges read hindsight and a PR's
  defence of itself as no push), "would prevent" (+1, +1 false), an evaluation inside
  the action items (+1 span, +24 false), negative imperatives inside a sentence (+3
  spans, all in one thread, +5 false), comparative norms ("it'd be a better procedure",
  "should do a better job", "the only way to catch this is": two sets only). Sets 12-23
  pooled advocacy P 0.852 R 0.729 (207/284, 36 false) -> P 0.855 R 0.746 (212/284, 36
  false); per set (A) set20 0.91/0.73 -> 0.91/0.75, set21 0.81/0.45 -> 0.82/0.48, set22
  0.74/0.61 -> 0.75/0.64, set23 0.68/0.50 -> 0.71/0.58, set19 0.80/0.77 unchanged;
  hedging and blame unchanged on sets 19-23; shared held-out half, figures only,
  unchanged: H 0.83/0.90, B 0.77/0.73, A 0.60/0.83.
- round 12, blame under a strict validation split (#24, branch pm-blame3): candidates
  written only from sets 12-23 and the shared fit half, each scored on set24 (released
  after two blind readings) as aggregate figures only; kept only with more spans found on
  set24 and no new false flag there, a gain in three or more writing sets, and no drop on
  the shared held-out half. Twenty-eight candidates measured (table in
  data/postmortem_lint_gathered/blame_recurrence.md); none kept, no rule changed. Only
  readings moved set24: the typographic apostrophe read as "'" (+2 spans, one writing
  set, +1 held-out false flag) and a subjectless reply's transitive breakage as the
  writer's (+1 span, two writing sets); every phrase class from the writing sets gained
  0 there. Figures unchanged: set24 blame P 0.90 R 0.46 (18/39, 2 false); shared
  held-out half H 0.83/0.90, B 0.77/0.73, A 0.60/0.83.
- round 12, advocacy then hedging under a strict validation split (#24, branch pm-adv3):
  candidates written only from sets 12-23 and the shared fit half (every advocacy and
  hedging miss and false flag there listed and classed by clause), each then scored on
  set24 (released after two blind readings) as aggregate figures only; kept only with
  new spans found on set24, no new false flag there, gains in three or more writing sets,
  and the shared held-out half unchanged. Writing gain / set24 gain (found, false flags):
  kept: a present verdict of weight as the predicate ("... is a really bad thing", "a bit
  problematic", "important", "better because"), +3 in 3 sets (14, 20, 22) / +2, +0; a
  verdict on an act as a way of working (a gerund or a removal as subject), +3 in 3 sets
  (14, 19, 23) / +1 (the same span), +0. The verdict with "wrong" added a held-out false
  flag and with "good"/"great" a writing one: left out. Dropped, no set24 gain (advocacy):
  a lesson frame (+2 spans, +2 false), norms of care or reliance (+4 in 2 sets), a
  suggestion without a modal of norm ("there could be", "is an option", "please
  consider", "would prevent these bugs", "the only way to catch", +7 in 4 sets), thread
  verdicts (docs "wrong", "I don't mind", "most annoying part", +6 in 5 sets), a
  rhetorical "can we stop ...-ing", elliptical "Worth doing", maxims ("what counts is",
  generic plurals that require), a third party's norm ("<Name> should"), courtesy
  formulas and a contributor's steps exempt (-1 and -2 false flags in one set each),
  questions skipped (-2 spans), a capitalised bare verb or any deontic word inside
  Lessons (+2 spans, +2 false; +0). Hedging, none validated (set24 gain 0 each): "cannot
  possibly" and a hedged superlative as emphasis, reassurance of the addressee,
  expected effects ("should help"), evidential "suggesting", "attributing", and a hedge
  yielding to advocacy anywhere in its sentence (-3 spans), the writer's belief about
  a past act of their own ("I think I pushed ...", +2 in 2 sets). Figures, before -> after:
  set24 A 0.58/0.30 (14/46, 10 false) -> 0.62/0.35 (16/46, 10), H 0.52/0.55 (15 false)
  -> 0.53/0.55 (14 false), B 0.90/0.46 unchanged; sets 12-23 pooled A 0.85/0.75
  (212/284, 36 false) -> 0.86/0.76 (217/284, 36); sets 19-23 and the shared halves
  unchanged otherwise (held-out H 0.83/0.90, B 0.77/0.73, A 0.60/0.83).
- round 13, blame as whole cells (#24, branch pm-blame4): writing part sets 12-22 and the
  shared fit half, validation part set23 + set24 (aggregate figures only), set25/26 never
  opened. Every judged blame span of the writing part (240) classed by agent x predicate
  (table in data/postmortem_lint_gathered/blame_recurrence.md): main finds 187; the 53
  misses spread over 30 cells, none above 6. Kept, one cell each, the same predicate for
  every agent of the cell: a person-like agent with a verb that is a fault of an act
  (alone 13 writing spans in 6 sets, no false flag; validation +2, 0 false), and the
  writer's denied diligence with either apostrophe (alone 6 spans in 4 sets; +1 in
  set21; validation +2, 0 false). 23 other readings measured, none moved the validation
  part without a false flag. Blame before -> after: set24 0.90/0.46 (18/39, 2 false) ->
  0.92/0.56 (22/39, 2), set21 0.97/0.66 -> 0.97/0.68, set23 1.00/0.71 unchanged; every
  hedging and advocacy figure and the shared held-out half (H 0.83/0.90, B 0.77/0.73, A
  0.60/0.83) unchanged.
- round 13, advocacy then hedging under a strict validation split (#24, branch
  pm-advh4): candidates written only from sets 12-22 and the shared fit half, after the
  clause-form shares of their advocacy spans and hedging false flags were measured
  (``postmortem_clause_forms.py``); each scored on set23 + set24 as aggregate figures.
  Twenty candidates (table in data/postmortem_lint_gathered/advocacy_hedging_recurrence.md);
  none kept, no rule changed. Every reading written from the writing sets' remaining
  errors fired on neither validation set (0 new flags there); only the two broad mood
  readings (a norm of unclassed or any topic) reached them, +4 spans for +9 and +12 false
  flags, and narrowing them by their writing-set false flags (40 -> 14 there) left the
  validation's 9 and the held-out half's 7 as they were. Figures unchanged: set23 H
  0.90/0.84, B 1.00/0.71, A 0.73/0.62; set24 H 0.53/0.55, B 0.90/0.46, A 0.62/0.35;
  shared held-out half H 0.83/0.90, B 0.77/0.73, A 0.60/0.83.
- round 14, the issue's forms as made-up evidence (#24, branch pm-forms): the writing
  evidence was the issue's list of miss forms, each written out as made-up sentences (match
  and no-match); per form a general clause reading, kept only if set23 + set24 (aggregate
  figures only) gained spans with no more false flags and no lower precision, the shared
  held-out half (figures only) lost nothing and sets 12-22 no category more than one false
  flag. 43 readings (table in data/postmortem_lint_gathered/advocacy_hedging_recurrence.md);
  34 match no validation line at all. Kept: a suggestion put as a question ("why not / how
  about" a practice, "could we make X a required check?"), +1 advocacy span, +0 false; a
  fix whose rightness is left open ("remains to be seen", "may or may not", "time will
  tell", "we'll see if"), +1 hedging span, +0 false. Dropped: hope frames (+0 / +1 or +2
  false), an unproven reproduction (+1 false on the fit half), a bare-plural passive norm
  (+1 false on the fit half), and every reading that matched no validation line. Before ->
  after: set23 A 0.73/0.62 (16/26, 6 false) -> 0.74/0.65 (17/26, 6); set24 H 0.53/0.55
  (16/29, 14 false) -> 0.55/0.59 (17/29, 14); every other figure of sets 12-24 and both
  shared halves unchanged (held-out H 0.83/0.90, B 0.77/0.73, A 0.60/0.83).
- round 14, blame from the issue's forms (#24, branch pm-bforms): the writing evidence
  is #24's list of blame forms written as made-up sentences (163, match and no-match;
  main reads 65 of the 76 written straight from the list right), each gap given a clause
  reading (agent x predicate) and scored with every rule on set23 + set24 (aggregate
  figures only) and the shared held-out half (figures only); set25/26 never opened.
  Fourteen readings (table in data/postmortem_lint_gathered/blame_recurrence.md): 13
  added no flag on any set (a copula of cause on the writer's change, an apology with
  "I introduced it", "that's on us", a role's job, a leftover left on, a passive fault
  with a person in the by-phrase, a terse "that was me", a release act done half-done,
  a vendor's fault act, verdicts on conduct, two exemptions for machine messages
  "unanswered" and for misreading the other side's comment); kept: a reply opening on
  a fault verb with no subject, validation +1 span and no false flag (set24 B 0.92/0.56
  -> 0.92/0.59), writing set14 +1 span, set18 +1 false flag. Hedging, advocacy and the
  shared held-out half unchanged (H 0.83/0.90, B 0.77/0.73, A 0.60/0.83).
- round 15, round 14's dropped readings on a third validation set (#24, branch
  pm-forms2): set27 (43 texts judged by hand for this round) joined set23 + set24 as the
  validation part, aggregate figures only; set25 and set26 blind. Same keep rule as round
  14. None of the 34 readings dropped for want of a matching line matches a line of set27
  either; the hope frame (H2, and its "we hope this fixes" half alone) fires there only as
  false flags (+0 spans, +3 / +2 hedging false over the three sets). Four wider made-up
  advocacy forms ("we might want to gate ...", "far too easy to ship ...", "is not
  scalable") and the readings of round 14's two made-up false flags (a fix's own to-do,
  "the flag should be removed now that the fix is out"; a process evaluation read as
  blame, "the way we cut releases is broken", whose agent is the process phrase, not the
  "we" inside it) match no line of any gathered set. Nothing kept, no rule changed;
  table in data/postmortem_lint_gathered/advocacy_hedging_recurrence.md. Figures: set27 H
  0.77/0.71 (24/34, 7 false), B 0.53/0.36 (8/22, 7), A 0.71/0.41 (12/29, 5); held-out H
  0.83/0.90, B 0.77/0.73, A 0.60/0.83; sets 12-24 and the fit half as on main after
  pm-bforms (set24 B 0.92/0.59).
- round 15, the dropped blame readings on set27 (#24, branch pm-bforms2): the 13
  readings round 14 dropped and the 23 round 13 dropped, scored with set23 + set24 +
  set27 as the validation part (aggregate figures only), the held-out half as figures
  only, set25/26 blind; kept if validation spans added >= false flags added, no held-out
  drop, at most one false flag more on sets 12-22. None adds a set27 span; one is kept:
  the writer as the agent of a clause with a fault noun or adjective (validation +1 span
  / +1 false flag: set23 B 1.00/0.71 -> 0.96/0.71, set24 B 0.92/0.59 -> 0.92/0.62); an
  apology then a past act (+2 / +1) fails on sets 12-22 (+4 false flags). The grammar's
  role class gains "packagers" (no figure moves). Held-out H 0.83/0.90, B 0.77/0.73, A
  0.60/0.83 and set27 B 0.53/0.36 unchanged; table in
  data/postmortem_lint_gathered/blame_recurrence.md.
- round 16, set27 released as writing material (#24, branch pm-fit27): rounds 13-15
  showed readings from the old writing sets or made-up forms no longer move new
  material, so set27's errors were read and classed (agent x predicate); the validation
  part is now set23 + set24 + set28 (29 texts judged blind for this round), aggregate
  figures only; set25/26 blind. Five general blame readings (a passive "caused by", the
  reader as experiencer of "should not have", a slip noun in the predicate or a defect
  owned, a longer reach for a wrong value put out, a slip adverb before the subject)
  take set27 blame from 0.53/0.36 (8/22, 7 false) to 0.76/0.59 (13/22, 4) but move no
  flag on set23, set24, set28, sets 12-22 or the held-out half: neutral on validation,
  so none is kept under the strict rule (they sit on branch pm-fit27-neutral); four
  hedging readings (set27 hedging 7 -> 3 false flags) are likewise neutral. Figures
  unchanged: set28 H 0.57/0.57, B 0.64/0.64, A 0.58/0.33; held-out H 0.83/0.90, B
  0.77/0.73, A 0.60/0.83; class table in data/postmortem_lint_gathered/blame_recurrence.md.
- round 17, blame as a closed agent class x an open predicate class (#24, branch
  pm-blame5): writing part sets 12-22, 25 (released as fit) and 27; validation part set23
  + set24 + set28, aggregate figures only; set26 and set29 blind. All 276 writing blame
  spans classed agent x predicate (main missed 83); per large missed cell one reading with
  a predicate class from a general verb list, kept only with validation spans added >=
  false flags added, spans added in three or more writing sets, no held-out drop. 18
  readings measured (table in data/postmortem_lint_gathered/blame_recurrence.md); kept
  one: the writer's act told with no fault word, its object (a destroy or wipe verb on
  what cannot be rebuilt) or its aftermath (regretted right after) carrying the fault,
  writing +5 spans in sets 22, 25, 27, validation +1 span, +0 false. The brief's three
  broad readings (a possessive contribution with any causal predicate, the writer or
  "you" with a negated completion verb) add nothing on any set. Blame before -> after:
  validation pooled 0.88/0.66 (58/88, 8 false) -> 0.88/0.67 (59/88, 8); set24 0.92/0.62
  -> 0.93/0.64; set25 0.79/0.45 -> 0.82/0.55; set22 0.93/0.76 -> 0.94/0.78; set27
  0.53/0.36 -> 0.56/0.41; every hedging and advocacy figure and the shared held-out half
  (H 0.83/0.90, B 0.77/0.73, A 0.60/0.83) unchanged.
- round 17 too, hedging precision first (#24, branch pm-hprec): writing part sets 12-22, set25
  (released as fit) and set27 and the shared fit half, every hedging false flag (48) and
  miss (41) classed by clause form per set; validation part set23 + set24 + set28,
  aggregate figures only; set26 and set29 blind. Eighteen candidates (table in
  data/postmortem_lint_gathered/advocacy_hedging_recurrence.md); six false-flag readings
  (plans, ability with a limiter, a belief framing a verdict, hedged proposals, hedged
  reasons, symptoms as seen) each took 2-3 writing false flags in three sets and moved
  nothing on the validation part; the broad ones (a hedge yields to any opinion in its
  clause, or before any future auxiliary) lost spans there. Kept: the writer's present
  guess in any frame (an assumption in the progressive or conditional, "makes me think",
  a belief or inference about their own act that put something out), writing +6 spans in
  sets 19, 22, 25, validation +1 span, +0 false flags. Hedging before -> after: set24
  0.55/0.59 (17/29, 14 false) -> 0.56/0.62 (18/29, 14); set25 0.63/0.57 -> 0.68/0.70
  (fit); set19 0.88/0.86 -> 0.88/0.88; set22 0.85/0.85 -> 0.85/0.88; set23 0.90/0.84,
  set28 0.57/0.57, set27 0.77/0.71 unchanged; blame, advocacy and the shared held-out
  half (H 0.83/0.90, B 0.77/0.73, A 0.60/0.83) unchanged everywhere.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import yaml  # noqa: E402

# The bars (#24) and the figure format: the corpus benchmark's, so both read alike.
from judged_tables import CATEGORIES, JudgedTableError, read_judged  # noqa: E402
from postmortem_lint_corpus import TARGETS, _fmt  # noqa: E402

from agentops.errors import DataError  # noqa: E402
from agentops.postmortem import datafiles  # noqa: E402
from agentops.postmortem import lint as lint_mod  # noqa: E402

SPLIT_FILE = ROOT / "benchmarks" / "data" / "postmortem_lint_eval_split.yaml"
MAX_TEXT = 2_000_000  # bytes read per document


def split_of(set_name: str, doc: str) -> str:
    """The split a document falls in, from its name alone."""
    digest = hashlib.sha256(f"{set_name}/{doc}".encode()).digest()
    return "fit" if digest[0] % 2 == 0 else "heldout"


@dataclass(frozen=True)
class Span:
    set_name: str
    doc: str
    start: int
    end: int
    category: str


@dataclass
class Tally:
    tp: int = 0  # flags inside a span of their category
    fp: int = 0
    found: int = 0  # spans with a flag
    spans: int = 0
    errors: list[str] = field(default_factory=list)

    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    def recall(self) -> float | None:
        return self.found / self.spans if self.spans else None


def read_sets(root: Path) -> tuple[dict[tuple[str, str], Path], list[Span]]:
    """Every document of every set under ``root`` and every judged span."""
    docs: dict[tuple[str, str], Path] = {}
    spans: list[Span] = []
    for set_dir in sorted(p for p in root.iterdir() if (p / "judged.tsv").is_file()):
        for path in sorted((set_dir / "texts").glob("*.md")):
            docs[(set_dir.name, path.stem)] = path
        try:
            rows = read_judged(set_dir / "judged.tsv")
        except JudgedTableError as exc:
            raise SystemExit(f"error: {exc}") from None
        for row in rows:
            if (set_dir.name, row.doc) not in docs:
                raise SystemExit(f"error: {set_dir / 'judged.tsv'}: no text for {row.doc!r}")
            spans.append(Span(set_dir.name, row.doc, row.start, row.end, CATEGORIES[row.cat]))
    if not docs:
        raise SystemExit(f"error: {root}: no set (a folder with judged.tsv and texts/)")
    return docs, spans


# What a document is, read from its set's sources.tsv ``kind`` cell. The lint's own input is
# a written-up post-mortem (P-5), while most gathered material is breakage threads; the
# two forms are reported apart so a figure on one is never read as a figure on the other.
_INCIDENT_WORDS = re.compile(r"\b(post-?mortems?|incidents?|retrospectives?|outages?)\b")
_THREAD_WORDS = re.compile(r"\b(threads?|comments?|forums?|mailing|social|reviews?)\b")
_WRITE_UP_WORDS = re.compile(r"\b(blogs?|status|docs?|wiki|notes|formal|reports?|pages?|"
                             r"slides|write-ups?|statements?)\b")


def form_of(kind: str) -> str:
    """"write-up" or "thread" for a sources.tsv kind; "unknown" when it says neither.

    The kind's head (before any parenthesis) decides first, then the whole kind: a
    post-mortem posted to a mailing list is a write-up, a pull request carrying a
    post-mortem checklist is a thread. Within one part, a word naming an incident write-up
    decides first (a post-incident review is a write-up), then a thread word (a comment
    thread mirrored on a web page is a thread), then a word of other written documents,
    then an issue or pull request by itself. Whole words only."""
    low = kind.strip().lower()
    for part in (low.split("(")[0], low):
        if _INCIDENT_WORDS.search(part):
            return "write-up"
        if _THREAD_WORDS.search(part):
            return "thread"
        if _WRITE_UP_WORDS.search(part):
            return "write-up"
        if part.split(" ")[0] in ("issue", "issues", "pr") or "pull request" in part:
            return "thread"
    return "unknown"


def read_forms(root: Path) -> dict[tuple[str, str], str]:
    """(set, doc) -> form, from every set's sources.tsv (absent file or row: unknown)."""
    out: dict[tuple[str, str], str] = {}
    for set_dir in sorted(p for p in root.iterdir() if (p / "judged.tsv").is_file()):
        path = set_dir / "sources.tsv"
        if not path.is_file():
            continue
        for row in path.read_text(encoding="utf-8").splitlines()[1:]:
            cells = row.split("\t")
            if len(cells) >= 2 and cells[0]:
                out[(set_dir.name, cells[0])] = form_of(cells[1])
    return out


def load_split(path: Path) -> dict[str, str]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None
    if not isinstance(data, dict) or data.get("version") != 1 \
            or not isinstance(data.get("documents"), dict):
        raise SystemExit(f"error: {path}: expected version: 1 and documents (run "
                         "--write-split once)")
    for doc, split in data["documents"].items():
        if split not in ("fit", "heldout"):
            raise SystemExit(f"error: {path}: documents.{doc}: fit or heldout")
        set_name, _, name = str(doc).partition("/")
        if split != split_of(set_name, name):
            raise SystemExit(f"error: {path}: documents.{doc}: recorded {split}, the hash "
                             "rule says otherwise")
    return dict(data["documents"])


def write_split(path: Path, docs: dict[tuple[str, str], Path]) -> None:
    lines = ["version: 1",
             "# Split of the shared judged post-mortem sets (#24), fixed before fitting:",
             "# sha256('<set>/<doc>') first byte even -> fit, odd -> heldout",
             "# (benchmarks/postmortem_lint_eval.py). Identifiers only.",
             "documents:"]
    lines += [f"  {s}/{d}: {split_of(s, d)}" for s, d in sorted(docs)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def flags(text: str) -> tuple[dict[str, set[int]], set[int]]:
    """Lines flagged per category, and the heading lines."""
    rules = [r for r in datafiles.lint_rules() if r.kind == "lexicon"]
    sections = datafiles.sections()
    parsed = lint_mod.parse(text, sections)
    out: dict[str, set[int]] = {c: set() for c in CATEGORIES.values()}
    for f in lint_mod.lint(text, rules, file="doc", sections=sections):
        if f.rule in out:
            out[f.rule].add(f.line)
    return out, {h.line for h in parsed.headings}


Flags = tuple[dict[str, set[int]], set[int]]


def measure(root: Path, split: str, recorded: dict[str, str],
            form: str | None = None, memo: dict[str, Flags] | None = None) -> dict[str, Any]:
    """Figures of one split; with ``form``, of the documents of that form only. ``memo``
    (text -> flags) lets one run lint each document once although it measures it in
    several blocks (its split, "all", and its form's block with --by-form)."""
    memo = {} if memo is None else memo
    docs, spans = read_sets(root)
    forms = read_forms(root) if form else {}
    tallies = {c: Tally() for c in CATEGORIES.values()}
    heading_flags: list[str] = []
    crashes: list[str] = []
    unrecorded: list[str] = []
    n_docs = 0
    for (set_name, doc), path in sorted(docs.items()):
        name = f"{set_name}/{doc}"
        where = recorded.get(name)
        if where is None:
            unrecorded.append(name)
            where = split_of(set_name, doc)
        if split not in ("all", where):
            continue
        if form and forms.get((set_name, doc), "unknown") != form:
            continue
        n_docs += 1
        raw = path.read_bytes()[:MAX_TEXT].decode("utf-8", errors="replace")
        try:
            if raw not in memo:
                memo[raw] = flags(raw)
            flagged, headings = memo[raw]
        except Exception as exc:  # a crash is a result here, not an abort
            crashes.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        mine = [s for s in spans if s.set_name == set_name and s.doc == doc]
        for category, lines in flagged.items():
            t = tallies[category]
            own = [s for s in mine if s.category == category]
            for line in sorted(lines):
                if line in headings:
                    heading_flags.append(f"{name}:{line}: {category}")
                if any(s.start <= line <= s.end for s in own):
                    t.tp += 1
                else:
                    t.fp += 1
                    t.errors.append(f"FP {name}:{line}")
            for s in own:
                t.spans += 1
                if any(s.start <= line <= s.end for line in lines):
                    t.found += 1
                else:
                    t.errors.append(f"FN {name}:{s.start}-{s.end}")
    return {"split": split, "form": form or "all", "documents": n_docs, "crashes": crashes,
            "heading_flags": heading_flags, "unrecorded": unrecorded,
            "categories": {c: {"tp": t.tp, "fp": t.fp, "found": t.found, "spans": t.spans,
                               "precision": t.precision(), "recall": t.recall(),
                               "target": {"precision": TARGETS[c][0],
                                          "recall": TARGETS[c][1]},
                               "errors": t.errors}
                           for c, t in tallies.items()}}


def report(result: dict[str, Any], verbose: bool) -> None:
    form = "" if result.get("form", "all") == "all" else f", {result['form']}s only"
    print(f"split {result['split']}{form}: {result['documents']} documents")
    print(f"{'category':10} {'P':>5} {'R':>5}  {'TP':>4} {'FP':>4}  {'spans':>9}  target P/R")
    for c, r in result["categories"].items():
        tp, tr = r["target"]["precision"], r["target"]["recall"]
        ok = (r["precision"] or 0) >= tp and (r["recall"] or 0) >= tr
        print(f"{c:10} {_fmt(r['precision'])} {_fmt(r['recall'])}  {r['tp']:4} {r['fp']:4}  "
              f"{r['found']:4}/{r['spans']:<4}  {tp:.2f}/{tr:.2f} {'ok' if ok else 'BELOW'}")
        if verbose:
            for line in r["errors"]:
                print(f"    {line}")
    print(f"flags on headings: {len(result['heading_flags'])}; crashes: "
          f"{len(result['crashes'])}")
    for line in result["heading_flags"] + result["crashes"]:
        print(f"    {line}")
    if result["unrecorded"]:
        print(f"not in the split file (placed by the hash rule): {len(result['unrecorded'])}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("eval_dir", help="folder holding set1/, set2/, ... (judged.tsv, texts/)")
    p.add_argument("--split", choices=("fit", "heldout", "all"), default=None,
                   help="one split (default: fit, heldout, then all)")
    p.add_argument("--split-file", default=str(SPLIT_FILE),
                   help="recorded split (default: %(default)s)")
    p.add_argument("--write-split", action="store_true",
                   help="record the hash split of every document, then stop")
    p.add_argument("--json", action="store_true", help="one JSON object per split")
    p.add_argument("--verbose", action="store_true",
                   help="list every FP and FN (document and line only)")
    p.add_argument("--by-form", action="store_true",
                   help="after each split's figures, the same figures for write-ups and for "
                        "threads apart (form read from each set's sources.tsv kind)")
    args = p.parse_args(argv)
    root = Path(args.eval_dir)
    if not root.is_dir():
        p.error(f"{root} is not a folder")
    if args.write_split:
        docs, _ = read_sets(root)
        write_split(Path(args.split_file), docs)
        print(f"recorded {len(docs)} documents in {args.split_file}")
        return 0
    recorded = load_split(Path(args.split_file))
    # A rule file that does not load would make every document a "crash" and every figure
    # n/a, which reads like a result: stop instead, naming the file and key.
    try:
        datafiles.lint_rules()
        datafiles.sections()
    except DataError as exc:
        print(f"error: the lint's data does not load: {exc}", file=sys.stderr)
        return 2
    memo: dict[str, Flags] = {}
    for split in [args.split] if args.split else ["fit", "heldout", "all"]:
        forms = [None, "write-up", "thread", "unknown"] if args.by_form else [None]
        for form in forms:
            result = measure(root, split, recorded, form, memo)
            if form == "unknown" and not result["documents"]:
                continue
            if args.json:
                print(json.dumps(result))
            else:
                report(result, args.verbose)
                print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
