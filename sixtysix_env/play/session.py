"""One match between a person (seat 0) and a computer opponent (seat 1).

The session owns the full :class:`~sixtysix_env.game.match.Match`; everything it
hands out for the person is built from ``player_view(state, HUMAN)``: the
view itself, the moves the person may make, the steps each side took (every
action is public once made), and explanations of illegal moves. The one
exception is :meth:`GameSession.revealed_hands`, which shows both hands as
they lay when a hand ended, as players do when they count up.

The computer chooses its actions through the agent interface,
``agent.act(player_view(state, COMPUTER), rng)``: it never sees the full
state either.

The sentences it and its front ends give the person (why a move is refused,
what each step did, how a hand ended) are the rules tower's
(:mod:`sixtysix_env.game.wording`) in the match's voice (:mod:`.wording`, beside this
module), re-exported here. Words used in messages and
front ends follow the game: the stock, the trump card under it, tricks,
marriages, the exchange of the trump 9 (the jack with the 20-card deck), closing,
a hand (one deal) and the match (to 7 game points).
"""

from __future__ import annotations

import logging
import random
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..agents import agent_names, make_agent
from ..game.actions import (
    CLOSE,
    EXCHANGE,
    NUM_ACTIONS,
    action_card,
    action_name,
    marriage_action,
    parse_action,
)
from ..game.cards import (
    KING,
    NUM_RANKS,
    QUEEN,
    SUITS,
    cards_of,
    parse_card,
)
from ..game.engine import HandResult, State, Trick, deal_from_deck
from ..game.match import Match
from ..game.rules import marriage_points as rules_marriage_points
from ..game.view import PlayerView, player_view
from ..game.wording.refusals import (
    HAND_IN_PLAY,
    HAND_OVER,
    MATCH_OVER,
    REFUSAL_WORDS,
    explain_illegal,
    not_an_action,
)
from ..policy.shipped import networks_for, shipped_names, trained_preset
from ..ranking.standings import strongest
from ..util.checks import is_int
from ..util.errors import SixtySixError

# The match's sentences live beside the session (play/wording.py); the session
# re-exports those that code imports from here.
from .wording import (
    NAMES,
    VOICE,
    card_words,
    explain_result,
    narrate,
    points_breakdown,
    rank_word,
    result_headline,
    verb,
    who,
)

HUMAN, COMPUTER = 0, 1

log = logging.getLogger(__name__)

#: What a session does when the computer's agent fails (raises, or returns
#: something that is not a legal action): play a legal move in its place (and
#: log it), or raise :class:`OpponentError`.
OPPONENT_ERROR_MODES = ("fallback", "raise")

#: Opponents tried in order when none is named and the leaderboard ranks no shipped
#: network: the first one registered wins.
PREFERRED_OPPONENTS = ("sixtysix-ppo", "heuristic", "random")


def default_opponent(rules: str | None = None) -> str:
    """The opponent used when none is named: the strongest shipped network on the
    leaderboard (a person came to play against it; one forward pass a move), read from
    the leaderboard's files (:mod:`sixtysix_env.ranking.standings`); else a sensible registered
    agent (:data:`PREFERRED_OPPONENTS`). With ``rules`` (a preset's name) that the
    leaderboard's network was not trained for: the network shipped for that preset (the
    last by name where there are several), if there is one."""
    names = agent_names()
    best = strongest([n for n in shipped_names() if n in names])
    if rules is not None and (best is None or trained_preset(best.agent) != rules):
        own = [n for n in networks_for(rules) if n in names]
        if own:
            ranked = strongest(own)
            return ranked.agent if ranked is not None else own[-1]
    if best is not None:
        return best.agent
    for name in PREFERRED_OPPONENTS:
        if name in names:
            return name
    return names[0]


class IllegalMove(ValueError):
    """A move the person may not make now; the message says why."""

    def __init__(self, message: str, legal: Sequence[str] = ()):
        super().__init__(message)
        self.legal = tuple(legal)


class OpponentError(SixtySixError, RuntimeError):
    """The computer's agent failed to move. The message names the agent and what went wrong,
    never the computer's cards or legal actions (they are hidden from the person)."""


@dataclass(frozen=True)
class Step:
    """One action taken, seen from the person's seat.

    ``before`` and ``after`` are the person's views around the action, so a
    front end can narrate it without touching hidden information.
    """

    seat: int
    action: int
    before: PlayerView
    after: PlayerView

    @property
    def card(self) -> int | None:
        return action_card(self.action)

    @property
    def trick(self) -> Trick | None:
        """The trick this action completed, if it did."""
        if self.before.lead_card is None or self.card is None:
            return None
        for e in reversed(self.after.events):
            if type(e) is Trick:
                return e
        return None  # pragma: no cover - a follow always completes a trick


