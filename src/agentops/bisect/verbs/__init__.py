"""The verbs of ``scripts/nightly_bisect.py``, one module each, named as the verb:
``versions``, ``resolve``, ``range``, ``plan``, ``probe``, ``narrow`` and ``auto`` (the
action's default, which picks probe, narrow or plan). Each exposes ``<verb>_command``.
What they share: ``agentops.bisect.session`` (what a run reads), ``args`` (the good/bad
pair, dates) and ``output`` (stdout, the probe matrix).

Every verb computes everything first and only then prints, sets step outputs or writes
a file (atomically), so a failure leaves nothing half-written. Nothing here writes to
GitHub.
"""
