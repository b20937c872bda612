"""Agents: legal play in every preset, the registry, and sound endgame choices."""

from __future__ import annotations

import random

import pytest
from _positions import open_views, solved_positions

from sixtysix_env import PRESETS, new_hand, player_view
from sixtysix_env.agents import (
    Agent,
    AgentSpecError,
    ExpertAgent,
    HeuristicAgent,
    RandomAgent,
    agent_names,
    make_agent,
    parse_agent_spec,
    register_agent,
)
from sixtysix_env.agents.expert import rollout_action, rollout_value
from sixtysix_env.agents.heuristic import close_estimate, sure_winners
from sixtysix_env.agents.solver import Solver
from sixtysix_env.game.actions import CLOSE, EXCHANGE, NUM_ACTIONS
from sixtysix_env.game.engine import HAND, TO_MOVE

PRESET_NAMES = sorted(PRESETS)


def play_hands(agents, rules, hands, seed):
    """Seeded hands between two agents; every action is checked against the legal set."""
    rng = random.Random(seed)
    results = []
    for i in range(hands):
        s = new_hand(rng, dealer=i % 2, rules=rules)
        while not s.is_terminal():
            p = s.current_player()
            view = player_view(s, p)
            a = agents[p].act(view, rng)
            assert type(a) is int and 0 <= a < NUM_ACTIONS
            assert s.is_legal(a), (agents[p].name, a, s.legal_actions())
            s = s.apply(a)
        results.append(s.result)
    return results


# One preset in the fast lane (30 s) on a quarter of the hands (the first ones of the same
# seeded games); every preset on all of them in the full suite.
@pytest.mark.parametrize("share", [pytest.param(4, id="quarter"),
                                   pytest.param(1, id="all", marks=pytest.mark.slow)])
@pytest.mark.parametrize("preset", [p if p == "altmisalti" else pytest.param(p, marks=pytest.mark.slow)
                                    for p in PRESET_NAMES])
