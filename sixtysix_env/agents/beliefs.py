"""Beliefs over the hidden cards: where each unseen card lies, read from the opponent's moves.

A seat's :class:`~sixtysix_env.game.view.PlayerView` says which cards it cannot
see, not where they are: in the opponent's hand or in the face-down stock.
:func:`~sixtysix_env.game.view.determinize` deals them uniformly. But every move
the opponent made says something about the cards it held. Given an
**opponent model** (anything with ``probabilities(views)``: the probability of
each action id in each of a list of views, as a numpy array ``(len(views),
34)``; :mod:`sixtysix_env.agents.models` adapts policies, ``random`` and
rule-based agents), Bayes' rule weighs each deal by how likely the model makes
the opponent's moves in it (policy-based inference, as in the Skat programs
of Rebstock, Solinas, Buro and Sturtevant, 2019).

A **world** is a whole deal that agrees with the view: which unseen cards the
opponent holds now, and, for each of its past moves, which cards it held
then. The second matters: a card the opponent holds now may have been drawn
after a move, and then it said nothing about that move. So a world fixes,
for each seat, which of its cards came in the deal and which in each draw
from the stock. Under a uniformly shuffled deck every deal agreeing with the
view is equally likely before the moves are weighed, and:

* the opponent's hidden cards are any ``need`` of the unseen cards it may
  hold (:func:`~sixtysix_env.game.view.hidden_places`);
* its cards are dealt to its places (the six of the deal, then one per draw)
  so that each card it played, showed or exchanged was in its hand by then.
  Cards it holds now have no such deadline, so the number of ways to place
  its cards is the same whatever its hidden cards are: drawing the hidden
  cards uniformly, then the places uniformly among those that keep the
  deadlines (:func:`sample_worlds`), draws every agreeing deal with the same
  chance;
* this seat's own places change nothing the opponent saw, so one placement
  that keeps the deadlines serves every world.

Each world is replayed from its deck through the engine (:func:`replay`),
the opponent's view taken at each of its moves, and the world weighed by the
product of the model's probabilities of the moves it made. :func:`infer`
enumerates every world when there are few (``exact``) and otherwise samples
``worlds`` of them; :class:`Belief` gives the probability that the opponent
holds each unseen card and draws determinizations from the posterior.

Only the view is read: two deals that give this seat the same view give the
same belief (with the same generator).

Given a ``deadline`` (a search's time budget: :meth:`ExpertAgent.decide
<sixtysix_env.agents.expert.ExpertAgent.decide>` counts the inference inside
it), :func:`infer` weighs the worlds in batches of :data:`BATCH_WORLDS` and
begins no batch that the last one's time says would end past the deadline: the
belief is then that of the worlds weighed (a uniform sample of those drawn, the
enumerated ones taken in an order fixed by their number), never fewer than one
batch.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..game.actions import CLOSE, EXCHANGE, NUM_ACTIONS, marriage_action
from ..game.cards import bits_of
from ..game.engine import State, deal_from_deck, deal_seats
from ..game.events import Close, Exchange, Marriage, Trick
from ..game.view import PlayerView, determinize, hidden_places, player_view
from ..util.errors import IllegalActionError

__all__ = [
    "Belief",
    "History",
    "OpponentModel",
    "World",
    "count_worlds",
    "enumerate_worlds",
    "history",
    "infer",
    "infer_weights",
    "replay",
    "replay_failures",
    "sample_worlds",
    "uniform_belief",
]

#: Card ids (the 24 of the largest deck; the deck's own positions follow its rules:
#: engine.deal_seats gives each dealt card's seat, then come the face-up trump card and
#: the stock in drawing order).
_DECK_SIZE = 24
#: Worlds weighed at once when :func:`infer` has a deadline (between batches it looks
#: at the clock).
BATCH_WORLDS = 32


class OpponentModel:
    """What :func:`infer` needs of an opponent model (a protocol, for reference):
    ``probabilities(views)``, the probability of each of the 34 action ids in
    each view (rows summing to 1 over its legal actions)."""

    def probabilities(self, views: Sequence[PlayerView]) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True)
class History:
    """The public record of a hand as a seat's view tells it, ready to replay.

    ``actions`` are ``(seat, action id)`` in order. For each seat, ``places``
    lists its deck positions and ``stage`` the number of tricks done when the
    card there came into its hand (0 for the deal); ``deadline`` maps each card
    it played, showed or exchanged away to the stage by which it must have come;
    ``not_placed`` are cards it got otherwise (by the exchange, or the face-up
    trump card drawn last), and ``given`` the trump 9s it put under the stock.
    """

    seat: int
    actions: tuple[tuple[int, int], ...]
    places: tuple[tuple[int, ...], tuple[int, ...]]
    stage: tuple[tuple[int, ...], tuple[int, ...]]
    deadline: tuple[dict[int, int], dict[int, int]]
    not_placed: tuple[int, int]
    given: tuple[int, int]
    original_trump: int
    #: The deck positions of the stock cards not drawn yet.
    stock_places: tuple[int, ...]
    #: Indices into ``actions`` of the opponent's moves.
    opponent_moves: tuple[int, ...] = field(default=())


class _Reader:
    """Reads a view's events in order into what :class:`History` holds."""

    def __init__(self, view: PlayerView) -> None:
        hand_size = view.rules.hand_size
        seats = deal_seats(hand_size, view.dealer)
        self.places: list[list[int]] = [[k for k, x in enumerate(seats) if x == s] for s in (0, 1)]
        self.stage: list[list[int]] = [[0] * hand_size, [0] * hand_size]
        self.size = view.rules.deck
        self.deadline: list[dict[int, int]] = [{}, {}]
        self.not_placed, self.given = [0, 0], [0, 0]
        exchanges = view.exchanges()
        self.original_trump = exchanges[0].taken if exchanges else view.trump_card
        self.trump_now = self.original_trump
        self.actions: list[tuple[int, int]] = []
        self.closed, self.next_card, self.done = False, 2 * hand_size + 1, 0
        self.married = None  # the card led with a marriage, until its trick is recorded

    def play(self, seat: int, action: int, *cards: int) -> None:
        """``seat`` made ``action``; ``cards`` had to be in its hand by then."""
        self.actions.append((seat, action))
        due = self.deadline[seat]
        for c in cards:
            due[c] = min(due.get(c, self.done), self.done)

    def event(self, e) -> None:
        t = type(e)
        if t is Exchange:
            self.play(e.seat, EXCHANGE, e.nine)
            self.not_placed[e.seat] |= 1 << e.taken
            self.given[e.seat] |= 1 << e.nine
            self.trump_now = e.nine
        elif t is Close:
            self.play(e.seat, CLOSE)
            self.closed = True
        elif t is Marriage:
            self.play(e.seat, marriage_action(e.led), e.led, e.shown)
            self.married = e.led
        elif t is Trick:
            if self.married != e.lead:
                self.play(e.leader, e.lead, e.lead)
            self.play(1 - e.leader, e.follow, e.follow)
            self.married = None
            self.done = e.number
            if not self.closed and self.next_card < self.size:
                self.draw(e.winner)

    def draw(self, winner: int) -> None:
        """After a trick: the winner draws the next stock card, then the loser (the
        face-up trump card, last, comes to its hand but by no deck place of its own)."""
        loser, pos = 1 - winner, self.next_card
        self.places[winner].append(pos)
        self.stage[winner].append(self.done)
        if pos + 1 < self.size:
            self.places[loser].append(pos + 1)
            self.stage[loser].append(self.done)
        elif not self.given[loser] >> self.trump_now & 1:
            self.not_placed[loser] |= 1 << self.trump_now
        self.next_card += 2


