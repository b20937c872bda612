"""The pad (``--min-think``) hides whether the computer had a choice
only if its own time stays under the pad, so an unseeded session bounds a search agent
(expert, guided) to a share of the pad per decision, in the terminal and on the page.

Before, nothing bounded the terminal's expert, and the page's only at ``think_seconds``
(2 s, five times the 0.4 s pad): 98 of 405 decisions were longer than the pad.
"""

from __future__ import annotations

import pytest

from sixtysix_env.play import session
from sixtysix_env.play.session import MIN_THINK_SECONDS, GameSession


def share() -> float:
    """The share of the pad a search may think (read when a test runs)."""
    return session.SEARCH_SHARE


def test_the_share_leaves_a_margin_under_the_pad():
    assert 0 < share() <= 0.5


@pytest.mark.parametrize("spec", ["expert:engine=python", "guided:engine=python"])
def test_an_unseeded_session_bounds_a_search_under_its_pad(spec):
    s = GameSession(spec, min_think_seconds=MIN_THINK_SECONDS)
    assert s.think_bound == s.agent.think_bound == share() * MIN_THINK_SECONDS
    assert s.agent.time_budget is None  # the option as given: the bound is beside it
    assert s.agent._budget() == (share() * MIN_THINK_SECONDS, 1)


def test_the_bound_is_the_smaller_of_the_spec_and_the_pad():
    bound = share() * 0.4
    s = GameSession("expert:time_budget=60,engine=python", min_think_seconds=0.4)
    assert s.agent._budget() == (bound, 1)
    s = GameSession("expert:time_budget=0.01,engine=python", min_think_seconds=0.4)
    assert s.agent._budget() == (0.01, 1)


def test_a_seeded_session_or_no_pad_leaves_the_search_reproducible():
    """A seed fixes the computer's choices (its deals can be rebuilt from it anyway), and
    without a pad there is nothing to hide: no time bound either way."""
    assert GameSession("expert:engine=python", seed=1, min_think_seconds=0.4).think_bound is None
    s = GameSession("expert:engine=python", seed=1, min_think_seconds=0.4)
    assert s.agent.think_bound is None and s.agent._budget() == (None, 4)
    assert GameSession("expert:engine=python", min_think_seconds=0).agent.think_bound is None


def test_any_agent_with_think_within_is_bounded_and_others_are_left_alone():
    class Searcher:
        name = "searcher"

        def __init__(self):
            self.calls = []

        def think_within(self, seconds, rules):
            self.calls.append((seconds, rules))

        def act(self, view, rng):
            return view.legal_actions()[0]

    agent = Searcher()
    s = GameSession(agent, rules="santase", min_think_seconds=0.3)
    assert agent.calls == [(share() * 0.3, s.rules)]
    assert s.rules.name == "santase"
    assert GameSession("heuristic", min_think_seconds=0.3).think_bound is None


def test_the_page_bounds_the_search_under_its_pad_too():
    """`sixtysix serve`: the search's budget is the smaller of think_seconds (the spec's
    own bound, kept as the agent's time_budget) and the share of the pad."""
    pytest.importorskip("flask")
    from sixtysix_env.play.web import create_app

    spec = "expert:engine=python"
    app = create_app([spec], default="random", think_seconds=2.0, min_think_seconds=0.4)
    r = app.test_client().post("/api/games", json={"opponent": spec})
    assert r.status_code == 201, r.get_json()
    agent = app.config["GAMES"].get(r.get_json()["game_id"]).session.agent
    assert agent.time_budget == 2.0 and agent._budget() == (share() * 0.4, 1)