def test_random_and_heuristic_play_thousands_of_legal_hands(preset, share):
    h, r = HeuristicAgent(), RandomAgent()
    results = play_hands((h, r), preset, 1000 // share, seed=1)
    results += play_hands((r, h), preset, 1000 // share, seed=2)
    results += play_hands((h, h), preset, 500 // share, seed=3)
    assert len(results) == 2500 // share


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.slow
def test_expert_plays_legal_hands(preset):
    # One sample per decision keeps this quick; legality does not depend on it.
    e, h, r = ExpertAgent(samples=1), HeuristicAgent(), RandomAgent()
    results = play_hands((e, r), preset, 500, seed=4)
    results += play_hands((h, e), preset, 400, seed=5)
    results += play_hands((e, e), preset, 100, seed=6)
    assert len(results) == 1000


def test_heuristic_beats_random_clearly():
    # Not a strength target (the evaluation measures those): a sanity check
    # that the heuristic is not broken.
    h, r = HeuristicAgent(), RandomAgent()
    gp = 0
    for seat in (0, 1):
        agents = (h, r) if seat == 0 else (r, h)
        gp += sum(res.returns()[seat] for res in play_hands(agents, "altmisalti", 300, seed=9))
    assert gp / 600 > 0.8


def test_registry_builds_agents_by_name_and_options():
    assert {"random", "heuristic", "expert"} <= set(agent_names())
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("heuristic"), HeuristicAgent)
    e = make_agent("expert", samples=3, time_budget=0.05)
    assert isinstance(e, ExpertAgent) and e.samples == 3 and e.time_budget == 0.05
    e2 = make_agent("expert:samples=5,time_budget=none,margin=0.1")
    assert e2.samples == 5 and e2.time_budget is None and e2.margin == 0.1
    assert parse_agent_spec("expert:samples=2") == ("expert", {"samples": 2})
    for a in ("random", "heuristic", "expert"):
        agent = make_agent(a)
        assert isinstance(agent, Agent) and agent.name == a
    obj = HeuristicAgent()
    assert make_agent(obj) is obj


def test_registry_errors_are_clear(tmp_path):
    with pytest.raises(AgentSpecError, match="unknown agent 'nobody'.*heuristic"):
        make_agent("nobody")
    with pytest.raises(AgentSpecError, match="malformed agent option"):
        make_agent("expert:samples")
    with pytest.raises(AgentSpecError, match="bad options for agent 'expert'"):
        make_agent("expert", bogus=1)
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent(str(tmp_path / "missing.npz"))
    with pytest.raises(ValueError, match="samples"):
        ExpertAgent(samples=0)
    with pytest.raises(TypeError):
        make_agent(42)


def test_a_malformed_policy_file_is_refused(tmp_path):
    from sixtysix_env.policy import PolicyFileError

    path = tmp_path / "policy.npz"
    path.write_bytes(b"not a real policy")
    with pytest.raises(PolicyFileError, match="not a zip archive"):
        make_agent(str(path))


def test_register_agent():
    register_agent("always-first", lambda: _First())
    try:
        assert make_agent("always-first").name == "first"
    finally:
        from sixtysix_env.agents import registry

        registry._FACTORIES.pop("always-first")
    with pytest.raises(ValueError):
        register_agent("bad:name", RandomAgent)


class _First:
    name = "first"

    def act(self, view, rng):
        return view.legal_actions()[0]


def test_agents_are_reproducible_given_the_rng():
    s = new_hand(21)
    for _ in range(3):
        s = s.apply(s.legal_actions()[0])
    view = player_view(s, s.current_player())
    for agent in (RandomAgent(), HeuristicAgent(), ExpertAgent(samples=4)):
        a1 = agent.act(view, random.Random(5))
        a2 = agent.act(view, random.Random(5))
        assert a1 == a2


def test_expert_sees_only_the_view():
    """Two deals that differ only in cards seat 0 cannot see give it the same choice."""
    rng = random.Random(3)
    checked = 0
    for seed in range(40):
        s = new_hand(seed, dealer=1)
        # Seat 0 leads the first trick: swap one opponent card with a stock card.
        opp = s.hand(1)
        stock = list(s.stock_cards)
        c_opp = min(c for c in range(24) if opp >> c & 1)
        c_stock = stock[0]
        t = s.__copy__()
        t.v = s.v[:]
        t.v[HAND + 1] = (opp & ~(1 << c_opp)) | (1 << c_stock)
        t.stock = (c_opp,) + tuple(stock[1:])
        assert t.v[TO_MOVE] == 0
        va, vb = player_view(s, 0), player_view(t, 0)
        assert va == vb
        agent = ExpertAgent(samples=3)
        seed_rng = rng.randrange(1000)
        assert agent.act(va, random.Random(seed_rng)) == agent.act(vb, random.Random(seed_rng))
        checked += 1
    assert checked == 40


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.slow
def test_expert_never_picks_a_move_the_solver_proves_worse(preset):
    expert = ExpertAgent(samples=2)
    for s in solved_positions(60, seed=len(preset), preset=preset):
        best, moves = Solver(s.rules).best_actions(s)
        a = expert.act(player_view(s, s.current_player()), random.Random(0))
        assert a in moves, (s, a, moves, best)


def test_expert_and_heuristic_exchange_the_nine():
    rng = random.Random(8)
    found = 0
    for i in range(400):
        s = new_hand(rng, dealer=i % 2)
        while not s.is_terminal() and not s.is_strict():
            if EXCHANGE in s.legal_actions():
                view = player_view(s, s.current_player())
                assert HeuristicAgent().act(view, rng) == EXCHANGE
                assert ExpertAgent(samples=2).act(view, rng) == EXCHANGE
                found += 1
                break
            s = s.apply(rng.choice([a for a in s.legal_actions() if a != CLOSE]))
    assert found > 20


def test_heuristic_helpers():
    # Ace and ten of trumps (hearts = suit 2) against an opponent holding low trumps.
    ah, th, nh = 2 * 6 + 5, 2 * 6 + 4, 2 * 6 + 0
    hand = (1 << ah) | (1 << th)
    opp = 1 << nh
    assert sure_winners(hand, opp, 0, 2) == hand
    # A side ace is not sure while the opponent may be void and hold a trump.
    ac = 5
    assert not sure_winners(1 << ac, opp, 0, 2)
    assert sure_winners(1 << ac, opp | 1, 1, 2) == 1 << ac  # known to hold a club


def test_heuristic_close_estimate_counts_current_points():
    s = new_hand(0)
    view = player_view(s, s.current_player())
    assert close_estimate(view) >= view.points(view.seat)


def test_rollout_policy_is_legal_and_ends_hands():
    rng = random.Random(0)
    for preset in PRESET_NAMES:
        sv = None
        for i in range(100):
            s = new_hand(rng, dealer=i % 2, rules=preset)
            sv = sv or Solver(s.rules)
            for _ in range(rng.randrange(10)):
                if s.is_terminal() or s.is_strict():
                    break
                a = rollout_action(s)
                assert s.is_legal(a)
                s = s.apply(a)
            val = rollout_value(s, sv)
            assert -3 <= val <= 3


def test_expert_time_budget_and_validation():
    with pytest.raises(ValueError):
        ExpertAgent(time_budget=0)
    with pytest.raises(ValueError, match="open_search"):
        ExpertAgent(open_search="some")
    s = new_hand(5)
    view = player_view(s, s.current_player())
    a = ExpertAgent(samples=1000, time_budget=0.001, min_samples=1).act(view, random.Random(0))
    assert a in view.legal_actions()
    for mode in ("none", "close"):
        assert ExpertAgent(samples=2, open_search=mode).act(view, random.Random(0)) in view.legal_actions()


def test_agent_listing_names_the_close_options():
    from sixtysix_env.agents.listing import describe_agents

    text = describe_agents()
    assert "close_penalty" in text and "likely_points_per_trick" in text
    assert "close_margin" not in text


def test_expert_prior_is_the_default_move():
    """With a prior, the move ``margin`` protects is the policy's argmax, not the heuristic's."""
    policy = make_agent("sixtysix-ppo")
    guided = make_agent("expert:prior=sixtysix-ppo,samples=4,margin=100")
    plain = ExpertAgent(samples=4, margin=100)
    differs = 0
    for view in open_views(30, seed=8, choices=3):
        choice = guided.act(view, random.Random(1))
        assert choice == policy.act(view, random.Random(1))
        differs += plain.act(view, random.Random(1)) != choice
    assert differs > 0  # the heuristic's default is another move somewhere


def test_expert_prior_weight_moves_the_choice_towards_the_prior():
    policy = make_agent("sixtysix-ppo")
    heavy = ExpertAgent(samples=4, margin=0, prior="sixtysix-ppo", prior_weight=1000.0)
    for view in open_views(10, seed=9, choices=3):
        action, values = heavy.decide(view, random.Random(2))
        probs = policy.action_probabilities(view)
        assert action == max(values, key=lambda a: probs[a])
        assert heavy.act(view, random.Random(2)) == action


def test_expert_prior_must_be_a_policy():
    with pytest.raises(AgentSpecError, match="prior must be a policy.*'sixtysix-ppo'.*'heuristic'"):
        make_agent("expert:prior=heuristic")
    with pytest.raises(ValueError, match="nowhere.npz"):
        make_agent("expert:prior=nowhere.npz")
    with pytest.raises(TypeError, match="prior must be a policy"):
        ExpertAgent(prior=HeuristicAgent())
    with pytest.raises(AgentSpecError, match="prior_weight needs a prior"):
        make_agent("expert:prior_weight=0.5")


def test_rollout_policy_plays_only_its_seat_in_the_open_phase():
    rng = random.Random(4)
    sv = Solver(new_hand(0).rules)
    for i in range(30):
        s = new_hand(rng, dealer=i % 2)
        seat = i % 2
        calls = []

        def lowest(state, seat=seat, calls=calls):
            assert state.current_player() == seat and not state.is_strict()
            calls.append(state)
            return state.legal_actions()[0]

        val = rollout_value(s, sv, close=False, policy=lowest, policy_seats=(seat,))
        assert -3 <= val <= 3
        assert calls  # each seat moves in the open phase of a fresh hand
    with pytest.raises(AgentSpecError, match="rollout_prior needs a prior"):
        make_agent("expert:rollout_prior=true")
    with pytest.raises(AgentSpecError, match="rollout_opponent='prior' needs a prior"):
        make_agent("expert:rollout_opponent=prior")
    with pytest.raises(AgentSpecError, match="rollout_opponent must be 'heuristic' or 'prior'"):
        make_agent("guided:rollout_opponent=me")
    both, calls = [], []
    for seat in (0, 1):
        s = new_hand(11, dealer=seat)
        rollout_value(s, sv, close=False, policy=lambda st: calls.append(st.current_player())
                      or st.legal_actions()[0], policy_seats=(0, 1))
        both.append(set(calls))
    assert both[-1] == {0, 1}


def test_expert_with_rollout_prior_plays_legal_hands():
    e = ExpertAgent(samples=2, prior="sixtysix-ppo", rollout_prior=True)
    results = play_hands((e, HeuristicAgent()), "altmisalti", 3, seed=6)
    results += play_hands((HeuristicAgent(), e), "altmisalti", 3, seed=7)
    both = make_agent("guided:samples=2,rollout_opponent=prior")
    results += play_hands((both, HeuristicAgent()), "altmisalti", 3, seed=8)
    assert len(results) == 9


def test_guided_is_the_expert_with_the_shipped_prior():
    from sixtysix_env.agents import GuidedExpertAgent

    g = make_agent("guided")
    assert isinstance(g, GuidedExpertAgent) and g.name == "guided"
    assert (g.prior, g.rollout_prior, g.samples) == ("sixtysix-ppo", True, 64)
    assert "guided" in agent_names()
    g2 = make_agent("guided:rollout_prior=false,samples=8")
    assert (g2.rollout_prior, g2.samples) == (False, 8)
    view = open_views(1, seed=3, choices=3)[0]
    assert g.act(view, random.Random(0)) in view.legal_actions()


def test_a_sampling_prior_plays_its_argmax_in_rollouts():
    sampling = make_agent("sixtysix-ppo:deterministic=false")
    e = ExpertAgent(samples=2, prior=sampling, rollout_prior=True)
    assert e._prior.deterministic and sampling.deterministic is False
    assert e._prior.network is sampling.network


@pytest.mark.parametrize(("opponent", "seats"), [("heuristic", "me"), ("prior", "both")])
def test_the_prior_plays_the_rollout_moves_of_the_seats_it_is_given(opponent, seats):
    # The Python rollouts, whose prior moves go through _prior_move one at a time (the
    # compiled ones give the same moves: tests/agents/test_expert_engines.py).
    e = make_agent(f"guided:samples=3,rollout_opponent={opponent},engine=python")
    movers = []
    inner = e._prior_move

    def spy(state):
        movers.append(state.current_player())
        return inner(state)

    e._prior_move = spy
    for view in open_views(4, seed=12, choices=3):
        del movers[:]
        e.decide(view, random.Random(0))
        expected = {view.seat} if seats == "me" else {0, 1}
        assert movers and set(movers) <= expected
        if seats == "both":
            assert set(movers) == {0, 1}


def test_an_agent_class_of_ones_own_by_module_and_class(tmp_path, monkeypatch):
    from sixtysix_env.agents import AgentSpecError, make_agent, parse_agent_spec

    (tmp_path / "own_bots.py").write_text(
        "class Pick:\n"
        "    name = 'pick'\n"
        "    def __init__(self, which: int = 0):\n"
        "        self.which = which\n"
        "    def act(self, view, rng):\n"
        "        return [a for a in range(64) if view.legal_mask >> a & 1][0]\n"
        "def not_an_agent():\n"
        "    return 3\n"
    )
    monkeypatch.chdir(tmp_path)  # found from the current folder, as uvicorn finds module:app
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", ".")])
    assert parse_agent_spec("own_bots:Pick:which=2") == ("own_bots:Pick", {"which": 2})
    assert parse_agent_spec("expert:samples=4") == ("expert", {"samples": 4})
    assert make_agent("own_bots:Pick:which=2").which == 2
    for spec, message in [
        ("own_bots:Nope", "has no class 'Nope'"),
        ("no_such_module_xyz:Pick", "cannot import the module 'no_such_module_xyz'"),
        ("own_bots:Pick:colour=1", "no option 'colour'"),
        ("own_bots:not_an_agent", r"has no act\(view, rng\) method"),
    ]:
        with pytest.raises(AgentSpecError, match=message):
            make_agent(spec)


def test_an_option_naming_a_file_last_is_an_option_not_a_path(tmp_path):
    """``expert:prior=x.npz``: a last option naming a file is an option, not a path."""
    from sixtysix_env.agents import parse_agent_spec

    assert parse_agent_spec("expert:samples=2,prior=x.npz") == (
        "expert", {"samples": 2, "prior": "x.npz"})
    assert parse_agent_spec("guided:prior=sixtysix-ppo.npz") == (
        "guided", {"prior": "sixtysix-ppo.npz"})
    assert parse_agent_spec("runs/a:b/policy.npz") == ("runs/a:b/policy.npz", {})
    assert parse_agent_spec("my.zip") == ("my.zip", {})
    path = tmp_path / "expert:odd.npz"  # an existing file is a file, whatever its name
    path.write_bytes(b"")
    assert parse_agent_spec(str(path)) == (str(path), {})


@pytest.mark.parametrize("suffix", [".zip", ".npz"])
def test_a_name_whose_file_ending_was_forgotten_gets_the_file_suggested(tmp_path, suffix):
    """``sixtysix eval my_sb3 heuristic`` beside ``my_sb3.zip``: the error names the file."""
    stem = tmp_path / "my_sb3"
    (tmp_path / f"my_sb3{suffix}").write_bytes(b"")
    with pytest.raises(AgentSpecError) as e:
        make_agent(str(stem))
    assert f"unknown agent {str(stem)!r} (did you mean {stem}{suffix}?);" in str(e.value)
    assert "built-in agents" in str(e.value)  # the names it knows, as for any unknown name
    with pytest.raises(AgentSpecError) as e:  # no such file beside it: no guess
        make_agent(str(tmp_path / "other"))
    assert "did you mean" not in str(e.value)
