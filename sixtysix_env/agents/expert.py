"""A search bot: exact endgame solving and determinized sampling.

* Stock exhausted: both hands are known, so the position is solved exactly
  (:class:`~sixtysix_env.agents.solver.Solver`) and a best action is played.
* Otherwise the bot samples deals consistent with its view
  (:func:`~sixtysix_env.game.view.determinize`, uniform over the unseen cards)
  and scores every candidate action on each sample, in game points:

  - with the stock closed, or when the action is the close itself, the
    sampled position is solved exactly;
  - in the open phase the action is followed by a fast rollout until the
    stock is closed or exhausted, and the rest is solved exactly. In the
    rollout both seats play the heuristic's open-phase rules (or a ``prior``
    policy's argmax, for the seats ``rollout_prior`` and ``rollout_opponent``
    give it); the opponent closes by the heuristic's count of sure tricks,
    and this seat closes as soon as the sampled deal proves that closing
    wins (one exact solve), so the value of closing later is seen too.

  The action with the best mean wins; the heuristic's choice (with a
  ``prior``, the policy's) is kept when it is within ``margin`` of the best
  (sampling noise should not overturn sound play), and after
  ``prune_after`` samples actions far behind the best stop being sampled.
  The trump 9 is always exchanged. The solver keeps its tables for the
  whole decision. ``guided`` (:class:`GuidedExpertAgent`) is this search
  with the shipped ``sixtysix-ppo`` as its prior (research/notes/strength.md).

With numba installed (the ``[fast]`` extra; option ``engine``) the solver and
the rollouts run compiled on the batched engine's arrays
(:mod:`sixtysix_env.batched.solver`), several sampled deals side by side: the
same values, so the same moves, several times faster.

``samples`` bounds the number of sampled deals per decision and
``time_budget`` (seconds, optional) stops sampling early: a deal is not begun
when the last one says it would end past the budget (the decision's clock
starts as it is asked for, and an opponent model's reading of the hand,
``inference``, counts in it: it weighs its worlds within
:data:`INFERENCE_SHARE` of the budget). With a time budget the choice depends on the
machine's speed, so leave it ``None`` for bit-for-bit reproducible games.
:meth:`ExpertAgent.think_within` bounds a decision for a person who must not
read the search's time (``sixtysix play`` and ``serve``, ``--min-think``).
"""

from __future__ import annotations

import inspect
import math
import random
import time

from ..game.actions import CLOSE, FIRST_MARRIAGE, MARRIAGE_CARD
from ..game.cards import ALL_CARDS, NUM_RANKS, SUIT_MASK, marriage_halves
from ..game.engine import State, new_hand
from ..game.view import PlayerView, determinize, player_view
from ..util.checks import check_option
from .heuristic import HeuristicAgent, obvious_action, open_follow, open_lead, sure_close_total
from .models import load_prior
from .solver import Solver

__all__ = [
    "ExpertAgent",
    "GuidedExpertAgent",
    "check_option",
    "load_prior",
    "rollout_action",
    "rollout_value",
]


def rollout_action(s: State) -> int:
    """The heuristic's open-phase rules on a full state (fast; for rollouts)."""
    legal = s.legal_mask()
    a = obvious_action(legal)
    if a is not None:
        return a
    p = s.current_player()
    hand = s.hand(p)
    ts = s.trump_suit
    lead = s.lead_card
    played = s.played
    unseen = s.rules.deck_mask & ~hand & ~played[0] & ~played[1]
    if lead is None:
        m = legal >> FIRST_MARRIAGE & 0xFF
        if m:
            best = -1
            for i in range(8):
                if m >> i & 1:
                    c = MARRIAGE_CARD[i]
                    if best < 0 or (
                        c // NUM_RANKS == ts and MARRIAGE_CARD[best] // NUM_RANKS != ts
                    ):
                        best = i
            # The queen of the chosen suit (even index) if legal.
            i = best & ~1
            return FIRST_MARRIAGE + (i if m >> i & 1 else best)
        return open_lead(hand, legal & ALL_CARDS, ts, unseen)
    o = 1 - p
    cp, mp = s.card_points, s.marriage_points
    return open_follow(
        hand,
        legal & ALL_CARDS,
        lead,
        ts,
        cp[p] + mp[p],
        cp[o] + mp[o],
        s.rules.going_out,
        not s.tricks_won[p] and bool(marriage_halves(hand)),
        unseen,
    )