def history(view: PlayerView) -> History:
    """The public record of ``view``'s hand (see :class:`History`)."""
    r = _Reader(view)
    for e in view.events:
        r.event(e)
    if view.lead_card is not None and r.married != view.lead_card:
        r.play(view.leader, view.lead_card, view.lead_card)
    stock_places = tuple(range(min(r.next_card, r.size), r.size))
    if len(stock_places) != view.stock_left:
        raise ValueError(
            f"the view's events account for {len(stock_places)} stock cards, "
            f"the view says {view.stock_left}"
        )
    opp = 1 - view.seat
    return History(
        seat=view.seat,
        actions=tuple(r.actions),
        places=(tuple(r.places[0]), tuple(r.places[1])),
        stage=(tuple(r.stage[0]), tuple(r.stage[1])),
        deadline=(r.deadline[0], r.deadline[1]),
        not_placed=(r.not_placed[0], r.not_placed[1]),
        given=(r.given[0], r.given[1]),
        original_trump=r.original_trump,
        stock_places=stock_places,
        opponent_moves=tuple(i for i, (s, _) in enumerate(r.actions) if s == opp),
    )


def _placed_cards(
    h: History, s: int, holds: int, played: int, missing: int = 0
) -> tuple[list, list]:
    """Seat ``s``'s cards that came by its deck places: (cards with a deadline sorted
    by it, cards without), given the cards it ``holds`` now and has ``played``
    (``missing``: how many of the cards it holds are left out, all without a deadline)."""
    cards = (holds | played | h.given[s]) & ~h.not_placed[s]
    due = h.deadline[s]
    timed = sorted((c for c in bits_of(cards) if c in due), key=lambda c: (due[c], c))
    free = [c for c in bits_of(cards) if c not in due]
    if len(timed) + len(free) + missing != len(h.places[s]):
        raise ValueError(
            f"seat {s} has {len(timed) + len(free) + missing} cards for its "
            f"{len(h.places[s])} deck places"
        )
    return timed, free


