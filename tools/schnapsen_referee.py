"""An outside referee for the ``schnapsen-vu`` rules: the ``schnapsen`` package's own engine.

    python tools/schnapsen_referee.py --hands 10000 [--seed 0] [--engines reference batched]

Each hand is dealt by the package (``SchnapsenDeckGenerator.shuffle_deck`` on a seeded
``random.Random``, then ``SchnapsenHandGenerator.generateHands``) and the same deal is
given to this project's engines under ``schnapsen-vu``: the package's first leader is
our non-dealer (seat 0, dealer seat 1), its talon's cards are our stock in drawing order
and its last talon card our face-up trump card. The hand is then played with random
moves drawn from our legal actions, and each move is played in every engine: in the
package's ``SchnapsenGamePlayEngine`` through its own trick implementer, validator and
scorer (``play_trick_with_fixed_leader_move`` with a bot that answers the chosen
follower move; ``declare_winner`` after every trick, as its ``play_game_from_state``).

At every decision the legal moves are compared (their ``valid_moves`` mapped to our
action ids: ``RegularMove(card)`` the card, ``Marriage`` the action leading its king,
``TrumpExchange`` the exchange) with the legal mask of each of our engines (the
reference ``State`` and the batched engine through the engine contract,
``sixtysix_env.batched.lane``), and at each hand's end the winner and the game points.
It prints the hands checked, the decisions compared, the disagreements (each one
described, up to ``--show``) and the time; the exit status is 1 if any disagreed.

The package is not a dependency of this project (it pins Flask and scikit-learn
versions): install it (``pip install "sixtysix[schnapsen]"``) or put its files on
``PYTHONPATH``; only ``schnapsen.game`` and ``schnapsen.deck`` are read (standard
library only).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field

from sixtysix_env.agents import schnapsen as bridge
from sixtysix_env.agents.schnapsen import (  # the mapping both ways, shared with the bridge
    our_action,
    our_card,
    sg,
    their_card,
)
from sixtysix_env.game.actions import EXCHANGE, action_name
from sixtysix_env.game.cards import card_code
from sixtysix_env.game.engine import deal_from_deck
from sixtysix_env.game.rules import make_rules

RULES = make_rules("schnapsen-vu")
MISSING = (
    "the outside referee needs the 'schnapsen' package (0.0.5): "
    'pip install "sixtysix[schnapsen]" (or put its files on PYTHONPATH)'
)


def _trump(h) -> int:
    """The trump suit of the hand ``h`` (our suit number)."""
    return h.ours["reference"].trump_suit


def require_schnapsen() -> None:
    if sg is None:
        raise SystemExit(MISSING)


# -- cards both ways: the bridge's mapping (sixtysix_env.agents.schnapsen) ------------

__all__ = ["our_action", "our_card", "our_deck", "their_card", "their_move"]


def our_deck(cards) -> list[int]:
    """Our deck order (dealer seat 1) of the package's shuffled 20 cards."""
    return bridge.our_deck([our_card(c) for c in cards])


def their_move(action: int, trump_suit: int | None = None):
    """The package's move for one of our action ids; the exchange needs the trump suit
    (None without it)."""
    if action == EXCHANGE and trump_suit is None:
        return None
    return bridge.their_move(action, trump_suit if trump_suit is not None else 0)


# -- the package's engine, move by move -----------------------------------------------


if sg is not None:

    class _Replay(sg.Bot):
        """A bot that plays the move it is given (the package asks the follower through it)."""

        def __init__(self, name: str) -> None:
            super().__init__(name)
            self.move = None

        def get_move(self, perspective, leader_move):
            return self.move


@dataclass
class Report:
    hands: int = 0
    decisions: int = 0
    disagreements: list[str] = field(default_factory=list)


class _Hand:
    """One hand in every engine at once."""

    def __init__(self, engine, shuffled, engines: tuple[str, ...]) -> None:
        self.engine = engine
        self.bots = (_Replay("seat 0"), _Replay("seat 1"))  # seat 0: the package's first leader
        h1, h2, talon = engine.hand_generator.generateHands(shuffled)
        self.gs = sg.GameState(
            leader=sg.BotState(implementation=self.bots[0], hand=h1),
            follower=sg.BotState(implementation=self.bots[1], hand=h2),
            talon=talon,
            previous=None,
        )
        self.deck = our_deck(shuffled.get_cards())
        self.ours = {"reference": deal_from_deck(self.deck, dealer=1, rules=RULES)}
        if "batched" in engines:
            from sixtysix_env.batched.lane import BatchedLane

            self.ours["batched"] = BatchedLane.deal(self.deck, dealer=1, rules=RULES)
        self.moves: list[int] = []

    def seat_of(self, bot_state) -> int:
        return self.bots.index(bot_state.implementation)

    def compare(self, theirs: set[int], report: Report) -> None:
        report.decisions += 1
        for name, hand in self.ours.items():
            mask = hand.legal_mask()
            ours = {a for a in range(34) if mask >> a & 1}
            if ours != theirs:
                self.disagree(report, f"legal moves ({name})", ours, theirs)

    def disagree(self, report: Report, what: str, ours, theirs) -> None:
        def words(x):
            return sorted(action_name(a) for a in x) if isinstance(x, set) else x

        report.disagreements.append(
            f"{what}: ours {words(ours)}, the package's {words(theirs)}; deck "
            f"{' '.join(card_code(c) for c in self.deck)}, moves "
            f"{' '.join(action_name(a) for a in self.moves)}"
        )

    def apply(self, action: int) -> None:
        self.moves.append(action)
        for name in self.ours:
            self.ours[name] = self.ours[name].apply(action)