def _rollout_close(s: State) -> bool:
    """Close when the leader's points plus sure tricks surely reach 66 (heuristic's count)."""
    p = s.current_player()
    total = s.points(p)
    go = s.rules.going_out
    if total < go - 45:  # no count of sure tricks can make up the difference: skip it
        return False
    hand = s.hand(p)
    played = s.played
    gone = played[0] | played[1]
    opp = s.rules.deck_mask & ~hand & ~gone
    opp_trumps = (opp & SUIT_MASK[s.trump_suit]).bit_count()
    return sure_close_total(hand, s.trump_suit, gone, total, s.tricks_won[p] > 0, opp_trumps) >= go


def rollout_value(
    s: State,
    solver: Solver,
    close: bool = True,
    searcher: int = -1,
    close_points: int = 30,
    policy=None,
    policy_seats: tuple[int, ...] = (),
) -> int:
    """Seat 0's game points: rollout rules while the stock is open, then exact.

    Seat ``searcher`` (if 0 or 1) closes in the rollout whenever closing wins
    in the sampled deal (one exact solve), once it has ``close_points``.
    ``policy`` (a function of a state to an action), if given, plays the
    rollout moves of the seats in ``policy_seats`` instead of the heuristic's rules.
    """
    while s.result is None:
        if s.is_strict():
            return solver.value(s)
        if close and s.lead_card is None and s.legal_mask() >> CLOSE & 1:
            p = s.current_player()
            if p == searcher:
                if s.card_points[p] + s.marriage_points[p] >= close_points:
                    closed = s.apply(CLOSE)
                    val = solver.value(closed)
                    if (val if p == 0 else -val) > 0:
                        return val
            elif _rollout_close(s):
                s = s.apply(CLOSE)
                continue
        if policy is not None and s.current_player() in policy_seats:
            s = s.apply(policy(s))
        else:
            s = s.apply(rollout_action(s))
    return s.result.returns()[0]


def _best_reply_value(s: State, solver: Solver) -> int:
    """Seat 0's value when the follower picks its best answer and the rest is solved.

    Used when the answer completes the last open trick (the stock is then
    exhausted and the position solvable).
    """
    follower = s.current_player()
    best = None
    for r in s.legal_actions():
        s3 = s.apply(r)
        val = s3.result.returns()[0] if s3.result is not None else solver.value(s3)
        if best is None or (val < best if follower == 1 else val > best):
            best = val
            if (follower == 1 and best <= -3) or (follower == 0 and best >= 3):
                break
    return best


#: The kinds of search :meth:`ExpertAgent.warm_up` has warmed in this process.
_WARMED: set = set()

#: Deals sampled ahead at once after the first pruning (compiled rollouts).
_AHEAD = 8

#: The share of a decision's time budget its inference (``inference``) may take: it
#: weighs no batch of worlds that would end past it (:func:`~.beliefs.infer`'s
#: ``deadline``), leaving the rest for the sampled deals.
INFERENCE_SHARE = 0.5

#: Bounds of the expert's options: a spec such as ``expert:samples=inf`` or ``=nan`` is
#: refused by name instead of never returning or failing deep in the search.
MAX_SAMPLES = 100_000
MAX_TIME_BUDGET = 3600.0
MAX_GAME_POINTS = 100.0


