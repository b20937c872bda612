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


# -- the opponent model's reading of the hand counts inside the budget --------------------
#
# ``lbr`` and ``expert:inference=...`` read the opponent's cards from its moves before the
# search: the reading weighed every world whatever the budget, so on the page 123 of 288
# lbr decisions outlasted the 0.4 s pad. The reading now has a deadline inside the budget.
# Here the clock is a counter: the model's and the deals' work advance it, nothing sleeps.


class Clock:
    """A fake ``time`` module: ``perf_counter()`` is what the work has added up."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


class CostlyModel:
    """The heuristic's reading, each view it is asked about costing ``per_view`` seconds
    of the fake clock; it counts the views."""

    def __init__(self, clock: Clock, per_view: float) -> None:
        from sixtysix_env.agents.models import opponent_model

        self.inner = opponent_model("heuristic", 0.3)
        self.clock, self.per_view, self.views = clock, per_view, 0

    def probabilities(self, views):
        self.views += len(views)
        self.clock.now += self.per_view * len(views)
        return self.inner.probabilities(views)


def a_read_view(least_worlds: int, most_worlds: int = 10**9, closed: bool = False):
    """A view with a choice, after opponent moves, with from ``least_worlds`` to
    ``most_worlds`` worlds agreeing with it; the stock open, or closed by then."""
    from sixtysix_env.agents.beliefs import count_worlds, history

    rng = random.Random(7)
    h = HeuristicAgent()
    while True:
        s = new_hand(rng, dealer=rng.randrange(2))
        while not s.is_terminal() and not player_view(s, 0).is_exhausted:
            view = player_view(s, s.current_player())
            read = len(history(view).opponent_moves) >= 2
            if closed and read and s.closed_by is None and view.legal_mask >> CLOSE & 1:
                s = s.apply(CLOSE)
                continue
            if (
                obvious_action(view.legal_mask) is None
                and read
                and (s.closed_by is not None) == closed
                and least_worlds <= count_worlds(view) <= most_worlds
            ):
                return view
            s = s.apply(h.act(view, rng))


@pytest.fixture
def clock(monkeypatch):
    from sixtysix_env.agents import beliefs
    from sixtysix_env.agents import expert as expert_module

    fake = Clock()
    monkeypatch.setattr(beliefs, "time", fake, raising=False)
    monkeypatch.setattr(expert_module, "time", fake)
    return fake


def test_the_reading_begins_no_batch_of_worlds_past_its_deadline(clock):
    from sixtysix_env.agents.beliefs import BATCH_WORLDS, history, infer

    view = a_read_view(least_worlds=1000)
    moves = len(history(view).opponent_moves)
    model = CostlyModel(clock, per_view=0.001)
    batch = BATCH_WORLDS * moves * model.per_view  # the fake seconds of one batch
    belief = infer(view, model, random.Random(0), worlds=3 * BATCH_WORLDS, deadline=2.5 * batch)
    # Two batches end by 2 (of 2.5): a third, as long as the last, would end at 3.
    assert model.views == 2 * BATCH_WORLDS * moves
    assert len(belief.hidden) == 2 * BATCH_WORLDS and not belief.exact
    assert clock.now <= 2.5 * batch
    # Far from its deadline the reading is the one without: the same worlds, weights.
    whole = infer(view, model, random.Random(0), worlds=2 * BATCH_WORLDS)
    roomy = infer(view, model, random.Random(0), worlds=2 * BATCH_WORLDS,
                  deadline=clock.now + 100 * batch)
    assert len(whole.hidden) == 2 * BATCH_WORLDS and roomy.hidden == whole.hidden
    assert roomy.weights == pytest.approx(whole.weights)
    # Past it already: one batch, never none.
    past = infer(view, model, random.Random(0), worlds=2 * BATCH_WORLDS, deadline=0.0)
    assert len(past.hidden) == BATCH_WORLDS
    with pytest.raises(ValueError, match="deadline must be a time.perf_counter"):
        infer(view, model, random.Random(0), deadline="soon")


def test_enumerated_worlds_cut_short_are_a_sample_of_them_not_the_first_found(clock):
    """Enumerated worlds come ordered by their cards: a cut must not keep the first."""
    from sixtysix_env.agents.beliefs import (
        BATCH_WORLDS,
        count_worlds,
        enumerate_worlds,
        history,
        infer,
    )

    view = a_read_view(4 * BATCH_WORLDS, 8 * BATCH_WORLDS, closed=True)
    n = count_worlds(view)
    model = CostlyModel(clock, per_view=0.001)
    belief = infer(view, model, random.Random(0), worlds=n, exact=True, deadline=0.0)
    assert len(belief.hidden) == BATCH_WORLDS and not belief.exact
    first = [w.hidden for w in enumerate_worlds(view, history(view))[:BATCH_WORLDS]]
    assert belief.hidden != first
    assert set(belief.hidden) <= {w.hidden for w in enumerate_worlds(view, history(view))}
    assert infer(view, model, random.Random(0), worlds=n, exact=True).exact


@pytest.mark.parametrize("bounded_by", ["time_budget", "think_within"])
def test_a_decision_with_inference_ends_within_its_budget(clock, bounded_by):
    """The reading took 1.2 budgets here, then a deal: 1.4 budgets. Now it stops at its
    share of the budget (one batch, 0.3), and the deals fill the rest (three, 0.9)."""
    from sixtysix_env.agents.beliefs import BATCH_WORLDS, history
    from sixtysix_env.agents.expert import INFERENCE_SHARE

    view = a_read_view(least_worlds=1000)
    moves = len(history(view).opponent_moves)
    batch = 0.3 * BUDGET
    model = CostlyModel(clock, per_view=batch / (BATCH_WORLDS * moves))

    class FakeDeals(SlowDeals):
        def _value_after(self, s2, action, solver) -> int:
            self.calls += 1
            clock.now += self.per_call
            return 0

    options = {"inference": model, "inference_worlds": 128, "open_search": "all"}
    if bounded_by == "time_budget":
        agent = FakeDeals(time_budget=BUDGET, min_samples=1, **options)
    else:
        agent = FakeDeals(**options)
        agent.think_within(BUDGET)
    deals = len(view.legal_actions())
    agent.per_call = 0.2 * BUDGET / deals
    assert agent.act(view, random.Random(0)) in view.legal_actions()
    assert clock.now <= BUDGET, (clock.now, model.views, agent.calls)
    assert model.views == BATCH_WORLDS * moves  # one batch of the 128 worlds
    assert agent.calls == 3 * deals
    assert agent._inference_deadline == INFERENCE_SHARE * BUDGET  # the decision began at 0
    # Unbounded, the reading weighs every world (and the choice stays reproducible).
    agent = FakeDeals(**options)
    agent.samples, model.views = 2, 0
    agent.act(view, random.Random(0))
    assert agent._inference_deadline is None and model.views == 128 * moves
