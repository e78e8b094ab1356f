"""P-5 hedging (#24, round 61, pm-fit24b): an artefact's availability as the reporter
finds it now ("the link appears to be broken", "it seems the mirror is offline") is a
state observed, not doubt; the same appearance verb over a cause, a past event or a
guess at what happened still hedges. Each pair keeps the appearance verb and changes
only what it is said of, so a rule that exempts the verb itself fails the second side.
Sentences are made up."""

from __future__ import annotations

import pytest

from tests.postmortem.lintkit import hedges as _hedges


@pytest.mark.parametrize(("observed", "guessed"), [
    ("The download link for the model weights appears to be broken.",
     "The download link appears to be broken by the storage migration."),
    ("It seems that the docs mirror is offline.",
     "It seems that the docs mirror went offline when the cert expired."),
    ("It appears the config file in the sdist is missing.",
     "It appears the config file was dropped by the packaging step."),
    ("The nightly wheels seem to be unavailable on the index.",
     "The nightly wheels seem to have been deleted by the cleanup job."),
])
def test_availability_observed_is_no_hedge(observed: str, guessed: str) -> None:
    assert _hedges(observed) == []
    assert _hedges(guessed)