def _first_placement(h: History, s: int, timed: list, free: list) -> dict:
    """Deck position -> card for seat ``s``: each card with a deadline in the first
    open place that came by then (cards in order of their deadlines, so that none is
    left without one), the others after: this seat's own placement, which the opponent
    never saw."""
    stage, places = h.stage[s], h.places[s]
    open_ = list(range(len(places)))
    out = {}
    due = h.deadline[s]
    for c in timed:
        ok = [i for i in open_ if stage[i] <= due[c]]
        if not ok:
            raise ValueError(f"seat {s} played a card before it could have held it")
        open_.remove(ok[0])
        out[places[ok[0]]] = c
    for i, c in zip(open_, free):
        out[places[i]] = c
    return out


def _placements(h: History, s: int, timed: list, free: list):
    """Every placement of seat ``s``'s cards that keeps the deadlines, counting once
    each set of dealt cards (their order among the deal's six places changes nothing)."""
    stage, places = h.stage[s], h.places[s]
    dealt = [i for i in range(len(places)) if stage[i] == 0]
    drawn = [i for i in range(len(places)) if stage[i] > 0]
    cards = timed + free
    due = h.deadline[s]
    allowed = [[c for c in cards if due.get(c, stage[i]) >= stage[i]] for i in drawn]

    def fill(k: int, used: list):
        if k == len(drawn):
            rest = [c for c in cards if c not in used]
            out = {places[i]: c for i, c in zip(drawn, used)}
            out.update({places[i]: c for i, c in zip(dealt, rest)})
            yield out
            return
        for c in allowed[k]:
            if c not in used:
                yield from fill(k + 1, used + [c])

    yield from fill(0, [])


def replay(view: PlayerView, h: History, deck: Sequence[int]) -> tuple[State, list[PlayerView]]:
    """The hand replayed from ``deck`` with the view's moves: (the state now, the
    opponent's views at each of its moves). IllegalActionError when the deck does
    not allow a move."""
    s = deal_from_deck(list(deck), view.dealer, view.rules, view.match_score)
    opp = 1 - h.seat
    views = []
    for who, a in h.actions:
        if who == opp:
            views.append(player_view(s, opp))
        s = s.apply(a)
    return s, views


@dataclass
class World:
    """One deal that agrees with the view: the opponent's hidden cards now (a card
    mask) and the whole deck, top card first, as :func:`replay` deals it."""

    hidden: int
    deck: list[int]


def _deck(view: PlayerView, h: History, mine: dict, theirs: dict, stock: list) -> list[int]:
    deck = [-1] * view.rules.deck
    for pos, c in (*mine.items(), *theirs.items()):
        deck[pos] = c
    deck[2 * view.rules.hand_size] = h.original_trump
    for pos, c in zip(h.stock_places, stock):
        deck[pos] = c
    return deck


