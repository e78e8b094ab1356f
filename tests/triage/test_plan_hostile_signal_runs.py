"""Security (#23, rev34 review): this stop's planner paths on an issue built to be large.
Anyone can open an issue, and the rounds merged here read every signal of the report
again: the compiler contending with a component named once from anywhere outside the
repro's code (calibration round), the default team's evidence outweighing a team that
one signal makes fit, and where the title first names each team (module round 3). A
body of 1 MB of repeated signal words and a title of repeated signal words at the
length cap are planned under the watchdog, through the same paths as the small reports
of test_plan_issue23_calibration.py and test_plan_issue23_module_round3.py, and the plan
still passes the constraint checker."""

from __future__ import annotations

import pytest

from agentops.triage import signals
from tests import watchdog
from tests.triage.plankit import PAR, fence, make_issue, plan_ok

ONE_MB = 1 << 20
_REPRO = fence("mesh = init_device_mesh('cuda', (4,))\n"
               "dt = distribute_tensor(torch.randn(8, 4), mesh, [Shard(0)])\n"
               "print(torch.compile(step)(dt).shape)")


def _run(words: str, size: int) -> str:
    return (words * (size // len(words) + 1))[:size]


# (title, body, a label the path under test still decides on the large report): each
# repeats what one of the new paths reads, to the caps and past them.
CASES = {
    # The compiler in the prose beside a component named once, the prose repeated: the
    # contending owner still withholds `triaged`.
    "compiler prose": (
        "DTensor redistribute gives a wrong local shape",
        _REPRO + _run("the step is wrapped in torch.compile with the inductor backend; ", ONE_MB),
        "triage review"),
    # One backend word against the default team's components, over and over: the
    # default team keeps the route.
    "one backend word": (
        "torch.distributed.pipelining hangs in the CPU gloo backend",
        _run("pipeline stage schedule microbatch gloo backend ", ONE_MB), PAR),
    # Every team named in a title past its cap, so where each is first named is read.
    "a title of every team": (
        _run("FSDP get_state_dict NCCL timeout gloo DTensor torch.compile ",
             signals.MAX_TITLE_CHARS * 2),
        _run("FSDP DTensor get_state_dict gloo NCCL timeout torch.compile DeviceMesh ",
             ONE_MB), "bot-triaged"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_large_report_of_signal_words_is_planned_in_bounded_time(case: str, queue) -> None:
    title, body, decided = CASES[case]
    plan = watchdog.within(watchdog.SECONDS, lambda: plan_ok(make_issue(title, body), queue))
    assert decided in plan.add_labels, plan.reasoning
