"""``sixtysix eval`` in lock-step plays every move as hand by hand, even where a move hangs on
the last bit of a float sum: a network whose 24 card logits differ by about 1e-7 of their
size (so that a sum in another order, as one matrix product per batch makes it, picks
another card at about one decision in five) gives the same game points on every deal both
ways. The shipped networks' near ties are rarer (17 of 1,000 deals of ``sixtysix-ppo-v4``
against ``sixtysix-ppo-v3`` came out otherwise with one product per batch), too rare for a
short test to meet."""

from __future__ import annotations

import pytest
from _near_ties import near_ties_network

from sixtysix_env.evaluation import runner
from sixtysix_env.policy.agent import PolicyAgent


def _near_ties() -> PolicyAgent:
    return PolicyAgent(near_ties_network(), name="near-ties")


def test_a_network_of_near_ties_scores_the_same_per_hand_and_in_lock_step(monkeypatch):
    pytest.importorskip("numba", reason="numba (the [fast] extra) is not installed")
    agents = [_near_ties(), "random"]
    assert runner.batchable("hand", [agents[0], runner.make_agent("random")])
    fast: list = []
    runner.evaluate(agents, deals=30, seed=5, on_record=fast.append)
    monkeypatch.setattr(runner, "have_numba", lambda: False)
    slow: list = []
    runner.evaluate(agents, deals=30, seed=5, on_record=slow.append)
    got = {r.index: r.gp for r in fast}
    want = {r.index: r.gp for r in slow}
    assert len(got) == 30
    differ = [i for i in want if got[i] != want[i]]
    assert not differ, f"deals {differ} score otherwise in lock-step than hand by hand"