def _own_places(view: PlayerView, h: History) -> dict:
    timed, free = _placed_cards(h, view.seat, view.hand, view.played[view.seat])
    return _first_placement(h, view.seat, timed, free)


def count_worlds(view: PlayerView, h: History | None = None) -> int:
    """How many worlds agree with ``view``: choices of the opponent's hidden cards
    times the placements of its cards (the same for each choice)."""
    h = h or history(view)
    candidates, need = hidden_places(view)
    opp = 1 - view.seat
    hidden = sum(1 << c for c in candidates[:need])
    timed, free = _placed_cards(h, opp, view.opponent_known | hidden, view.played[opp])
    # Injective maps drawn place -> card whose deadline allows it (cards without one
    # always do); the dealt six take the rest as one set. Places by stage, latest
    # first: each may take any allowed card not used by a later place (whose allowed
    # cards are among its own).
    ways, used = 1, 0
    due = h.deadline[opp]
    for st in sorted((x for x in h.stage[opp] if x > 0), reverse=True):
        ways *= max(sum(1 for c in timed if due[c] >= st) + len(free) - used, 0)
        used += 1
    return math.comb(len(candidates), need) * ways


@dataclass
class Belief:
    """The posterior over the opponent's hidden cards given a view and a model."""

    view: PlayerView
    #: The opponent's hidden cards in each world (card masks) and the worlds' weights
    #: (normalized; uniform when the model gave every world probability 0). Both empty
    #: for the uniform belief (no opponent move to read), which lists no world.
    hidden: list[int]
    weights: np.ndarray
    exact: bool
    #: True when no world had a positive probability under the model (the weights
    #: then fall back to uniform).
    degenerate: bool = False

    @property
    def uniform(self) -> bool:
        return not self.hidden

    def card_probabilities(self) -> np.ndarray:
        """Probability, for each of the 24 cards, that the opponent holds it now (1 for
        the cards it is known to hold, 0 for cards it cannot)."""
        p = np.zeros(_DECK_SIZE)
        if self.uniform:
            candidates, need = hidden_places(self.view)
            p[candidates] = need / len(candidates) if candidates else 0.0
        for m, w in zip(self.hidden, self.weights):
            for c in bits_of(m):
                p[c] += w
        for c in bits_of(self.view.opponent_known):
            p[c] = 1.0
        return p

    def effective_worlds(self) -> float:
        """Kish's effective sample size of the weights (1 / sum w^2); for the uniform
        belief, the number of choices of the hidden cards."""
        if self.uniform:
            candidates, need = hidden_places(self.view)
            return float(math.comb(len(candidates), need))
        return float(1.0 / np.sum(self.weights**2))

    def determinize(self, rng: random.Random) -> State:
        """A full state drawn from the posterior: a world by its weight, then the
        stock's order uniformly."""
        if self.uniform:
            return determinize(self.view, rng)
        cum = self._cumulative()
        i = min(int(np.searchsorted(cum, rng.random() * cum[-1], side="right")), len(cum) - 1)
        return determinize(self.view, rng, opponent_hidden=self.hidden[i])

    def _cumulative(self) -> np.ndarray:
        cum = getattr(self, "_cum", None)
        if cum is None:
            cum = self._cum = np.cumsum(self.weights)
        return cum


def uniform_belief(view: PlayerView) -> Belief:
    """The belief without a model: each agreeing choice of hidden cards alike (exact)."""
    hidden_places(view)  # refuses an inconsistent view
    return Belief(view, [], np.zeros(0), exact=True)


