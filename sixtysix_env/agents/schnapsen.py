"""The ``schnapsen`` bot platform's bots as agents here (``schnapsen:rdeep:num_samples=16``).

The `schnapsen package <https://pypi.org/project/schnapsen/>`_ (0.0.5) plays the
``schnapsen-vu`` rules (docs/rules.md §20); its users write ``schnapsen.game.Bot``
subclasses. Here a :class:`SchnapsenAgent` plays one of its bots in this project's
engine: from the agent's :class:`~sixtysix_env.game.view.PlayerView` it deals a full
hand that agrees with everything the view shows (the hidden cards placed from the
agent's seeded ``rng``, as :func:`~sixtysix_env.game.view.determinize` does), replays
the hand's public moves in the package's own ``SchnapsenGamePlayEngine``, so the bot's
``PlayerPerspective`` has its history, scores and pending marriage points, and asks the
bot. Their bots read only what a perspective shows: the placement of the hidden cards
changes nothing they may see (the history's own hands before a draw may differ from the
real ones: the view does not say which card was drawn when).

This module also holds the mapping both ways between the package's cards, moves and
deals and this project's card ids, actions and decks (``tools/schnapsen_referee.py`` and
:mod:`sixtysix_env.agents.schnapsen_bot` read it), and :func:`consistent_deck`, the deal
that agrees with a hand's public moves.

It needs the package, the ``[schnapsen]`` extra: ``pip install "sixtysix[schnapsen]"``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..batched import MissingExtraError
from ..game.actions import EXCHANGE, FIRST_MARRIAGE, action_name
from ..game.cards import JACK, KING, NUM_RANKS, QUEEN, card, card_code
from ..game.events import Exchange, Marriage, Trick
from ..game.rules import RuleConfig, make_rules
from ..game.view import PlayerView, hidden_places
from ..util.errors import SixtySixError
from ..util.importing import import_callable

try:
    from schnapsen import game as sg
    from schnapsen.deck import Card as SCard
    from schnapsen.deck import OrderedCardCollection, Rank, Suit
except ImportError:  # pragma: no cover - said in words by require_schnapsen
    sg = None

#: The rules the package's engine plays (docs/rules.md §20).
RULES_NAME = "schnapsen-vu"
EXTRA_HINT = 'pip install "sixtysix[schnapsen]" (or pip install -e ".[schnapsen]" in a checkout)'


def have_schnapsen() -> bool:
    """Whether the ``schnapsen`` package is importable here."""
    return sg is not None


def require_schnapsen(what: str = "the schnapsen bridge") -> None:
    """Raise :class:`MissingExtraError`, naming the extra, without the package."""
    if sg is None:
        raise MissingExtraError(
            f"{what} needs the 'schnapsen' package (0.0.5), which is not installed: {EXTRA_HINT}"
        )


class SchnapsenBridgeError(SixtySixError, ValueError):
    """A ``schnapsen:`` agent that cannot be built or played: an unknown bot or option, rules
    other than ``schnapsen-vu``, a bot that returns an illegal move."""


def check_rules(rules: Any, who: str) -> RuleConfig:
    """The rules if they are ``schnapsen-vu``, else a clear error naming them."""
    r = make_rules(rules)
    if r.name != RULES_NAME:
        raise SchnapsenBridgeError(
            f"{who} plays the schnapsen package's rules, {RULES_NAME!r} (docs/rules.md §20), "
            f"not {r.name!r}; play it with --rules {RULES_NAME} (rules={RULES_NAME!r})"
        )
    return r


# -- cards and moves both ways ---------------------------------------------------------

_SUITS = {"CLUBS": 0, "DIAMONDS": 1, "HEARTS": 2, "SPADES": 3}
_RANKS = {"JACK": JACK, "QUEEN": QUEEN, "KING": KING, "TEN": 4, "ACE": 5}
_SUIT_NAMES = {v: k for k, v in _SUITS.items()}
_RANK_NAMES = {v: k for k, v in _RANKS.items()}


def our_card(c) -> int:
    """Our card id of one of the package's cards."""
    return card(_SUITS[c.suit.name], _RANKS[c.rank.name])


