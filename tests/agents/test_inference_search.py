"""Search that reads the opponent: ``expert:inference=MODEL`` and the local best response
(``lbr:target=NAME``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sixtysix_env.agents import make_agent
from sixtysix_env.agents.lbr import LocalBestResponse
from sixtysix_env.agents.models import PolicyModel, opponent_model
from sixtysix_env.agents.registry import AgentSpecError
from sixtysix_env.evaluation import evaluate
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import player_view


def _views(seeds, agent="heuristic"):
    player = make_agent(agent)
    for seed in seeds:
        s = new_hand(seed)
        rng = random.Random(seed)
        while s.result is None:
            v = player_view(s, s.current_player())
            yield v
            s = s.apply(player.act(v, rng))


@pytest.mark.slow
def test_before_the_opponent_moves_inference_changes_nothing():
    plain = make_agent("expert")
    reading = make_agent("expert:inference=heuristic")
    s = new_hand(11, dealer=1)  # seat 0 leads: no opponent move yet
    v = player_view(s, 0)
    assert plain.decide(v, random.Random(3)) == reading.decide(v, random.Random(3))


@pytest.mark.slow
def test_inference_games_repeat_with_the_seed():
    spec = "expert:inference=heuristic,samples=8"
    one = evaluate([spec, "heuristic"], deals=3, seed=21, workers=1, progress=False)
    two = evaluate([spec, "heuristic"], deals=3, seed=21, workers=1, progress=False)
    assert one.pairs[0].gp_per_hand == two.pairs[0].gp_per_hand
    assert one.pairs[0].hands_won_a == two.pairs[0].hands_won_a


@pytest.mark.slow
def test_inference_draws_other_deals_once_the_opponent_has_moved():
    plain = make_agent("expert:samples=16")
    reading = make_agent("expert:inference=heuristic,samples=16,inference_softness=0.0")
    differ = 0
    for v in _views(range(6)):
        if v.is_strict or not v.events:
            continue
        a = plain.decide(v, random.Random(1))[1]
        b = reading.decide(v, random.Random(1))[1]
        differ += a != b
    assert differ > 5


@pytest.mark.parametrize(
    "spec, message",
    [
        ("expert:inference=nobody", "an opponent model is random, heuristic"),
        ("expert:inference=expert", "a search bot is too slow"),
        ("expert:inference=heuristic,inference_softness=2", "inference_softness must be"),
        ("expert:inference=heuristic,inference_worlds=0", "inference_worlds must be"),
        ("lbr:target=random", "lbr's target must be a network policy"),
        ("lbr:prior=sixtysix-ppo", "no option 'prior'"),
        ("lbr:inference_softness=0.2", "no option 'inference_softness'"),
        ("lbr:inference_argmax=true", "no option 'inference_argmax'"),
        ("expert:inference=heuristic,inference_argmax=2", "inference_argmax must be true or"),
    ],
)
def test_bad_inference_options_are_refused_by_name(spec, message):
    with pytest.raises((AgentSpecError, ValueError, TypeError), match=message):
        make_agent(spec)


def test_the_argmax_model_gives_the_policy_agents_own_move_most():
    agent = make_agent("sixtysix-ppo-v4")
    model = opponent_model(agent, softness=0.05, argmax=True)
    assert isinstance(model, PolicyModel)
    views = [v for v in _views([3, 4]) if v.legal_mask & (v.legal_mask - 1)][:40]
    p = model.probabilities(views)
    assert [int(np.argmax(row)) for row in p] == [agent.act(v, random.Random(0)) for v in views]
    assert np.allclose(p.sum(axis=1), 1.0)


def test_inference_argmax_reads_a_network_as_the_move_it_plays():
    """A network model is its softmax by default and, with inference_argmax, the move it
    plays softened by inference_softness (as the local best response reads its target)."""
    soft = make_agent("guided:inference=sixtysix-ppo")._model
    hard = make_agent("guided:inference=sixtysix-ppo,inference_argmax=true,"
                      "inference_softness=0.2")._model
    assert isinstance(soft, PolicyModel) and soft.softness is None
    assert isinstance(hard, PolicyModel) and hard.softness == 0.2
    views = [v for v in _views([5]) if v.legal_mask & (v.legal_mask - 1)][:20]
    p = hard.probabilities(views)
    legal = np.array([[v.legal_mask >> a & 1 for a in range(p.shape[1])] for v in views])
    assert np.allclose(p.max(axis=1), 0.8 + 0.2 / legal.sum(axis=1))
    assert not np.allclose(soft.probabilities(views), p)


@pytest.mark.slow
def test_the_local_best_response_plays_its_target_in_rollouts_and_reads_it():
    lbr = make_agent("lbr:target=sixtysix-ppo,samples=8")
    assert isinstance(lbr, LocalBestResponse) and lbr.name == "lbr"
    assert lbr.rollout_opponent == "prior" and lbr.margin == 0.0
    assert isinstance(lbr._model, PolicyModel) and lbr._model.softness == 0.05
    assert make_agent("lbr:target=heuristic").rollout_opponent == "heuristic"
    res = evaluate(["lbr:target=sixtysix-ppo,samples=8", "sixtysix-ppo"], deals=2, seed=5,
                   workers=1, progress=False)
    assert res.complete and res.pairs[0].hands == 4