def infer(
    view: PlayerView,
    model,
    rng: random.Random | None = None,
    worlds: int = 256,
    exact: bool | str = "auto",
    deadline: float | None = None,
) -> Belief:
    """The posterior over the opponent's hidden cards (see the module docstring).

    ``exact``: True enumerates every world, False samples ``worlds`` of them with
    ``rng``, "auto" enumerates when there are no more than ``worlds`` (no more work
    than sampling them) and samples otherwise. ``deadline`` (a
    :func:`time.perf_counter` time, or None for none): the weighing stops before a
    batch of :data:`BATCH_WORLDS` worlds that would end past it (the last batch's
    time says how long one takes); the belief is then of the worlds weighed (at
    least one batch), and not ``exact``.
    """
    if exact not in (True, False, "auto"):
        raise ValueError(f"exact must be True, False or 'auto', got {exact!r}")
    if not isinstance(worlds, int) or isinstance(worlds, bool) or worlds < 1:
        raise ValueError(f"worlds must be a whole number >= 1, got {worlds!r}")
    if deadline is not None and (
        isinstance(deadline, bool) or not isinstance(deadline, (int, float))
    ):
        raise ValueError(f"deadline must be a time.perf_counter() time or None, got {deadline!r}")
    h = history(view)
    if not h.opponent_moves:
        return uniform_belief(view)
    if exact == "auto":
        exact = count_worlds(view, h) <= worlds
    if not exact and rng is None:
        raise ValueError("sampling worlds needs rng (a random.Random)")
    found = enumerate_worlds(view, h) if exact else sample_worlds(view, h, rng, worlds)
    if deadline is None:
        return _weighed(view, h, model, found, exact)
    return _weighed_by(view, h, model, found, exact, deadline)


def sample_worlds(view: PlayerView, h: History, rng: random.Random, n: int) -> list[World]:
    """``n`` worlds drawn uniformly among those that agree with ``view`` (the stock's
    order, which changes no past move, is left sorted)."""
    candidates, need = hidden_places(view)
    opp = 1 - view.seat
    timed, known_free = _placed_cards(h, opp, view.opponent_known, view.played[opp], need)
    places, due = h.places[opp], h.deadline[opp]
    # The places are in the order the cards came (the deal, then each draw), so a card
    # due by stage d may take any open place among the first reach[d].
    reach = [bisect.bisect_right(h.stage[opp], due[c]) for c in timed]
    base = _deck(view, h, _own_places(view, h), {}, [])
    unseen = view.unseen()
    out = []
    for _ in range(n):
        pick = rng.sample(candidates, need)
        hidden = 0
        for c in pick:
            hidden |= 1 << c
        deck = base[:]
        open_ = list(range(len(places)))
        for c, r in zip(timed, reach):
            k = bisect.bisect_left(open_, r)  # open places it may take
            deck[places[open_.pop(int(rng.random() * k))]] = c
        free = known_free + pick
        rng.shuffle(free)
        for i, c in zip(open_, free):
            deck[places[i]] = c
        for pos, c in zip(h.stock_places, bits_of(unseen & ~hidden)):
            deck[pos] = c
        out.append(World(hidden, deck))
    return out


def enumerate_worlds(view: PlayerView, h: History) -> list[World]:
    """Every world that agrees with ``view`` (:func:`count_worlds` of them), each set
    of dealt cards once and the stock in one order (neither changes a past move)."""
    candidates, need = hidden_places(view)
    opp = 1 - view.seat
    mine = _own_places(view, h)
    unseen = view.unseen()
    out = []
    for pick in itertools.combinations(candidates, need):
        hidden = sum(1 << c for c in pick)
        timed, free = _placed_cards(h, opp, view.opponent_known | hidden, view.played[opp])
        stock = bits_of(unseen & ~hidden)  # its order changes no past move
        for theirs in _placements(h, opp, timed, free):
            out.append(World(hidden, _deck(view, h, mine, theirs, stock)))
    return out


def infer_weights(
    view: PlayerView, h: History, model, found: Sequence[World], batched: bool | None = None
) -> np.ndarray:
    """(worlds, opponent moves): the model's probability of each move the opponent made
    in each world. ``batched``: replay the worlds in the batched engine's lanes (the
    model's ``lane_probabilities``), or one by one in the reference engine; None: in
    lanes where the model and numba allow. The same numbers either way."""
    lanes = getattr(model, "lane_probabilities", None)
    if batched is None:
        batched = lanes is not None and _have_numba()
    if batched:
        return _taken_in_lanes(view, h, lanes, found)
    return _taken(view, h, model, found)