#: The expert's numeric options: (least, most, whole number).
_RANGES = {
    "samples": (1, MAX_SAMPLES, True),
    "min_samples": (1, MAX_SAMPLES, True),
    "time_budget": (1e-3, MAX_TIME_BUDGET, False),  # or None
    "margin": (-MAX_GAME_POINTS, MAX_GAME_POINTS, False),
    "close_penalty": (-MAX_GAME_POINTS, MAX_GAME_POINTS, False),
    "prune_after": (0, MAX_SAMPLES, True),
    "prune_gap": (0.0, MAX_GAME_POINTS, False),
    "rollout_close_points": (0, 200, True),
    "prior_weight": (-1e6, 1e6, False),
    "inference_worlds": (1, MAX_SAMPLES, True),
    "inference_softness": (0.0, 1.0, False),
}
_FLAGS = ("exact_last_trick", "rollout_close", "rollout_solve_close", "rollout_prior",
          "inference_argmax")
_CHOICES = {
    "open_search": ("all", "close", "none"),
    "rollout_opponent": ("heuristic", "prior"),
    "engine": ("auto", "python", "numba"),
}
#: The options kept as they are given (checked).
_SETTINGS = (*(k for k in _RANGES if k != "min_samples"), *_FLAGS, *_CHOICES)


def _checked_options(options: dict) -> dict:
    """The expert's options, each checked: numbers by range, flags as booleans, choices."""
    out = dict(options)
    for name, (low, high, whole) in _RANGES.items():
        if not (name == "time_budget" and out[name] is None):
            out[name] = check_option(name, out[name], low, high, integer=whole)
    for flag in _FLAGS:
        if not isinstance(out[flag], bool):
            raise ValueError(f"{flag} must be true or false, got {out[flag]!r}")
    for name, allowed in _CHOICES.items():
        if out[name] not in allowed:
            choices = ", ".join(map(repr, allowed[:-1])) + f" or {allowed[-1]!r}"
            raise ValueError(f"{name} must be {choices}, got {out[name]!r}")
    return out


