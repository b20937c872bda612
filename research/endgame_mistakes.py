"""How much agents lose where the game is solved: decisions with the stock exhausted.

Once the stock is drawn out both hands are known (each player has seen every
other card), so the exact solver (:class:`sixtysix_env.agents.solver.Solver`)
gives every legal move's value in game points. This script plays an agent
against an opponent (the heuristic by default) and, at each of the agent's
decisions with the stock exhausted and more than one legal move, asks the
solver whether the move played was a best one and how much it gave away.

    python -m research.endgame_mistakes heuristic sixtysix-ppo-v2 --hands 400

It prints, per agent: game points per hand, the decisions checked, the
mistakes among them, the game points they lost per hand (the sum of each
mistake's shortfall from the best move's value, over all hands), and the
solver's time per position. The deals depend on ``--seed`` only, and the
agent plays both seats (alternating with the hand), so two agents meet the
same deals. Figures are in ``research/notes/learning.md``.
"""

from __future__ import annotations

import argparse
import random
import time

from sixtysix_env.agents import make_agent
from sixtysix_env.agents.solver import Solver
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import player_view

from .hands import opponent_moves


def measure(spec: str, opponent: str, hands: int, seed: int, rules: str) -> dict:
    """Play ``hands`` hands of ``spec`` against ``opponent``; the exhausted-stock figures."""
    cfg = make_rules(rules)
    me, opp = make_agent(spec), make_agent(opponent)
    solver = Solver(cfg)
    decisions = mistakes = 0
    lost = solve_s = 0.0
    gp = 0
    for h in range(hands):
        rng = random.Random(f"endgame:{seed}:{h}")
        seat = h % 2
        state = new_hand(rng, rng.randrange(2), cfg)
        rng_me, rng_opp = random.Random(rng.random()), random.Random(rng.random())
        state = opponent_moves(state, seat, opp, rng_opp)
        while state.result is None:
            view = player_view(state, seat)
            a = me.act(view, rng_me)
            if state.is_exhausted() and view.legal_mask & (view.legal_mask - 1):
                t0 = time.perf_counter()
                values = solver.action_values(state)
                solve_s += time.perf_counter() - t0
                decisions += 1
                best = max(values.values())
                if values[a] < best:
                    mistakes += 1
                    lost += best - values[a]
            state = opponent_moves(state.apply(a), seat, opp, rng_opp)
        gp += state.result.returns()[seat]
    return {
        "agent": spec,
        "hands": hands,
        "gp_per_hand": gp / hands,
        "decisions": decisions,
        "mistakes": mistakes,
        "gp_lost_per_hand": lost / hands,
        "solver_ms": 1000 * solve_s / max(decisions, 1),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agents", nargs="+", help="agent names or policy files to measure")
    ap.add_argument("--opponent", default="heuristic", help="who they play (default heuristic)")
    ap.add_argument("--hands", type=int, default=400, help="hands per agent (default 400)")
    ap.add_argument("--seed", type=int, default=77, help="seed of the deals (default 77)")
    ap.add_argument("--rules", default="altmisalti", help="rule preset (default altmisalti)")
    args = ap.parse_args(argv)
    if args.hands < 1:
        ap.error(f"--hands must be at least 1 (got {args.hands})")
    for spec in args.agents:
        r = measure(spec, args.opponent, args.hands, args.seed, args.rules)
        share = r["mistakes"] / max(r["decisions"], 1)
        print(
            f"{spec}: {r['hands']} hands vs {args.opponent}, gp/hand {r['gp_per_hand']:+.3f}; "
            f"exhausted-stock decisions {r['decisions']}, mistakes {r['mistakes']} ({share:.1%}), "
            f"gp lost/hand {r['gp_lost_per_hand']:.3f}; solver {r['solver_ms']:.2f} ms a position"
        )


if __name__ == "__main__":
    main()