def their_card(c: int):
    """The package's card for one of our card ids (of the 20-card deck)."""
    return SCard.get_card(Rank[_RANK_NAMES[c % NUM_RANKS]], Suit[_SUIT_NAMES[c // NUM_RANKS]])


def marriage_action(suit: int) -> int:
    """Our action id of the package's marriage in ``suit``: it leads the king
    (``Marriage.underlying_regular_move``), our marry-K action."""
    return FIRST_MARRIAGE + 2 * suit + 1


def our_action(move) -> int:
    """Our action id of one of the package's moves."""
    if move.is_trump_exchange():
        return EXCHANGE
    if move.is_marriage():
        return marriage_action(_SUITS[move.suit.name])
    return our_card(move.card)


def their_move(action: int, trump_suit: int):
    """The package's move for one of our action ids (a legal one under ``schnapsen-vu``)."""
    if action == EXCHANGE:
        return sg.TrumpExchange(their_card(card(trump_suit, JACK)))
    if action >= FIRST_MARRIAGE:
        suit = (action - FIRST_MARRIAGE) // 2
        return sg.Marriage(their_card(card(suit, QUEEN)), their_card(card(suit, KING)))
    return sg.RegularMove(their_card(action))


def move_text(move) -> str:
    """A move in words as the package writes it, with our action's name."""
    try:
        return f"{move} ({action_name(our_action(move))})"
    except (AttributeError, KeyError, TypeError):
        return repr(move)


def our_deck(ids: Sequence[int]) -> list[int]:
    """Our deck order (:func:`~sixtysix_env.game.engine.deal_from_deck`) of a 20-card deal
    in the package's order: its hands are cards 0, 2, .. 8 (the first leader, our
    non-dealer) and 1, 3, .. 9; its talon 10-19, drawn from the top, the last one face up."""
    lead, follow, talon = list(ids[0:10:2]), list(ids[1:10:2]), list(ids[10:])
    return lead[:3] + follow[:3] + lead[3:] + follow[3:] + [talon[-1]] + talon[:-1]


# -- a deal that agrees with a hand's public moves -------------------------------------


@dataclass(frozen=True)
class Step:
    """One public move of a hand: an exchange (``follow`` None) or a trick (``lead`` is
    the card led or our marry-K action, ``shown`` the queen shown with it)."""

    seat: int  # the leader (or the exchanger)
    lead: int | None = None
    follow: int | None = None
    winner: int | None = None
    shown: int | None = None


def steps_of_view(view: PlayerView) -> tuple[list[Step], int | None]:
    """The hand's public moves from a view's events, and the marriage action on the table
    (a marriage led in the trick not yet finished), or None."""
    steps: list[Step] = []
    married: Marriage | None = None
    for e in view.events:
        if type(e) is Exchange:
            steps.append(Step(e.seat))
        elif type(e) is Marriage:
            married = e
        elif type(e) is Trick:
            lead, shown = e.lead, None
            if married is not None:
                lead, shown, married = marriage_action(married.suit), married.shown, None
            steps.append(Step(e.leader, lead, e.follow, e.winner, shown))
    return steps, (marriage_action(married.suit) if married is not None else None)


def _lead_cards(step: Step) -> list[int]:
    if step.lead is None or step.lead < FIRST_MARRIAGE:
        return [step.lead] if step.lead is not None else []
    suit = (step.lead - FIRST_MARRIAGE) // 2
    return [card(suit, KING), card(suit, QUEEN)]


def _needs(steps: Sequence[Step], trump_card: int, rules: RuleConfig):
    """Per seat, each card it must hold from its own deal or draws, with the number of
    tricks done when it is first needed; and the cards that reached a hand otherwise (the
    face-up card taken by an exchange, the bottom card drawn by the last trick's loser)."""
    per_turn = rules.stock_start // 2 + 1  # the tricks that draw (the last one draws the bottom)
    needs: tuple[dict[int, int], dict[int, int]] = ({}, {})
    forced: dict[int, int] = {}
    bottom, done = trump_card, 0
    for st in steps:
        if st.follow is None:  # an exchange: the jack from the hand, the face-up card taken
            jack = card(trump_card // NUM_RANKS, rules.exchange_rank)
            if jack not in forced:
                needs[st.seat].setdefault(jack, done)
            forced[bottom] = st.seat
            bottom = jack
            continue
        for c in _lead_cards(st):
            if c not in forced:
                needs[st.seat].setdefault(c, done)
        if st.follow not in forced:
            needs[1 - st.seat].setdefault(st.follow, done)
        done += 1
        if done == per_turn:
            forced[bottom] = 1 - st.winner
    return needs, forced, done


def consistent_deck(
    steps: Sequence[Step],
    first_leader: int,
    hands_now: tuple[int, int],
    trump_card: int,
    rules: RuleConfig,
    rng: random.Random,
) -> list[int]:
    """A 20-card deal in the package's order (first leader's cards at 0, 2, .. 8) from
    which the public moves ``steps`` lead to the hands ``hands_now`` (card masks, both
    whole: the caller places the hidden cards), with ``trump_card`` turned up.

    Each card a seat played, showed or holds is put in one of that seat's places (its
    deal, or a draw after a trick) taken no later than it was needed (earliest needed,
    earliest place: such a deal exists whenever one does); the cards left are the
    undrawn talon, shuffled by ``rng``."""
    needs, forced, done = _needs(steps, trump_card, rules)
    for seat in (0, 1):
        for c in range(24):
            if hands_now[seat] >> c & 1 and c not in forced:
                needs[seat].setdefault(c, done)
    hand, draws = rules.hand_size, rules.stock_start // 2 + 1
    deck: list[int | None] = [None] * rules.deck
    places: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
    for i in range(hand):  # (time, position)
        places[first_leader].append((0, 2 * i))
        places[1 - first_leader].append((0, 2 * i + 1))
    tricks = [st for st in steps if st.follow is not None]
    for j, st in enumerate(tricks[:draws]):
        places[st.winner].append((j + 1, 2 * hand + 2 * j))
        if j + 1 < draws:
            places[1 - st.winner].append((j + 1, 2 * hand + 2 * j + 1))
    for seat in (0, 1):
        cards = sorted(needs[seat].items(), key=lambda kv: (kv[1], kv[0]))
        slots = sorted(places[seat])
        if len(cards) != len(slots) or any(t > d for (t, _), (_, d) in zip(slots, cards)):
            raise ValueError(
                f"no deal agrees with the moves: seat {seat} holds {len(cards)} cards from "
                f"{len(slots)} places"
            )
        for (_, pos), (c, _) in zip(slots, cards):
            deck[pos] = c
    deck[-1] = trump_card
    used = {c for c in deck if c is not None}
    rest = [c for c in rules.deck_cards if c not in used]
    rng.shuffle(rest)
    free = [i for i, c in enumerate(deck) if c is None]
    if len(rest) != len(free):
        raise ValueError("no deal agrees with the moves: the talon's cards do not fit")
    for i, c in zip(free, rest):
        deck[i] = c
    return [int(c) for c in deck]  # type: ignore[arg-type]


# -- the package's engine, move by move ------------------------------------------------


class _Replay:
    """A bot that plays the move it is given (the package asks the follower through it)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.move = None

    def get_move(self, perspective, leader_move):
        return self.move

    def notify_game_end(self, won, perspective) -> None:
        pass

    def notify_trump_exchange(self, move) -> None:
        pass


def replay(engine, deck: Sequence[int], first_leader: int, steps: Sequence[Step], trump_suit: int):
    """The package's ``GameState`` after ``steps`` from ``deck`` (package order), and the
    two replay bots (index: our seat)."""
    bots = [_Replay(0), _Replay(1)]
    h1, h2, talon = engine.hand_generator.generateHands(
        OrderedCardCollection([their_card(c) for c in deck])
    )
    gs = sg.GameState(
        leader=sg.BotState(implementation=bots[first_leader], hand=h1),
        follower=sg.BotState(implementation=bots[1 - first_leader], hand=h2),
        talon=talon,
        previous=None,
    )
    for st in steps:
        if gs.leader.implementation.seat != st.seat:
            raise ValueError("the replay went another way than the moves (the leader)")
        if st.follow is None:
            move = their_move(EXCHANGE, trump_suit)
        else:
            move = their_move(st.lead, trump_suit)
            gs.follower.implementation.move = sg.RegularMove(their_card(st.follow))
        gs = engine.trick_implementer.play_trick_with_fixed_leader_move(engine, gs, move)
    return gs, bots


# -- their bots as agents --------------------------------------------------------------


class _PhaseTwo:
    """The package's AlphaBetaBot and MiniMaxBot search the second phase only (they assert
    it): before it, another of its bots plays."""

    def __init__(self, search, before) -> None:
        self.search, self.before = search, before

    def get_move(self, perspective, leader_move):
        bot = self.search if perspective.get_phase() == sg.GamePhase.TWO else self.before
        return bot.get_move(perspective, leader_move)


def _ml_bot(model: str):
    import pathlib

    path = pathlib.Path(model)
    if not path.is_file():
        raise SchnapsenBridgeError(f"schnapsen:ml: the model file {model!r} does not exist")
    from schnapsen.bots import MLPlayingBot

    return MLPlayingBot(path)


def _shipped_bot(kind: str, opts: dict[str, Any], rng: random.Random):
    """One of the package's own bots (``kind`` in :data:`BOTS`), built with ``opts``."""
    allowed = BOTS[kind]
    unknown = sorted(set(opts) - set(allowed))
    if unknown:
        shown = ", ".join(f"{k}={v!r}" for k, v in allowed.items()) or "none"
        raise SchnapsenBridgeError(
            f"bad options for agent 'schnapsen:{kind}': no option "
            f"{', '.join(map(repr, unknown))}; its options (with defaults): {shown}"
        )
    o = {**allowed, **opts}
    from schnapsen import bots as sb  # sklearn and Flask: only when a bot is asked for

    if kind == "rand":
        return sb.RandBot(rng)
    if kind == "bully":
        return sb.BullyBot(rng)
    if kind == "rdeep":
        for k in ("num_samples", "depth"):
            if not isinstance(o[k], int) or isinstance(o[k], bool) or o[k] < 1:
                raise SchnapsenBridgeError(
                    f"agent 'schnapsen:rdeep': {k} must be a whole number >= 1, got {o[k]!r}"
                )
        return sb.RdeepBot(o["num_samples"], o["depth"], rng)
    if kind in ("alphabeta", "minimax"):
        if o["phase_one"] not in PHASE_ONE:
            raise SchnapsenBridgeError(
                f"agent 'schnapsen:{kind}': phase_one must be one of {', '.join(PHASE_ONE)}, "
                f"got {o['phase_one']!r}"
            )
        search = sb.AlphaBetaBot() if kind == "alphabeta" else sb.MiniMaxBot()
        return _PhaseTwo(search, _shipped_bot(o["phase_one"], {}, rng))
    if o["model"] is None:
        raise SchnapsenBridgeError(
            "agent 'schnapsen:ml' needs its model file: schnapsen:ml:model=PATH "
            "(as the package's train_ML_model writes it)"
        )
    return _ml_bot(o["model"])


#: The bots that play the first phase for alphabeta and minimax (with their defaults).
PHASE_ONE = ("rdeep", "bully", "rand")

#: The package's bots by name, with their options and defaults (``schnapsen:NAME:k=v``).
BOTS: dict[str, dict[str, Any]] = {
    "rand": {},
    "bully": {},
    "rdeep": {"num_samples": 16, "depth": 4},
    "alphabeta": {"phase_one": "rdeep"},
    "minimax": {"phase_one": "rdeep"},
    "ml": {"model": None},
}


def _user_bot(path: str, opts: dict[str, Any]):
    cls, attr = import_callable(path, f"agent 'schnapsen:{path}'", SchnapsenBridgeError)
    try:
        bot = cls(**opts)
    except TypeError as e:
        raise SchnapsenBridgeError(f"agent 'schnapsen:{path}': bad options ({e})") from None
    if not isinstance(bot, sg.Bot):
        raise SchnapsenBridgeError(
            f"agent 'schnapsen:{path}': {attr}(...) built {type(bot).__name__!r}, which is not "
            "a schnapsen.game.Bot"
        )
    return bot


def reseed(bot, rng: random.Random, depth: int = 2) -> None:
    """Seed every ``random.Random`` the bot keeps (RandBot's, RdeepBot's, those of the bots it
    holds) from ``rng``: its choices then follow the generator it is played with."""
    for value in vars(bot).values():
        if isinstance(value, random.Random):
            value.seed(rng.getrandbits(64))
        elif depth and callable(getattr(value, "get_move", None)):
            reseed(value, rng, depth - 1)


def known_bots() -> str:
    """The ``schnapsen:`` agents in words, for error messages."""
    return (
        "schnapsen:" + ", schnapsen:".join(BOTS)
        + " (rdeep's options num_samples=16,depth=4; alphabeta's and minimax's "
        "phase_one=rdeep|bully|rand, the bot before the second phase; ml's model=PATH), "
        "or a Bot of your own "
        "as schnapsen:package.module:ClassName"
    )


class SchnapsenAgent:
    """One of the ``schnapsen`` package's bots playing here (``schnapsen-vu`` rules only).

    ``bot`` is a ``schnapsen.game.Bot``. At each decision the ``rng`` :meth:`act` is given
    places the hidden cards of the deal the bot is shown and seeds the bot's own random
    generators (:func:`reseed`), so the same generator gives the same move.
    """

    def __init__(self, bot, name: str | None = None) -> None:
        require_schnapsen()
        self.bot = bot
        self.name = name or f"schnapsen:{type(bot).__name__}"
        self.engine = sg.SchnapsenGamePlayEngine()

    def perspective(self, view: PlayerView, rng: random.Random):
        """The bot's ``PlayerPerspective`` and the leader's move of a view (for this seat to
        act), the hidden cards placed by ``rng``."""
        rules = check_rules(view.rules, f"agent {self.name!r}")
        steps, marriage_on_table = steps_of_view(view)
        candidates, need = hidden_places(view)
        opp = view.opponent_known
        for c in rng.sample(candidates, need):
            opp |= 1 << c
        seat = view.seat
        hands = [0, 0]
        hands[seat], hands[1 - seat] = view.hand, opp
        if view.lead_card is not None:  # the card on the table is still the leader's
            hands[view.leader] |= 1 << view.lead_card
        first = 1 - view.dealer
        trump = view.trump_card if not any(st.follow is None for st in steps) else next(
            e.taken for e in view.events if type(e) is Exchange
        )
        deck = consistent_deck(steps, first, (hands[0], hands[1]), trump, rules, rng)
        gs, _ = replay(self.engine, deck, first, steps, view.trump_suit)
        if view.lead_card is None:
            return sg.LeaderPerspective(gs, self.engine), None
        lead = marriage_on_table if marriage_on_table is not None else view.lead_card
        leader_move = their_move(lead, view.trump_suit)
        return sg.FollowerPerspective(gs, self.engine, leader_move), leader_move

    def act(self, view: PlayerView, rng: random.Random) -> int:
        perspective, leader_move = self.perspective(view, rng)
        reseed(self.bot, rng)
        move = self.bot.get_move(perspective, leader_move)
        try:
            action = our_action(move)
        except (AttributeError, KeyError, TypeError):
            action = -1
        if action < 0 or not view.legal_mask >> action & 1:
            legal = ", ".join(move_text(m) for m in perspective.valid_moves())
            raise SchnapsenBridgeError(
                f"agent {self.name!r} returned the illegal move {move_text(move)}; legal moves: "
                f"{legal}"
            )
        return action


def make_schnapsen_agent(rest: str, opts: dict[str, Any]) -> SchnapsenAgent:
    """The agent ``schnapsen:REST`` names (``rest``: ``rdeep``, ``mybots:MyBot``), with
    ``opts`` (``seed`` seeds the bot's own generator where it is built; the others go to
    the bot)."""
    if rest not in BOTS and ":" not in rest:
        raise SchnapsenBridgeError(f"unknown agent 'schnapsen:{rest}'; the schnapsen agents: "
                                   f"{known_bots()}")
    require_schnapsen(f"agent 'schnapsen:{rest}'")
    opts = dict(opts)
    seed = opts.pop("seed", 0)
    if rest in BOTS:
        bot = _shipped_bot(rest, opts, random.Random(seed))
    else:
        bot = _user_bot(rest, opts)
    return SchnapsenAgent(bot, name=f"schnapsen:{rest}")


def deal_text(deck: Sequence[int]) -> str:
    return " ".join(card_code(c) for c in deck)


__all__ = [
    "BOTS",
    "RULES_NAME",
    "SchnapsenAgent",
    "SchnapsenBridgeError",
    "Step",
    "check_rules",
    "consistent_deck",
    "have_schnapsen",
    "make_schnapsen_agent",
    "our_action",
    "our_card",
    "our_deck",
    "replay",
    "require_schnapsen",
    "their_card",
    "their_move",
]