def _weighed(
    view: PlayerView, h: History, model, found: list[World], exact: bool,
    taken: np.ndarray | None = None,
) -> Belief:
    if taken is None:
        taken = infer_weights(view, h, model, found)
    with np.errstate(divide="ignore"):
        logw = np.log(taken).sum(axis=1)
    degenerate = not np.isfinite(logw).any()
    if degenerate:
        weights = np.full(len(found), 1.0 / len(found))
    else:
        weights = np.exp(logw - logw.max())
        weights /= weights.sum()
    return Belief(view, [w.hidden for w in found], weights, exact, degenerate)


def _weighed_by(
    view: PlayerView, h: History, model, found: list[World], exact: bool, deadline: float
) -> Belief:
    """:func:`_weighed` in batches of :data:`BATCH_WORLDS`, none begun that the last
    one's time says would end past ``deadline``: the belief of the worlds weighed (in
    the order found; the same belief as :func:`_weighed`'s when all are)."""
    order = list(range(len(found)))
    if exact:
        # Enumerated worlds come in an order of their cards: a batch cut short must be
        # a uniform sample of them, so they are weighed in an order fixed by their number
        # (the caller's generator is left as it was).
        random.Random(len(found)).shuffle(order)
    done: list[int] = []
    rows: list[np.ndarray] = []
    began = time.perf_counter()
    while len(done) < len(order):
        batch = order[len(done) : len(done) + BATCH_WORLDS]
        rows.append(infer_weights(view, h, model, [found[i] for i in batch]))
        done += batch
        now = time.perf_counter()
        if now + (now - began) > deadline:
            break
        began = now
    taken = np.concatenate(rows)
    keep = np.argsort(done, kind="stable")
    kept = [found[done[i]] for i in keep]
    return _weighed(view, h, model, kept, exact and len(kept) == len(found), taken[keep])


def _checked(probs, rows: int) -> np.ndarray:
    probs = np.asarray(probs, dtype=np.float64)
    if probs.shape != (rows, NUM_ACTIONS):
        raise ValueError(
            f"the opponent model gave probabilities of shape {probs.shape}, "
            f"expected ({rows}, {NUM_ACTIONS})"
        )
    return probs


def _taken(view: PlayerView, h: History, model, found: list[World]) -> np.ndarray:
    """(worlds, opponent moves): the model's probability of each move the opponent
    made, each world replayed by the reference engine."""
    views: list[PlayerView] = []
    moves: list[int] = []
    for w in found:
        _, seen = replay(view, h, w.deck)
        views.extend(seen)
        moves.extend(h.actions[i][1] for i in h.opponent_moves)
    probs = _checked(model.probabilities(views), len(views))
    return probs[np.arange(len(views)), moves].reshape(len(found), len(h.opponent_moves))


def _taken_in_lanes(view: PlayerView, h: History, lane_probabilities, found) -> np.ndarray:
    """:func:`_taken` with every world in a lane of the batched engine, the moves
    applied to all at once and the model asked once per opponent move
    (``lane_probabilities(hands, lanes, seats)``; the same probabilities)."""
    from ..batched.engine import BatchedHands

    n = len(found)
    hands = BatchedHands(n, view.rules)
    lanes = hands.all_lanes
    hands.deal(
        lanes,
        np.array([w.deck for w in found], np.int64),
        np.full(n, view.dealer, np.int64),
        np.tile(np.array(view.match_score, np.int64), (n, 1)),
    )
    opp = np.full(n, 1 - h.seat, np.int64)
    out = np.empty((n, len(h.opponent_moves)))
    last = h.opponent_moves[-1]
    j = 0
    for i, (who, a) in enumerate(h.actions[: last + 1]):
        if who == opp[0]:
            out[:, j] = _checked(lane_probabilities(hands, lanes, opp), n)[:, a]
            j += 1
        if i < last:
            hands.apply_unchecked(lanes, np.full(n, a, np.int64))
    return out


def _have_numba() -> bool:
    from ..batched import have_numba

    return have_numba()


def replay_failures(view: PlayerView, h: History, found: Sequence[World]) -> int:
    """How many worlds the engine refuses to replay (0 when the placements are right)."""
    bad = 0
    for w in found:
        try:
            replay(view, h, w.deck)
        except IllegalActionError:
            bad += 1
    return bad
