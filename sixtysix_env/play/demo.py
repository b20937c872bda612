"""Deal a hand and play it out between two agents (random by default), printing each trick.

    sixtysix demo --seed 7
    sixtysix demo --seed 7 --rules santase
    sixtysix demo --agents expert heuristic
"""

from __future__ import annotations

import argparse
import random
import sys

from ..agents import agent_names, make_agent
from ..game.cards import SUIT_NAMES, card_code
from ..game.engine import new_hand
from ..game.events import Trick
from ..game.render import describe_event, hand_text
from ..game.rules import PRESETS
from ..game.view import player_view


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=0, help="deal and play seed (default 0)")
    parser.add_argument("--rules", default="altmisalti", choices=sorted(PRESETS), help="rule preset")
    parser.add_argument("--dealer", type=int, default=1, choices=(0, 1), help="dealing seat")
    parser.add_argument(
        "--agents",
        nargs=2,
        default=("random", "random"),
        metavar=("SEAT0", "SEAT1"),
        help=f"who plays seats 0 and 1: {', '.join(agent_names())} or a policy file "
        "(default: random random)",
    )


def play_demo(
    seed: int = 0,
    rules: str = "altmisalti",
    dealer: int = 1,
    agents: tuple[str, str] = ("random", "random"),
) -> str:
    """The text of one hand between ``agents`` (seat 0, seat 1), each seeing only its view."""
    players = [make_agent(a) for a in agents]
    state = new_hand(seed, dealer=dealer, rules=rules)
    rngs = [random.Random(f"demo:{seed}:{seat}") for seat in (0, 1)]
    out = [
        f"Sixty-Six, rules {rules!r}, seed {seed}; seat 0: {players[0].name}, "
        f"seat 1: {players[1].name}; seat {dealer} deals, seat {1 - dealer} leads.",
        f"Trumps: {SUIT_NAMES[state.trump_suit]} (face-up card {card_code(state.trump_card)})",
        f"Seat 0: {hand_text(state.hand(0))}",
        f"Seat 1: {hand_text(state.hand(1))}",
        "",
    ]
    seen = 0
    while not state.is_terminal():
        seat = state.current_player()
        state = state.apply(players[seat].act(player_view(state, seat), rngs[seat]))
        events = state.events()
        for e in events[seen:]:
            # Tricks start a line; what happens on a lead is indented under them.
            indent = "" if type(e) is Trick else " " * 10
            out.append(indent + describe_event(e))
        seen = len(events)
    res = state.result
    out += [
        "",
        f"Card points: seat 0 {res.card_points[0]}, seat 1 {res.card_points[1]}; "
        f"marriages: {res.marriage_points[0]} / {res.marriage_points[1]}; "
        f"tricks: {res.tricks_won[0]} / {res.tricks_won[1]}",
        "Result: " + res.explain(),
    ]
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    try:
        text = play_demo(args.seed, args.rules, args.dealer, tuple(args.agents))
    except (ValueError, KeyError, OSError) as e:  # an unknown agent, a bad policy file
        print(f"sixtysix demo: {e}", file=sys.stderr)
        return 2
    print(text)
    return 0