class ExpertAgent:
    """Determinized search with an exact endgame solver (see the module docstring)."""

    def __init__(
        self,
        samples: int = 64,
        time_budget: float | None = None,
        margin: float = 0.1,
        min_samples: int = 4,
        exact_last_trick: bool = False,
        rollout_close: bool = True,
        close_penalty: float = 0.0,
        prune_after: int = 8,
        prune_gap: float = 0.75,
        open_search: str = "all",
        rollout_solve_close: bool = True,
        rollout_close_points: int = 45,
        prior: str | None = None,
        prior_weight: float = 0.0,
        rollout_prior: bool = False,
        rollout_opponent: str = "heuristic",
        engine: str = "auto",
        inference: str | None = None,
        inference_worlds: int = 128,
        inference_softness: float = 0.3,
        inference_argmax: bool = False,
    ) -> None:
        """Options (all keyword-usable by ``make_agent("expert", ...)``):

        * ``samples``: deals sampled per decision (at most).
        * ``time_budget``: seconds per decision within which sampling stops:
          once ``min_samples`` deals are taken, a deal is not begun when the
          last one's time says it would end past the budget; ``None`` for
          none, which keeps games reproducible.
        * ``margin``: keep the heuristic's choice when its mean is within
          this many game points of the best.
        * ``exact_last_trick``: search the answer to the last open trick
          exactly instead of by rollout.
        * ``rollout_close``: seats close in rollouts (the opponent by the
          heuristic's count, this seat as below).
        * ``rollout_solve_close`` / ``rollout_close_points``: in a rollout
          this seat closes whenever the sampled deal proves the close a win,
          once it has that many points.
        * ``close_penalty``: game points subtracted from the close's mean.
        * ``prune_after`` / ``prune_gap``: after that many samples, drop
          actions more than ``prune_gap`` below the best (0: never).
        * ``open_search``: "all" (search every open-phase action), "close"
          (search only close against the heuristic's move) or "none"
          (heuristic in the open phase); for ablations.
        * ``prior``: a policy (a policy file, or a shipped policy's name such
          as ``"sixtysix-ppo"``) whose argmax replaces the heuristic's move as
          the default that ``margin`` protects.
        * ``prior_weight``: game points added to each searched action's mean
          per unit of the prior's log-probability (0: the prior only picks
          the default move).
        * ``rollout_prior``: in open-phase rollouts this seat plays the
          prior's argmax instead of the heuristic's rules (the opponent keeps
          the heuristic's); the closing rules above still apply.
        * ``rollout_opponent``: who plays the opponent's rollout moves:
          "heuristic" (its rules) or "prior" (the prior's argmax, needs a prior).
        * ``engine``: who solves the sampled positions and plays the rollouts:
          "numba" (the compiled solver and rollouts on the batched engine's
          arrays, ``sixtysix_env.batched.solver``; needs the ``[fast]`` extra),
          "python" (the reference :class:`~sixtysix_env.agents.solver.Solver`
          and :func:`rollout_value`) or "auto" (numba when it is installed).
          The values are the same, and so are the moves (a prior that plays
          rollout moves gives them for many rollouts in one forward pass).
        * ``inference``: an opponent model (an agent's name or file, such as
          "heuristic" or "sixtysix-ppo-v4"): the deals are drawn from the belief
          its moves give (:func:`sixtysix_env.agents.beliefs.infer`) instead of uniformly.
          ``inference_worlds`` deals are weighed per decision; a rule-based
          model's move gets ``1 - inference_softness`` of the probability
          (:mod:`sixtysix_env.agents.models`). A network model gives its softmax,
          or with ``inference_argmax`` the move it plays, softened as a rule's
          (for an opponent that follows the network's argmax, such as ``guided``).
        """
        o = _checked_options({k: v for k, v in locals().items() if k != "self"})
        for name in _SETTINGS:
            setattr(self, name, o[name])
        self.min_samples = min(o["min_samples"], o["samples"])
        #: Seconds a decision is to end within, set by :meth:`think_within` (None: none);
        #: kept beside ``time_budget``, the option as it was given.
        self.think_bound: float | None = None
        self._inference_deadline: float | None = None
        self._me = -1
        self.name = "expert"
        self._heuristic = HeuristicAgent()
        self.prior = prior
        self._prior = load_prior(prior) if prior is not None else None
        needs = (
            ("prior_weight", bool(self.prior_weight)),
            ("rollout_opponent='prior'", self.rollout_opponent == "prior"),
            ("rollout_prior", self.rollout_prior),
        )
        for what, used in needs:
            if used and self._prior is None:
                raise ValueError(f"{what} needs a prior (a policy file or a shipped policy's name)")
        self._solver_type = _solver_type(self.engine)
        self._solvers: dict = {}
        self.inference = inference
        self._model = None
        if inference is not None:
            from .models import opponent_model  # numpy: only with an opponent model

            if not isinstance(inference, str) and not hasattr(inference, "act") and not callable(
                getattr(inference, "probabilities", None)
            ):
                raise TypeError(
                    f"inference must be an agent's name or file (or an opponent model), "
                    f"got {inference!r}"
                )
            self._model = opponent_model(
                inference, self.inference_softness, argmax=self.inference_argmax)

    def think_within(self, seconds: float, rules=None) -> None:
        """Bound each decision, the first included, to end within ``seconds``, for a
        person who must not read the search's time (``sixtysix play`` and ``serve`` pad
        every computer move to ``--min-think`` and give a search half of it,
        :class:`~sixtysix_env.play.session.GameSession`): a decision's budget becomes
        the smaller of ``time_budget`` and ``seconds`` (:attr:`think_bound`; the option
        stays as it was given); one deal is enough (not ``min_samples``), so the bound
        holds whenever the first deal fits in it; and what the first decision would
        load or compile is loaded now (:meth:`warm_up`, for ``rules``). Beyond the
        bound a decision may still take its first deal (a few milliseconds compiled,
        at worst about 0.2 s in Python on one core) and the solve of a used-up stock
        (milliseconds)."""
        self.think_bound = check_option("seconds", seconds, 1e-3, MAX_TIME_BUDGET)
        self.warm_up(rules)

    def _budget(self) -> tuple[float | None, int]:
        """(the seconds a decision's sampling is to end within or None, the deals it
        takes before the budget may stop it)."""
        if self.think_bound is None:
            return self.time_budget, self.min_samples
        if self.time_budget is None:
            return self.think_bound, 1
        return min(self.time_budget, self.think_bound), 1

    def warm_up(self, rules=None) -> None:
        """Load or compile now what this search's first decisions would, so that they
        take no longer than the others: with numba the compiled solver and rollouts
        (tenths of a second from numba's cache, seconds of compiling without one). A
        search in each phase (open, closed, stock used up) of two fixed deals played by
        the heuristic, the choices thrown away; once per process for each kind of search."""
        key = (self._solver_type, rules, self.prior, self.rollout_prior, self.rollout_opponent)
        try:
            if key in _WARMED:
                return
        except TypeError:  # rules that cannot be a key: warmed each time
            key = None
        rng = random.Random(0)
        searched: set[str] = set()
        for seed, close in ((0, True), (1, False)):  # a hand closed, one played out
            s = new_hand(seed, rules=rules)
            while s.result is None:
                view = player_view(s, s.current_player())
                if close and view.legal_mask >> CLOSE & 1:
                    s = s.apply(CLOSE)
                    continue
                phase = (
                    "used up" if view.is_exhausted
                    else "closed" if view.closed_by is not None
                    else "open"
                )  # fmt: skip
                if phase not in searched and obvious_action(view.legal_mask) is None:
                    searched.add(phase)
                    self.decide(view, rng)
                s = s.apply(self._heuristic.act(view, rng))
        if key is not None:
            _WARMED.add(key)

    def _solver(self, rules) -> Solver:
        sv = self._solvers.get(rules)
        if sv is None:
            # Kept tables: the positions solved for one decision share much of their trees.
            sv = self._solvers[rules] = self._solver_type(rules, keep_tables=True)
        return sv

    def act(self, view: PlayerView, rng: random.Random) -> int:
        return self.decide(view, rng)[0]

    def decide(self, view: PlayerView, rng: random.Random) -> tuple[int, dict[int, float]]:
        """The action :meth:`act` plays and the searched values it chose from.

        The values are this seat's mean game points per candidate action (the
        close already less ``close_penalty``); they are empty when no search
        was made (an obvious action, or the heuristic's move with
        ``open_search`` "none" or without a legal close). Distillation uses
        them as soft targets; the same ``rng`` gives the same action as ``act``.
        """
        start = time.perf_counter()  # the budget's clock: the whole decision
        legal = view.legal_mask
        a = obvious_action(legal)
        if a is not None:
            return a, {}
        solver = self._solver(view.rules)
        solver.clear()  # tables of another decision: mostly other cards, only memory
        me = self._me = view.seat
        sign = 1 if me == 0 else -1
        if view.is_exhausted:
            # Perfect information: one deal fits the view.
            state = determinize(view, rng)
            vals = solver.action_values(state)
            fvals = {a: float(x) for a, x in vals.items()}
            return self._choose(view, rng, fvals), fvals
        actions = [a for a in range(34) if legal >> a & 1]
        if view.closed_by is None and self.open_search != "all":
            h = self._heuristic.act(view, rng)
            if self.open_search == "none" or not legal >> CLOSE & 1:
                return h, {}
            actions = sorted({h, CLOSE})  # "close": only the close is searched
        budget, least = self._budget()
        # The inference (``inference``) counts inside the budget: it has a share of it.
        self._inference_deadline = None if budget is None else start + INFERENCE_SHARE * budget
        deal = self._dealer(view, rng)
        totals = dict.fromkeys(actions, 0.0)
        counts = dict.fromkeys(actions, 0)
        live = list(actions)
        closed = view.closed_by is not None
        compiled = self._compiled_rollouts(solver)
        n = 0
        deal_began = time.perf_counter()
        ahead: list[dict[int, int]] = []  # values of deals sampled ahead, the next one last
        marks: list = []  # the generator's state after drawing each of them
        mark = None
        while n < self.samples:
            if compiled and not closed:
                # The same values as _value_after's, the rollouts run compiled, many deals
                # side by side (_batch_size): those drawn ahead and not reached are
                # handed back to the generator after the loop.
                if not ahead:
                    k = self._batch_size(n, rng)
                    states = []
                    for _ in range(k):
                        states.append(deal(rng))
                        if k > 1 and type(rng) is random.Random:
                            marks.append(rng.getstate())
                    rows = solver.values_after_many(states, live, *compiled)
                    ahead = [dict(zip(live, row)) for row in reversed(rows)]
                    marks.reverse()
                row = ahead.pop()
                if marks:
                    mark = marks.pop()
                for a in live:
                    totals[a] += sign * row[a]
                    counts[a] += 1
            elif closed:
                state = deal(rng)
                for a, x in solver.action_values(state).items():
                    totals[a] += x
                    counts[a] += 1
            else:
                state = deal(rng)
                for a in live:
                    totals[a] += sign * self._value_after(state.apply(a), a, solver)
                    counts[a] += 1
            n += 1
            if self.prune_after and n >= self.prune_after and len(live) > 1:
                # Drop actions that are clearly worse; stop once one is left.
                best = max(totals[a] / n for a in live)
                live = [a for a in live if totals[a] / n >= best - self.prune_gap]
                if len(live) == 1:
                    break
            if budget is not None:
                # Stop when the next deal, as long as the last one, would end past the
                # budget (not once past it: the decision is to end within it).
                now = time.perf_counter()
                if n >= least and now - start + now - deal_began > budget:
                    break
                deal_began = now
        if ahead:
            rng.setstate(mark)  # as if only the deals used had been drawn
        vals = {a: totals[a] / counts[a] for a in actions}
        if CLOSE in vals:
            vals[CLOSE] -= self.close_penalty
        return self._choose(view, rng, vals), vals

    def _dealer(self, view: PlayerView, rng: random.Random):
        """What draws the search's deals: uniformly (:func:`determinize`), or from the
        belief the opponent model's reading of the hand gives (``inference``), read
        within :data:`INFERENCE_SHARE` of the decision's budget when it has one (the
        deadline :meth:`decide` sets)."""
        if self._model is None:
            return lambda r: determinize(view, r)
        from .beliefs import infer  # numpy: only with an opponent model

        return infer(
            view, self._model, rng, worlds=self.inference_worlds,
            deadline=self._inference_deadline,
        ).determinize

    def _batch_size(self, n: int, rng) -> int:
        """How many deals :meth:`decide` samples at once for the compiled rollouts, ``n``
        used so far: those up to the first pruning (before it nothing can stop the
        search); after it more, whose values go unused if the search stops first (the
        generator's state is then put back, so the games stay the same). One at a
        time with a time budget, and after the first pruning with a generator whose
        state cannot be put back."""
        if self._budget()[0] is not None:
            return 1
        if not self.prune_after:
            return self.samples - n
        if n < self.prune_after:
            return min(self.prune_after, self.samples) - n
        if type(rng) is not random.Random:
            return 1
        return min(_AHEAD, self.samples - n)

    def _compiled_rollouts(self, solver) -> tuple | None:
        """The arguments of the compiled solver's ``values_after`` when it can stand in
        for :meth:`_value_after` (without ``exact_last_trick``; a prior that plays in the
        rollouts must be a network agent), else None."""
        if not hasattr(solver, "values_after") or self.exact_last_trick:
            return None
        searcher = self._me if self.rollout_solve_close else -1
        seats = self._prior_seats()
        if not seats:
            return (self.rollout_close, searcher, self.rollout_close_points)
        from ..policy import PolicyAgent  # a prior is loaded: numpy is there
        from ..policy.network import SYMMETRY_TIE

        if type(self._prior) is not PolicyAgent or not self._prior.deterministic:
            return None
        if type(self)._prior_move is not ExpertAgent._prior_move:
            return None  # a subclass's own rollout move: it plays in Python
        return (self.rollout_close, searcher, self.rollout_close_points,
                self._prior.network, seats, SYMMETRY_TIE)

    def _value_after(self, s2: State, action: int, solver: Solver) -> int:
        """Seat 0's estimated value of a sampled position just after ``action``."""
        if s2.result is not None:
            return s2.result.returns()[0]
        if s2.is_strict():
            return solver.value(s2)
        if self.exact_last_trick and s2.lead_card is not None and s2.stock_left == 1:
            return _best_reply_value(s2, solver)
        seats = self._prior_seats()
        return rollout_value(
            s2,
            solver,
            self.rollout_close,
            self._me if self.rollout_solve_close else -1,
            self.rollout_close_points,
            self._prior_move if seats else None,  # None: no per-move seat test in the rollout
            seats,
        )

    def _prior_seats(self) -> tuple[int, ...]:
        """The seats whose rollout moves the prior plays."""
        seats = (self._me,) if self.rollout_prior else ()
        if self.rollout_opponent == "prior":
            seats += (1 - self._me,)
        return seats

    def _prior_move(self, s: State) -> int:
        """The prior's argmax in a sampled state, for the rollout moves it plays."""
        return self._prior.act(player_view(s, s.current_player()), _NO_RNG)

    def _choose(self, view: PlayerView, rng: random.Random, vals: dict[int, float]) -> int:
        if self._prior is None:
            h = self._heuristic.act(view, rng)
        else:
            probs = self._prior.action_probabilities(view)
            h = max(vals, key=lambda a: (probs[a], -a))
            if self.prior_weight:
                w = self.prior_weight
                vals = {a: v + w * math.log(max(float(probs[a]), 1e-6)) for a, v in vals.items()}
        best = max(vals.values())
        if vals.get(h, -1e9) >= best - self.margin - 1e-9:
            return h
        return max(vals, key=lambda a: (vals[a], -a))


