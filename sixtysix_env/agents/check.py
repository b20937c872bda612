"""The compiled ``heuristic`` against :class:`HeuristicAgent`, the agent it compiles.

:func:`compare_heuristic` plays hands on the batched engine and the reference
engine side by side, half of the moves the heuristic's and half random, and
at every decision compares the compiled heuristic's move with the agent's.
The tests run it on 10,000 hands per preset; ``python -m
sixtysix_env.agents.check --hands 1000000`` runs millions. (The engines
themselves are compared by :mod:`sixtysix_env.batched.check`.)
"""

from __future__ import annotations

import random
import time

import numpy as np

from ..batched.check import check_parser, mismatch
from ..batched.engine import BatchedHands
from ..game.engine import deal_from_deck, random_deck
from ..game.rules import make_rules
from ..game.view import player_view
from .heuristic import HeuristicAgent


def compare_heuristic(hands: int, rules="altmisalti", seed: int = 0, lanes: int = 512,
                      per_trick: int = 4) -> int:
    """The compiled heuristic against :class:`HeuristicAgent` at every decision of ``hands``
    hands whose moves are the heuristic's or random (half and half, so that the positions are
    both the heuristic's own and others); returns the decisions compared."""
    agent = HeuristicAgent(likely_points_per_trick=per_trick)
    cfg = make_rules(rules)
    rng = random.Random(f"sixtysix-batched-heuristic:{seed}:{cfg.name}")
    decisions = done = 0
    while done < hands:
        k = min(lanes, hands - done)
        done += k
        decks = [random_deck(rng, cfg) for _ in range(k)]
        dealers = [rng.randrange(2) for _ in range(k)]
        states = [deal_from_deck(d, dealer=e, rules=cfg) for d, e in zip(decks, dealers)]
        moves: list[list[int]] = [[] for _ in range(k)]
        batch = BatchedHands(k, cfg)
        batch.deal(None, np.array(decks), np.array(dealers))
        active = list(range(k))
        while active:
            lanes_arr = np.array(active, np.int64)
            seats = batch.to_move(lanes_arr)
            got = batch.heuristic_actions(lanes_arr, seats, per_trick)
            actions = []
            for j, i in enumerate(active):
                want = agent.act(player_view(states[i], int(seats[j])), rng)
                if int(got[j]) != want:
                    raise mismatch("the heuristic's move", decks[i], dealers[i], moves[i],
                                f"compiled {int(got[j])}, HeuristicAgent {want}")
                legal = states[i].legal_actions()
                a = want if rng.random() < 0.5 else legal[rng.randrange(len(legal))]
                actions.append(a)
                moves[i].append(a)
                states[i] = states[i].apply(a)
            decisions += len(active)
            batch.apply(lanes_arr, np.array(actions))
            active = [i for i in active if states[i].result is None]
    return decisions


def main(argv: list[str] | None = None) -> None:
    args = check_parser(
        "python -m sixtysix_env.agents.check",
        "Play hands on the batched and the reference engine and compare the compiled "
        "heuristic's move with HeuristicAgent's at every decision.").parse_args(argv)
    for name in args.rules:
        t0 = time.perf_counter()
        n = compare_heuristic(args.hands, name, args.seed)
        print(f"{name}: the compiled heuristic, {args.hands:,} hands, {n:,} decisions, the same "
              f"moves as HeuristicAgent ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
