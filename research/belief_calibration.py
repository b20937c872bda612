"""How well beliefs (sixtysix_env.agents.beliefs) place the hidden cards, against the uniform draw.

Plays ``--hands`` hands in which both seats are ``--players`` (an agent's name),
and at every decision (from the seat to move's view, once the opponent has made a
move) asks where each unseen card lies: the belief under ``--model`` against the
uniform draw that ``determinize`` makes. Prints the mean log-loss of the true
locations (per unseen card the opponent may hold: in its hand or in the stock)
for both, and a reliability table of the belief's probabilities.

    python research/belief_calibration.py --players heuristic --model heuristic --hands 300 --seed 7001
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np

from sixtysix_env.agents import beliefs
from sixtysix_env.agents.models import opponent_model
from sixtysix_env.agents.registry import make_agent
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import hidden_places, player_view

BINS = (0.0, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0 + 1e-9)


def _log_loss(p: float, y: int) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return -math.log(p if y else 1 - p)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", default="heuristic", help="the agent both seats are")
    ap.add_argument("--model", default="heuristic", help="the opponent model read")
    ap.add_argument("--softness", type=float, default=0.1)
    ap.add_argument("--worlds", type=int, default=256)
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7001)
    ap.add_argument("--rules", default="altmisalti")
    a = ap.parse_args(argv)
    player = make_agent(a.players)
    model = opponent_model(a.model, a.softness)
    rng = random.Random(a.seed)
    pairs: list[tuple[float, float, int]] = []  # (belief p, uniform p, truth)
    decisions = 0
    start = time.perf_counter()
    for i in range(a.hands):
        s = new_hand(a.seed * 100_000 + i, dealer=i % 2, rules=a.rules)
        while s.result is None:
            seat = s.current_player()
            v = player_view(s, seat)
            if beliefs.history(v).opponent_moves and not v.is_exhausted:
                b = beliefs.infer(v, model, rng, worlds=a.worlds)
                p = b.card_probabilities()
                candidates, need = hidden_places(v)
                opp_hand = s.hand(1 - seat)
                for c in candidates:
                    pairs.append((float(p[c]), need / len(candidates), opp_hand >> c & 1))
                decisions += 1
            s = s.apply(player.act(v, rng))
    arr = np.array(pairs)
    model_loss = np.mean([_log_loss(p, int(y)) for p, _, y in arr])
    uniform_loss = np.mean([_log_loss(u, int(y)) for _, u, y in arr])
    secs = time.perf_counter() - start
    print(
        f"players {a.players}, model {a.model} (softness {a.softness}), {a.worlds} worlds, "
        f"rules {a.rules}, {a.hands} hands, seed {a.seed}: {decisions} decisions, "
        f"{len(arr)} card placements, {secs:.0f} s"
    )
    print(f"log-loss per card: belief {model_loss:.4f}, uniform {uniform_loss:.4f} "
          f"({100 * (1 - model_loss / uniform_loss):+.1f}% less)")
    print()
    print("| belief's probability | cards | mean predicted | share in the opponent's hand |")
    print("|---|---|---|---|")
    for lo, hi in zip(BINS, BINS[1:]):
        sel = arr[(arr[:, 0] >= lo) & (arr[:, 0] < hi)]
        if len(sel):
            print(f"| {lo:.2f}-{min(hi, 1):.2f} | {len(sel)} | {sel[:, 0].mean():.3f} | "
                  f"{sel[:, 2].mean():.3f} |")


if __name__ == "__main__":
    main()