def play_hand(engine, shuffled, rng: random.Random, engines, report: Report) -> None:
    """Deal the package's shuffled deck everywhere and play it out with random moves."""
    h = _Hand(engine, shuffled, engines)
    validator = engine.move_validator
    winner = None
    while winner is None:
        gs = h.gs
        leads = {our_action(m) for m in validator.get_legal_leader_moves(engine, gs)}
        h.compare(leads, report)
        ref = h.ours["reference"]
        if ref.current_player() != h.seat_of(gs.leader):
            h.disagree(report, "the seat to lead", ref.current_player(), h.seat_of(gs.leader))
            return
        lead = rng.choice(ref.legal_actions())
        move = their_move(lead, _trump(h))
        h.apply(lead)
        if lead != EXCHANGE:
            follows = {our_action(m) for m in validator.get_legal_follower_moves(engine, gs, move)}
            h.compare(follows, report)
            follow = rng.choice(h.ours["reference"].legal_actions())
            gs.follower.implementation.move = their_move(follow, _trump(h))
            h.apply(follow)
        h.gs = engine.trick_implementer.play_trick_with_fixed_leader_move(engine, gs, move)
        winner = engine.trick_scorer.declare_winner(h.gs)
        for name, hand in h.ours.items():
            if hand.result is None and winner is not None:
                h.disagree(report, f"the end ({name})", "the hand goes on", "the hand is over")
                return
            if hand.result is not None and winner is None:
                h.disagree(report, f"the end ({name})", hand.result.reason, "the hand goes on")
                return
    theirs = (h.seat_of(winner[0]), winner[1])
    for name, hand in h.ours.items():
        ours = (hand.result.winner, hand.result.game_points)
        if ours != theirs:
            h.disagree(report, f"the winner and game points ({name})", ours, theirs)
    report.hands += 1


def referee(
    hands: int, seed: int = 0, engines=("reference", "batched"), show: int = 5, progress: int = 0
) -> Report:
    """Play ``hands`` hands (deal ``i`` from ``random.Random(f"...:{seed}:{i}")``); every
    ``progress`` hands (0: never) a line on stderr says how far it is."""
    t0 = time.perf_counter()
    require_schnapsen()
    engine = sg.SchnapsenGamePlayEngine()
    report = Report()
    deck = engine.deck_generator.get_initial_deck()
    for i in range(hands):
        rng = random.Random(f"sixtysix-schnapsen-referee:{seed}:{i}")
        shuffled = engine.deck_generator.shuffle_deck(deck, rng)
        play_hand(engine, shuffled, rng, tuple(engines), report)
        if len(report.disagreements) >= show:
            break
        if progress and (i + 1) % progress == 0:
            wall = time.perf_counter() - t0
            print(f"{i + 1:,} hands, {report.decisions:,} decisions, "
                  f"{len(report.disagreements)} disagreements, {wall:.0f} s",
                  file=sys.stderr, flush=True)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python tools/schnapsen_referee.py",
        description="Compare the schnapsen-vu rules with the schnapsen package's engine.",
    )
    ap.add_argument("--hands", type=int, default=1000, help="hands to play (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--engines", nargs="+", default=["reference", "batched"],
                    choices=["reference", "batched"], help="our engines to compare")
    ap.add_argument("--show", type=int, default=5, help="stop after this many disagreements")
    ap.add_argument("--progress", type=int, default=0,
                    help="a progress line on stderr every this many hands (default: none)")
    args = ap.parse_args(argv)
    if args.hands < 1:
        ap.error(f"--hands must be >= 1, got {args.hands}")
    if sg is None:
        print(MISSING, file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    report = referee(args.hands, args.seed, args.engines, args.show, args.progress)
    wall = time.perf_counter() - t0
    print(f"command: python tools/schnapsen_referee.py {' '.join(argv or sys.argv[1:])}")
    print(f"engines: the schnapsen package's SchnapsenGamePlayEngine vs {', '.join(args.engines)}")
    print(f"hands checked: {report.hands:,}")
    print(f"decisions compared: {report.decisions:,}")
    print(f"disagreements: {len(report.disagreements)}")
    for d in report.disagreements:
        print(f"  {d}")
    print(f"time: {wall:.1f} s ({report.hands / wall:,.0f} hands/s)")
    return 1 if report.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
