"""Does a network trained at 0-0 lose matches by the match score it never saw in training?

Every shipped network but a match network was trained on single hands, where
the observation's ``my_score`` and ``opp_score`` are always 0: the first
layer's weights on them never received a gradient and kept their random
starting values. In a match those inputs are not 0, so the network's moves
could be disturbed by weights that mean nothing. This plays the network with
the scores hidden from it (its view at 0-0, everything else as it is) against
the network itself, in matches to the preset's target: if the unseen inputs
cost anything, the blind copy wins more than half of them.

    OPENBLAS_NUM_THREADS=1 python -m research.score_blind sixtysix-ppo-v4 --matches 1000 --seed 57010

The figures are in ``research/notes/presets.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import random

from sixtysix_env.agents import make_agent
from sixtysix_env.evaluation import evaluate
from sixtysix_env.game.view import PlayerView


class ScoreBlind:
    """``inner`` playing every position as if the match stood at 0-0."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = f"blind:{inner.name}"

    def act(self, view: PlayerView, rng: random.Random) -> int:
        return self.inner.act(dataclasses.replace(view, match_score=(0, 0)), rng)


def measure(agent: str, matches: int, seed: int, rules: str = "altmisalti",
            workers: int = 1) -> dict:
    """The blind copy against the agent itself: matches won, the Wilson interval, game
    points per hand."""
    inner = make_agent(agent)
    res = evaluate([ScoreBlind(inner), inner], matches=matches, seed=seed, rules=rules,
                   workers=workers)
    (pair,) = res.pairs
    return {"agent": agent, "matches": pair.matches, "won": pair.matches_won_a,
            "rate": pair.match_rate_a, "ci95": pair.match_ci95, "gp": pair.gp_per_hand,
            "gp_ci95": pair.gp_ci95}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("agent", help="an agent name or policy file, e.g. sixtysix-ppo-v4")
    p.add_argument("--matches", type=int, default=1000, help="paired match seeds (two matches each)")
    p.add_argument("--seed", type=int, default=57010)
    p.add_argument("--rules", default="altmisalti")
    p.add_argument("--workers", type=int, default=1)
    a = p.parse_args(argv)
    r = measure(a.agent, a.matches, a.seed, a.rules, a.workers)
    lo, hi = r["ci95"]
    print(f"blind {r['agent']} against {r['agent']}: {r['won']} of {r['matches']} matches "
          f"({100 * r['rate']:.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%]), "
          f"{r['gp']:+.3f} game points per hand")


if __name__ == "__main__":
    main()