class GuidedExpertAgent(ExpertAgent):
    """The expert's search guided by a trained policy: its default move and this seat's rollouts.

    ``ExpertAgent(prior="sixtysix-ppo", rollout_prior=True)`` under the name
    ``guided``; every :class:`ExpertAgent` option applies (research/notes/strength.md).
    """

    def __init__(self, prior: str = "sixtysix-ppo", rollout_prior: bool = True, **options) -> None:
        super().__init__(prior=prior, rollout_prior=rollout_prior, **options)
        self.name = "guided"


# The expert's options with this agent's defaults, for make_agent's checks and `sixtysix agents`.
GuidedExpertAgent.__signature__ = inspect.signature(ExpertAgent).replace(
    parameters=[
        p.replace(default={"prior": "sixtysix-ppo", "rollout_prior": True}.get(p.name, p.default))
        for p in inspect.signature(ExpertAgent).parameters.values()
    ]
)


def _solver_type(engine: str):
    """The solver class for ``engine`` ("auto", "python" or "numba")."""
    if engine == "python":
        return Solver
    from ..batched import have_numba, require_numba  # numba only when it is asked for

    if engine == "numba":
        require_numba("expert:engine=numba (the compiled solver)")
    elif not have_numba():
        return Solver
    from ..batched.solver import CompiledSolver

    return CompiledSolver


#: The prior plays its argmax in rollouts: no randomness is drawn.
_NO_RNG = random.Random(0)
