"""The expert's search ends within its time budget, not a deal past it.

The search checked its budget after each sampled deal and stopped once past it (and
never before ``min_samples`` deals), so a decision overran its budget by up to a deal,
or by several. It now does not begin a deal that the last one's time says would end
past the budget; :meth:`ExpertAgent.think_within` (what ``sixtysix play`` and
``serve`` set, under their ``--min-think`` pad) also lets one deal be enough. Here the
deals are made slow and regular (a sleep in place of the search's work), 0.45 of the
budget each: the search used to take three (1.35 budgets), now at most two (0.9). The
deals are counted, not timed: a stall of the machine makes a deal longer, never more
deals (the count is what the search chose; a stall ends a search sooner).
"""

from __future__ import annotations

import random
import time

import pytest

from sixtysix_env import new_hand, player_view
from sixtysix_env.agents import ExpertAgent, HeuristicAgent
from sixtysix_env.agents.heuristic import obvious_action
from sixtysix_env.game.actions import CLOSE

BUDGET = 0.2
#: Each sampled deal's seconds: the budget holds two deals and not a third.
DEAL = 0.45 * BUDGET


class SlowDeals(ExpertAgent):
    """The expert whose every sampled deal takes about ``DEAL`` seconds (its rollouts
    and solves replaced by a sleep, every value 0)."""

    def __init__(self, **options) -> None:
        super().__init__(engine="python", samples=1000, prune_after=0, **options)
        self.per_call = DEAL
        self.calls = 0

    def warm_up(self, rules=None) -> None:
        """Nothing to load (a sleep is the search)."""

    def _value_after(self, s2, action, solver) -> int:  # an open-phase deal, per action
        self.calls += 1
        time.sleep(self.per_call)
        return 0

    def _solver(self, rules):
        agent = self

        class Slow:  # a closed-stock deal: one solve
            def clear(self):
                pass

            def action_values(self, state):
                agent.calls += 1
                time.sleep(agent.per_call)
                return dict.fromkeys(state.legal_actions(), 0)

        return Slow()


def a_view(closed: bool):
    """The view of a decision with a choice: in the open phase, or after a close."""
    rng = random.Random(3)
    h = HeuristicAgent()
    while True:
        s = new_hand(rng, dealer=rng.randrange(2))
        while not s.is_terminal():
            view = player_view(s, s.current_player())
            if closed and s.closed_by is None and view.legal_mask >> CLOSE & 1:
                s = s.apply(CLOSE)
                continue
            if obvious_action(view.legal_mask) is None and (
                (s.closed_by is not None) == closed and not view.is_exhausted
            ):
                return view
            s = s.apply(h.act(view, rng))


@pytest.mark.parametrize("closed", [False, True], ids=["open stock", "closed stock"])
@pytest.mark.parametrize("bounded_by", ["time_budget", "think_within"])
def test_a_search_ends_within_its_budget_not_a_deal_past_it(closed, bounded_by):
    view = a_view(closed)
    if bounded_by == "time_budget":
        agent = SlowDeals(time_budget=BUDGET, min_samples=1)
    else:
        agent = SlowDeals()  # min_samples 4: think_within lets one deal be enough
        agent.think_within(BUDGET)
        assert agent.time_budget is None and agent.think_bound == BUDGET
    deals = len(view.legal_actions()) if not closed else 1
    agent.per_call = DEAL / deals  # an open-phase deal sleeps once per action
    t0 = time.perf_counter()
    assert agent.act(view, random.Random(0)) in view.legal_actions()
    took = time.perf_counter() - t0
    searched = agent.calls / deals
    assert searched == int(searched) >= 1  # whole deals
    # Before: on past the budget, three deals (1.35 budgets); now those that fit (two).
    assert searched * DEAL <= BUDGET, (searched, took)
    assert took < 2 * BUDGET  # (a wide margin: the machine may stall)


def test_think_within_keeps_the_smaller_bound_and_checks_it():
    agent = ExpertAgent(time_budget=0.05, engine="python")
    agent.think_within(0.3)
    assert agent.time_budget == 0.05 and agent._budget() == (0.05, 1)
    agent = ExpertAgent(time_budget=2.0, min_samples=8, engine="python")
    agent.think_within(0.3)
    assert agent.time_budget == 2.0 and agent._budget() == (0.3, 1)
    with pytest.raises(ValueError, match="seconds must be a number from 0.001 to 3600, got 0"):
        agent.think_within(0)
