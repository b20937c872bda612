"""Without numba the vector env names the extra; sixtysix eval plays per hand with the same
figures as in lock-step."""

from __future__ import annotations

import sys

import gymnasium
import pytest

import sixtysix_env  # noqa: F401  (registers SixtySix-v0)
from sixtysix_env.batched import MissingExtraError
from sixtysix_env.evaluation import runner


def test_vector_env_without_numba_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba now fails
    for name in [m for m in sys.modules if m == "sixtysix_env.env.vector"
                 or m.startswith("sixtysix_env.batched.")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(MissingExtraError, match=r'pip install "sixtysix\[fast\]"'):
        gymnasium.make_vec("SixtySix-v0", num_envs=2, vectorization_mode="vector_entry_point")
    # The other vectorization modes need nothing more.
    env = gymnasium.make_vec("SixtySix-v0", num_envs=2, vectorization_mode="sync")
    env.reset(seed=0)


@pytest.mark.parametrize("agents", [  # a network against random, and a sampling one, in the fast lane
    ["sixtysix-ppo", "random"], pytest.param(["heuristic", "sixtysix-ppo-v3"], marks=pytest.mark.slow),
    ["sixtysix-ppo-v3:deterministic=false", "heuristic"]])
def test_eval_figures_are_the_same_per_hand_and_in_lock_step(monkeypatch, agents):
    pytest.importorskip("numba", reason="numba (the [fast] extra) is not installed")
    fast = []
    assert runner.batchable("hand", [runner.make_agent(a) for a in agents])
    res = runner.evaluate(agents, deals=40, seed=3, on_record=fast.append)
    monkeypatch.setattr(runner, "have_numba", lambda: False)
    assert not runner.batchable("hand", [runner.make_agent(a) for a in agents])
    slow = []
    res2 = runner.evaluate(agents, deals=40, seed=3, on_record=slow.append)
    assert sorted((r.index, r.gp) for r in fast) == sorted((r.index, r.gp) for r in slow)
    assert res.pairs == res2.pairs
