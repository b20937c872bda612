"""The same seeded games through the vector environment, its SB3 adapter and the evaluation
(issue 68): the paired deals of ``sixtysix eval``'s lock-step path, dealt as the evaluation deals
them (``deal_deck``), played by a network against the heuristic, give A the same game points
deal by deal in all three, and in the per-hand reference path."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

pytest.importorskip("numba", reason="the batched engine needs numba (the [fast] extra)")

from sixtysix_env.agents import make_agent  # noqa: E402
from sixtysix_env.agents.batch import batched  # noqa: E402
from sixtysix_env.env.vector import SixtySixVectorEnv  # noqa: E402
from sixtysix_env.evaluation.play import (  # noqa: E402
    deal_deck,
    play_paired_deal,
    play_paired_deals_batched,
)
from sixtysix_env.game.rules import make_rules  # noqa: E402
from sixtysix_env.policy.shipped import shipped_policies  # noqa: E402

SEED, DEALS = 11, 12
RULES = make_rules("altmisalti")


def _policy():
    name = min(shipped_policies())
    return make_agent(name)


def _given():
    """Lane ``2 * k + g``: deal ``k``'s deck and dealer, the learner (A) at seat ``g``."""
    decks = np.array([deal_deck(SEED, k) for k in range(DEALS) for _ in (0, 1)])
    dealers = np.array([k % 2 for k in range(DEALS) for _ in (0, 1)])
    return {"decks": decks, "dealers": dealers, "learner_seats": np.arange(2 * DEALS) % 2}


def _first_hands(reset, step, hands, learner):
    """Each lane's reward at the end of its first hand, the learner's moves its own."""
    n = 2 * DEALS
    seats = np.arange(n) % 2
    lanes = np.arange(n, dtype=np.int64)
    got = np.full(n, np.nan)
    reset()
    while np.isnan(got).any():
        live = np.isnan(got)
        actions = np.zeros(n, np.int64)
        actions[live] = learner.act_batch(hands(), lanes[live], seats[live])
        reward, done = step(actions)
        got[live & done] = reward[live & done]
    return got


@pytest.mark.slow  # SB3's import and a network's 24 hands: over a second
@pytest.mark.skipif(importlib.util.find_spec("stable_baselines3") is None,
                    reason="the SB3 adapter needs the [train] extra")
def test_same_games_in_the_vector_env_the_sb3_adapter_and_the_evaluation():
    from sixtysix_env.env.sb3 import SB3VecEnv

    a, b = _policy(), make_agent("heuristic")
    records = play_paired_deals_batched(batched(a), batched(b), SEED, 0, DEALS, RULES)
    want = np.array([gp for r in records for gp in r.gp], float)
    assert [r.gp for r in records] == [
        play_paired_deal(a, b, SEED, k, RULES).gp for k in range(DEALS)]
    assert len(set(want.tolist())) > 1  # not all one result

    vec = SixtySixVectorEnv(num_envs=2 * DEALS, opponent=b, rules=RULES)

    def vec_step(actions):
        _, reward, terminated, _, _ = vec.step(actions)
        return reward, terminated

    got_vec = _first_hands(lambda: vec.reset(options=_given()), vec_step, lambda: vec.states,
                           batched(a))
    assert got_vec.tolist() == want.tolist()

    sb3 = SB3VecEnv(SixtySixVectorEnv(num_envs=2 * DEALS, opponent=b, rules=RULES,
                                      autoreset_mode="SameStep"))

    def sb3_reset():
        sb3.set_options(_given())
        sb3.reset()

    def sb3_step(actions):
        sb3.step_async(actions)
        _, reward, done, _ = sb3.step_wait()
        return reward, done

    got_sb3 = _first_hands(sb3_reset, sb3_step, lambda: sb3.env.states, batched(a))
    assert got_sb3.tolist() == want.tolist()


class _Cheater:
    """A batched agent that answers 99 (no action) in every game."""

    needs_states = False
    name = "cheater"

    def act_batch(self, hands, lanes, seats, rngs=None, states=None):
        return np.full(len(lanes), 99, np.int64)


def test_the_lock_step_evaluation_names_an_agents_illegal_answer():
    from sixtysix_env.evaluation.play import IllegalAgentActionError

    times = ([], [])
    with pytest.raises(IllegalAgentActionError, match="'cheater'.*99") as info:
        play_paired_deals_batched(batched("random"), _Cheater(), SEED, 0, 2, RULES,
                                  names=("random", "cheater"), times=times)
    assert info.value.agent == "cheater" and info.value.seat in (0, 1)
    assert info.value.legal_actions and len(times[1]) > 0  # its call was timed