# -- cards for display ------------------------------------------------------


def suit_order(trump_suit: int) -> list[int]:
    """Suits in display order: black and red alternating, trumps last."""
    order = [0, 1, 3, 2]  # clubs, diamonds, spades, hearts
    order.remove(trump_suit)
    return order + [trump_suit]


def sort_hand(cards: int | Sequence[int], trump_suit: int) -> list[int]:
    """A hand sorted by suit (trumps last), each suit from 9 up to the ace."""
    cs = cards_of(cards) if isinstance(cards, int) else list(cards)
    rank_of_suit = {s: i for i, s in enumerate(suit_order(trump_suit))}
    return sorted(cs, key=lambda c: (rank_of_suit[c // NUM_RANKS], c))


def parse_card_text(text: str) -> int:
    """A card from a code (``QH``, ``10h``) or a label with a suit symbol (``10♥``)."""
    t = text.strip()
    for sym, letter in zip("\u2663\u2666\u2665\u2660", SUITS, strict=True):
        t = t.replace(sym, letter)
    for sym, letter in zip("\u2667\u2662\u2661\u2664", SUITS, strict=True):  # white suit symbols
        t = t.replace(sym, letter)
    return parse_card(t)


# -- what the person may do -------------------------------------------------


@dataclass(frozen=True)
class Move:
    """A move offered to the person.

    Playing a king or queen whose marriage may be declared declares it (as
    in the usual computer game), so such a card's move is the marriage
    action. ``kind`` is ``play``, ``marriage``, ``exchange`` or ``close``.
    """

    action: int
    kind: str
    card: int | None = None
    points: int = 0  # of a marriage

    @property
    def name(self) -> str:
        return action_name(self.action)


def marriage_points(view: PlayerView, c: int) -> int:
    """Points the marriage led with ``c`` is worth in ``view``'s hand."""
    return rules_marriage_points(c // NUM_RANKS, view.trump_suit)


def moves(view: PlayerView) -> list[Move]:
    """The person's moves now: cards in display order, then exchange, close."""
    legal = view.legal_mask
    out = []
    for c in sort_hand(view.hand, view.trump_suit):
        if c % NUM_RANKS in (QUEEN, KING) and legal >> marriage_action(c) & 1:
            out.append(Move(marriage_action(c), "marriage", c, marriage_points(view, c)))
        elif legal >> c & 1:
            out.append(Move(c, "play", c))
    if legal >> EXCHANGE & 1:
        out.append(Move(EXCHANGE, "exchange"))
    if legal >> CLOSE & 1:
        out.append(Move(CLOSE, "close"))
    return out


def card_for_move(view: PlayerView, c: int) -> int:
    """The action for playing card ``c``: declaring its marriage when possible."""
    if c % NUM_RANKS in (QUEEN, KING):
        m = marriage_action(c)
        if view.legal_mask >> m & 1:
            return m
    return c


# -- the session --------------------------------------------------------------


#: The least time each computer decision takes in `sixtysix play` and on `sixtysix serve`'s
#: page: a pause in the game's pace, and no timing channel (:meth:`GameSession.pause`).
MIN_THINK_SECONDS = 0.4
#: The share of that pad a search (expert, guided) may think per decision in an unseeded
#: session: the rest is the margin for what a decision takes beyond its time budget.
SEARCH_SHARE = 0.5


#: The hint's reading of the opponent: the heuristic's moves, softened, a cheap model of
#: any player (the computer's own agent is not used: the hint reads play, not the program).
HINT_MODEL, HINT_SOFTNESS, HINT_WORLDS = "heuristic", 0.3, 512


def opponent_hint(view: PlayerView) -> list[tuple[int, float]]:
    """(card, probability) for each card whose place ``view`` does not show and that the
    opponent may hold, most likely first: the belief that reading the opponent's moves
    gives (:func:`sixtysix_env.agents.beliefs.infer`, from the view alone; the same view gives
    the same hint). Cards the opponent is known to hold are left out."""
    from ..agents.beliefs import infer
    from ..agents.models import opponent_model  # numpy: only when a hint is asked for

    if view.is_exhausted or view.result is not None:
        return []
    model = opponent_model(HINT_MODEL, HINT_SOFTNESS)
    p = infer(view, model, random.Random(0), worlds=HINT_WORLDS).card_probabilities()
    unknown = view.unseen() & ~view.opponent_excluded
    cards = [c for c in range(24) if unknown >> c & 1]
    return sorted(((c, float(p[c])) for c in cards), key=lambda x: (-x[1], x[0]))


def add_min_think_argument(parser) -> None:
    """The ``--min-think`` option of ``sixtysix play`` and ``sixtysix serve``."""
    parser.add_argument(
        "--min-think",
        type=float,
        default=MIN_THINK_SECONDS,
        metavar="SECONDS",
        help=f"each computer move takes this long, forced or not, so that its speed does not "
        f"tell whether it had a choice; a search (expert, guided) thinks at most "
        f"{SEARCH_SHARE:.0%}% of it without --seed (default {MIN_THINK_SECONDS}; 0 to 10)",
    )


class GameSession:
    """A match between the person (seat 0) and a computer agent (seat 1).

    ``opponent`` is anything :func:`make_agent` accepts (a name, a policy
    file, an agent object). ``seed`` fixes the deals and the computer's
    choices; without one both come from :mod:`secrets`, so nobody can
    rebuild a deal from the engine's source. ``deck`` (the rules' card codes,
    24 or 20, top first) deals the first hand from a fixed deck, the person leading: a
    scenario hook for tests and demonstrations. ``on_opponent_error``:
    ``"fallback"`` (default) plays a random legal move for a computer agent
    that raises or answers anything but a legal action id, logs it and
    counts it in ``opponent_faults``; ``"raise"`` raises :class:`OpponentError`
    (naming nothing hidden) and leaves the state as it was.

    ``min_think_seconds`` pads every computer decision to that long
    (:meth:`pause`); so that the pad hides whether the computer had a choice,
    a search agent (one with ``think_within``: expert, guided) is bounded to
    :data:`SEARCH_SHARE` of it per decision in an unseeded session, its first
    decision warmed up here. A seeded session keeps its choices reproducible
    (no time bound): its deals can be rebuilt from the seed anyway.
    """

    def __init__(
        self,
        opponent: object = None,
        rules: object = None,
        seed: int | None = None,
        deck: Sequence[int | str] | str | None = None,
        on_opponent_error: str = "fallback",
        min_think_seconds: float = 0.0,
    ) -> None:
        if (
            isinstance(min_think_seconds, bool)
            or not isinstance(min_think_seconds, (int, float))
            or not 0.0 <= min_think_seconds <= 10.0
        ):
            raise ValueError(
                f"min_think_seconds must be a number of seconds from 0 to 10, got {min_think_seconds!r}"
            )
        #: Every computer decision takes at least this long (see :meth:`pause`).
        self.min_think_seconds = float(min_think_seconds)
        self._pause_due = 0.0
        if on_opponent_error not in OPPONENT_ERROR_MODES:
            raise ValueError(
                f"unknown on_opponent_error {on_opponent_error!r}; allowed: "
                + ", ".join(OPPONENT_ERROR_MODES)
            )
        self.on_opponent_error = on_opponent_error
        #: How many times the computer's agent failed and a legal move was played for it.
        self.opponent_faults = 0
        if opponent is None:
            opponent = default_opponent(rules if isinstance(rules, str) else None)
        self.opponent_name = opponent if isinstance(opponent, str) else getattr(
            opponent, "name", type(opponent).__name__
        )
        self.agent = make_agent(opponent)
        seeded = seed is not None
        if seed is None:
            seed = secrets.randbits(64)
        self.match = Match(rules, seed=random.Random(seed))
        #: The seconds a search agent may think per decision (None: unbounded).
        self.think_bound = None
        think_within = getattr(self.agent, "think_within", None)
        if self.min_think_seconds > 0 and not seeded and callable(think_within):
            self.think_bound = max(1e-3, SEARCH_SHARE * self.min_think_seconds)
            think_within(self.think_bound, self.match.rules)
        self.agent_rng = random.Random(f"{seed}/opponent")
        if deck is not None:
            self.match.hand = deal_from_deck(deck, dealer=COMPUTER, rules=self.match.rules)
        #: The hand that just ended, shown until :meth:`next_hand` (the match
        #: object has already dealt the next one, which stays hidden).
        self.finished: State | None = None
        self.hand_number = 1
        #: (your game points, the computer's) gained by each finished hand.
        self.history: list[tuple[HandResult, tuple[int, int]]] = []

    # -- reading --------------------------------------------------------------

    @property
    def rules(self):
        return self.match.rules

    @property
    def state(self) -> State:
        """The hand on show: the one just finished, or the one being played."""
        return self.finished if self.finished is not None else self.match.hand

    def view(self) -> PlayerView:
        """All the person may know of the hand on show."""
        return player_view(self.state, HUMAN)

    @property
    def score(self) -> tuple[int, int]:
        return (self.match.score[HUMAN], self.match.score[COMPUTER])

    def is_hand_over(self) -> bool:
        return self.finished is not None

    def is_over(self) -> bool:
        return self.match.is_over()

    @property
    def winner(self) -> int | None:
        return self.match.winner

    def revealed_hands(self) -> tuple[int, int]:
        """Both hands as they lay at the end of the hand (only once it is over)."""
        if self.finished is None:
            raise RuntimeError("hands are revealed only once the hand is over")
        return (self.finished.hand(HUMAN), self.finished.hand(COMPUTER))

    def moves(self) -> list[Move]:
        return moves(self.view()) if not self.is_hand_over() else []

    def hint(self) -> list[tuple[int, float]]:
        """The hint a person may ask for (:func:`opponent_hint` of their own view); empty
        once the hand is over or when every card's place is known."""
        if self.is_hand_over():
            return []
        return opponent_hint(self.view())

    # -- acting -------------------------------------------------------------

    def start(self) -> list[Step]:
        """Let the computer act if it is to lead the first hand."""
        return self._computer_turns()

    def act(self, action: int | str) -> list[Step]:
        """Play the person's action, then the computer's until the person is to act.

        Raises :class:`IllegalMove` (saying why, and nothing changes) for an
        action that is unknown or not legal now.
        """
        view = self.view()
        if self.is_hand_over():
            raise IllegalMove(HAND_OVER if not self.is_over() else MATCH_OVER)
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except ValueError as e:
                raise IllegalMove(str(e), [m.name for m in moves(view)]) from None
        if type(action) is not int or not view.legal_mask >> action & 1:
            legal = [m.name for m in moves(view)]
            try:
                why = explain_illegal(view, action)
            except (TypeError, ValueError, IndexError):
                why = not_an_action(action)
            raise IllegalMove(why, legal)
        steps = [self._apply(HUMAN, action)]
        return steps + self._computer_turns()

    def next_hand(self) -> list[Step]:
        """Put the next hand on show (after a finished one), computer moves included."""
        if self.finished is None:
            raise IllegalMove(HAND_IN_PLAY)
        if self.is_over():
            raise IllegalMove(MATCH_OVER)
        self.finished = None
        self.hand_number += 1
        return self._computer_turns()

    def _apply(self, seat: int, action: int) -> Step:
        before = self.view()
        result = self.match.apply(action)
        if result is not None:
            self.finished = self.match.last_hand
            self.history.append((result, self.match.scored[-1]))
        return Step(seat, action, before, self.view())

    def pause(self) -> float:
        """Wait out what the computer's last decisions owe to ``min_think_seconds``; the
        seconds waited.

        Every decision of the computer, forced or not, takes at least
        ``min_think_seconds`` from the person's side: without it an instant
        answer would tell that the computer held one legal card (when the
        stock is closed, 51 forced answers came in 0.0 ms, 54 real choices in
        0.7-127 ms). The caller waits after the decisions, outside any lock
        (the web server's thinking slots are not held while it waits).
        """
        due = self.take_pause()
        if due > 0:
            time.sleep(due)
        return due

    def take_pause(self) -> float:
        """The seconds :meth:`pause` would sleep, taken without sleeping: for a caller that
        waits its own way (the web server holds the answer in its event loop, no thread)."""
        due, self._pause_due = self._pause_due, 0.0
        return due

    def _computer_turns(self) -> list[Step]:
        steps = []
        while not self.is_hand_over() and self.match.hand.current_player() == COMPUTER:
            cview = player_view(self.match.hand, COMPUTER)
            fault = None
            started = time.perf_counter()
            try:
                action = self.agent.act(cview, self.agent_rng)
            except Exception as e:  # noqa: BLE001 - any failure of a foreign agent
                fault, action = f"raised {type(e).__name__}: {e}", None
            else:
                if not is_int(action):
                    fault = f"returned {action!r}, not an action id"
                elif not (0 <= int(action) < NUM_ACTIONS and cview.legal_mask >> int(action) & 1):
                    fault = "returned an action that is not legal now"
            if fault is not None:
                # The log is the operator's; the person sees nothing of the
                # computer's hand either way (no legal actions in any message).
                log.warning("opponent %r %s (hand %d)", self.opponent_name, fault,
                            self.hand_number)
                if self.on_opponent_error == "raise":
                    raise OpponentError(
                        f"the computer ({self.opponent_name}) could not move: its agent failed"
                    )
                self.opponent_faults += 1
                action = self.agent_rng.choice(cview.legal_actions())
            took = time.perf_counter() - started
            self._pause_due += max(0.0, self.min_think_seconds - took)
            steps.append(self._apply(COMPUTER, int(action)))
        return steps


__all__ = [
    "COMPUTER",
    "HUMAN",
    "GameSession",
    "IllegalMove",
    "Move",
    "OpponentError",
    "REFUSAL_WORDS",
    "NAMES",
    "Step",
    "VOICE",
    "card_for_move",
    "card_words",
    "default_opponent",
    "explain_illegal",
    "explain_result",
    "moves",
    "opponent_hint",
    "narrate",
    "parse_card_text",
    "points_breakdown",
    "rank_word",
    "result_headline",
    "sort_hand",
    "suit_order",
    "verb",
    "who",
]
