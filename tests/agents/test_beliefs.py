"""Beliefs over the hidden cards (sixtysix_env.agents.beliefs): every world agrees with the view,
the exact posterior equals a brute-force count over deals, sampling converges to it, and
two deals with the same view give the same belief."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from _beliefs_checks import check_enumeration

from sixtysix_env.agents import beliefs as B
from sixtysix_env.agents.base import RandomAgent
from sixtysix_env.agents.heuristic import HeuristicAgent
from sixtysix_env.agents.models import PolicyModel, RuleModel, UniformModel, opponent_model
from sixtysix_env.game.actions import CLOSE
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import hidden_places, player_view
from sixtysix_env.util.errors import IllegalActionError

HEURISTIC = HeuristicAgent()


def positions(seeds, rules=("altmisalti", "santase", "pagat66"), mix=0.7):
    """(view, seed) of every decision in hands played by a mix of heuristic and random
    moves (so that some moves are ones the heuristic would not make)."""
    for seed in seeds:
        for r in rules:
            s = new_hand(seed, rules=r)
            rng = random.Random(seed)
            while s.result is None:
                p = s.current_player()
                v = player_view(s, p)
                yield v, seed
                agent = HEURISTIC if rng.random() < mix else RandomAgent()
                s = s.apply(agent.act(v, rng))


def test_every_sampled_world_replays_to_the_same_view():
    rng = random.Random(3)
    n = 0
    for v, _ in positions(range(12)):
        h = B.history(v)
        for w in B.sample_worlds(v, h, rng, 4):
            state, seen = B.replay(v, h, w.deck)
            assert player_view(state, v.seat) == v
            assert len(seen) == len(h.opponent_moves)
            assert state.hand(1 - v.seat) & ~v.opponent_known == w.hidden
            n += 1
    assert n > 2000


@pytest.mark.slow
def test_enumeration_counts_and_replays():
    views = (v for v, _ in positions(range(20), rules=("altmisalti", "santase")))
    assert check_enumeration(views) >= 10


def brute_force_marginals(v, model):
    """P(opponent holds card) by replaying every arrangement of the opponent's cards
    (deadlines not used: the engine refuses what cannot happen) and keeping the deals
    that give this seat the same view."""
    h = B.history(v)
    opp = 1 - v.seat
    candidates, need = hidden_places(v)
    mine = B.enumerate_worlds(v, h)[0].deck  # this seat's places: any one that works
    my_places = set(h.places[v.seat])
    drawn = [pos for pos, st in zip(h.places[opp], h.stage[opp]) if st > 0]
    dealt = [pos for pos, st in zip(h.places[opp], h.stage[opp]) if st == 0]
    totals, weight, kept = np.zeros(24), 0.0, 0
    for pick in itertools.combinations(candidates, need):
        hidden = sum(1 << c for c in pick)
        held = v.opponent_known | hidden | v.played[opp] | h.given[opp]
        cards = [c for c in range(24) if (held & ~h.not_placed[opp]) >> c & 1]
        stock = [c for c in range(24) if (v.unseen() & ~hidden) >> c & 1]
        for order in itertools.permutations(cards, len(drawn)):
            rest = [c for c in cards if c not in order]
            deck = [mine[i] if i in my_places else -1 for i in range(24)]
            deck[12] = h.original_trump
            for pos, c in (*zip(drawn, order), *zip(dealt, rest), *zip(h.stock_places, stock)):
                deck[pos] = c
            try:
                state, seen = B.replay(v, h, deck)
            except IllegalActionError:
                continue
            if player_view(state, v.seat) != v:
                continue
            kept += 1
            probs = model.probabilities(seen)
            w = math.prod(probs[i, h.actions[j][1]] for i, j in enumerate(h.opponent_moves))
            weight += w
            for c in pick:
                totals[c] += w
    return totals / weight, kept


@pytest.mark.slow
@pytest.mark.parametrize("model_name", ["heuristic", "random"])
def test_exact_belief_equals_brute_force(model_name):
    model = opponent_model(model_name, softness=0.25)
    cases = drawn_cases = 0
    for v, _ in positions(range(40), rules=("altmisalti", "santase")):
        h = B.history(v)
        if not h.opponent_moves or v.result is not None:
            continue
        candidates, need = hidden_places(v)
        opp = 1 - v.seat
        n_drawn = sum(1 for st in h.stage[opp] if st > 0)
        size = math.comb(len(candidates), need) * math.perm(len(h.places[opp]), n_drawn)
        if size > 1500:
            continue
        belief = B.infer(v, model, exact=True)
        expected, kept = brute_force_marginals(v, model)
        drawn_cases += n_drawn > 0
        assert kept == B.count_worlds(v, h)
        got = belief.card_probabilities()
        for c in candidates:
            assert got[c] == pytest.approx(expected[c], abs=1e-9)
        assert got.sum() == pytest.approx(v.opponent_hand_size)
        cases += 1
        if cases >= 8 and drawn_cases >= 3:
            break
    assert cases >= 8 and drawn_cases >= 3


@pytest.mark.slow
def test_sampling_converges_to_the_exact_belief():
    model = opponent_model("heuristic", softness=0.2)
    done = 0
    for v, _ in positions(range(30), rules=("altmisalti",)):
        h = B.history(v)
        if len(h.opponent_moves) < 3 or not 100 < B.count_worlds(v, h) <= 2000:
            continue
        exact = B.infer(v, model, exact=True).card_probabilities()
        sampled = B.infer(v, model, random.Random(1), worlds=6000, exact=False)
        assert not sampled.exact
        assert np.abs(sampled.card_probabilities() - exact).max() < 0.06
        done += 1
        if done == 3:
            break
    assert done == 3


@pytest.mark.slow
def test_a_redeal_with_the_same_view_gives_the_same_belief():
    model = opponent_model("heuristic")
    rng = random.Random(8)
    tried = 0
    for v, _ in positions(range(6), rules=("altmisalti",)):
        h = B.history(v)
        if len(h.opponent_moves) < 2 or v.is_exhausted:
            continue
        first = B.infer(v, model, random.Random(5), worlds=64, exact=False)
        for w in B.sample_worlds(v, h, rng, 3):
            state, _ = B.replay(v, h, w.deck)  # another deal that this seat cannot tell apart
            again = B.infer(player_view(state, v.seat), model, random.Random(5), 64, False)
            assert np.array_equal(again.card_probabilities(), first.card_probabilities())
            assert again.hidden == first.hidden
        tried += 1
    assert tried > 20


@pytest.mark.slow
def test_the_true_deal_keeps_weight_when_the_model_is_the_opponent():
    """Against the heuristic itself, a model that gives its move probability 1 never
    rules out the deal actually dealt (and does rule out others)."""
    model = RuleModel(HEURISTIC, softness=0.0)
    ruled_out = checked = 0
    for seed in range(20):
        s = new_hand(seed)
        while s.result is None:
            p = s.current_player()
            v = player_view(s, p)
            if p == 0 and v.legal_mask >> CLOSE & 1:
                s = s.apply(CLOSE)  # seat 0 closes at once: few worlds are left to count
                continue
            h = B.history(v)
            if p == 0 and h.opponent_moves and not v.is_exhausted:
                if B.count_worlds(v, h) <= 3000:
                    belief = B.infer(v, model, exact=True)
                    truth = s.hand(1) & ~v.opponent_known
                    weight = sum(w for m, w in zip(belief.hidden, belief.weights) if m == truth)
                    assert weight > 0 and not belief.degenerate
                    ruled_out += int((belief.weights == 0).any())
                    checked += 1
            s = s.apply(HEURISTIC.act(v, random.Random(0)))
    assert checked >= 20 and ruled_out >= 5


def test_the_belief_draws_only_worlds_with_weight():
    v = next(v for v, _ in positions([4], ("altmisalti",), mix=1.0) if len(B.history(v).opponent_moves) >= 3)
    belief = B.infer(v, RuleModel(HEURISTIC, softness=0.0), random.Random(0), 400, exact=False)
    rng = random.Random(1)
    heavy = {m for m, w in zip(belief.hidden, belief.weights) if w > 0}
    for _ in range(50):
        st = belief.determinize(rng)
        assert st.hand(1 - v.seat) & ~v.opponent_known in heavy


def test_models_give_probabilities_over_the_legal_moves():
    views = [v for v, _ in itertools.islice(positions([1, 2], ("altmisalti",)), 40)]
    legal = np.array([[v.legal_mask >> a & 1 for a in range(34)] for v in views], bool)
    for model in (UniformModel(), RuleModel(HEURISTIC, 0.3), opponent_model("sixtysix-ppo-v4")):
        p = model.probabilities(views)
        assert p.shape == (len(views), 34)
        assert np.allclose(p.sum(axis=1), 1.0)
        assert (p[~legal] == 0).all()
    policy = opponent_model("sixtysix-ppo-v4")
    assert isinstance(policy, PolicyModel)
    one = np.stack([policy.agent.action_probabilities(v) for v in views])
    assert np.allclose(policy.probabilities(views), one, atol=1e-6)
    assert isinstance(opponent_model("random"), UniformModel)


def test_bad_arguments_are_refused_by_name():
    v = next(v for v, _ in positions([0], ("altmisalti",)) if B.history(v).opponent_moves)
    model = UniformModel()
    with pytest.raises(ValueError, match="exact must be"):
        B.infer(v, model, exact="yes")
    with pytest.raises(ValueError, match="worlds must be"):
        B.infer(v, model, random.Random(0), worlds=0, exact=False)
    with pytest.raises(ValueError, match="needs rng"):
        B.infer(v, model, exact=False)

    class Wrong:
        def probabilities(self, views):
            return np.ones((len(views), 5))

    with pytest.raises(ValueError, match="shape"):
        B.infer(v, Wrong(), exact=True)
    with pytest.raises(ValueError, match="softness"):
        RuleModel(HEURISTIC, softness=1.5)
    with pytest.raises(TypeError, match="opponent model"):
        opponent_model(42)


def test_no_opponent_move_gives_the_uniform_belief():
    s = new_hand(3, dealer=0)  # seat 1 leads: seat 1's first view has no opponent move
    v = player_view(s, s.current_player())
    belief = B.infer(v, UniformModel())
    _, need = hidden_places(v)
    p = belief.card_probabilities()
    unseen = [c for c in range(24) if v.unseen() >> c & 1]
    assert np.allclose(p[unseen], need / len(unseen))


def test_the_batched_engine_weighs_the_worlds_as_the_reference_engine():
    pytest.importorskip("numba", reason="the batched engine needs the [fast] extra")
    rng = random.Random(6)
    checked = 0
    for name in ("heuristic", "random", "sixtysix-ppo"):
        model = opponent_model(name, softness=0.2)
        for v, _ in itertools.islice(positions([7], ("altmisalti", "santase")), 0, None, 5):
            h = B.history(v)
            if not h.opponent_moves:
                continue
            found = B.sample_worlds(v, h, rng, 16)
            reference = B.infer_weights(v, h, model, found, batched=False)
            got = B.infer_weights(v, h, model, found, batched=True)
            if name == "sixtysix-ppo":  # one matrix product per move, not one for all: rounding
                np.testing.assert_allclose(got, reference, rtol=1e-5)
            else:
                assert np.array_equal(got, reference)
            checked += 1
    assert checked > 10
