"""How often the expert repeats its own choice with another sampling seed (issue 12).

    python -m research.expert_self_agreement [--hands 200] [--teacher expert]

The learner (``sixtysix-ppo``) plays hands against the heuristic; at each of
its decisions with a choice, the teacher is asked twice with different random
generators. The share of equal answers bounds how well any policy can match
the teacher's hard labels (research/notes/strength.md). About 2.5 minutes for 200 hands.

numpy's BLAS runs on one thread (``OPENBLAS_NUM_THREADS=1`` and the like, set before
numpy is imported); it prints how long it took as it ends, on stderr.
"""

from __future__ import annotations

import os
import sys
import time

# numpy's BLAS on one thread before numpy is imported (sixtysix_env.util.scripts says why).
_STARTED = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sixtysix_env.util.scripts import one_blas_thread, say_how_long_at_exit

one_blas_thread()

import argparse
import random

from sixtysix_env.agents import make_agent
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import player_view


def self_agreement(hands: int, teacher: str, learner: str = "sixtysix-ppo") -> tuple[int, int]:
    """(equal answers, decisions asked) over ``hands`` hands."""
    cfg = make_rules("altmisalti")
    me, opp, ex = make_agent(learner), make_agent("heuristic"), make_agent(teacher)
    n = same = 0
    for h in range(hands):
        rng = random.Random(f"self-agreement:{h}")
        s = new_hand(rng, h % 2, cfg)
        while s.result is None:
            p = s.current_player()
            v = player_view(s, p)
            if p == h % 2 and v.legal_mask & (v.legal_mask - 1):
                a1 = ex.act(v, random.Random(f"a:{h}:{n}"))
                a2 = ex.act(v, random.Random(f"b:{h}:{n}"))
                n += 1
                same += a1 == a2
            s = s.apply((me if p == h % 2 else opp).act(v, rng))
    return same, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--teacher", default="expert")
    args = parser.parse_args()
    same, n = self_agreement(args.hands, args.teacher)
    print(f"{args.teacher} vs itself (other sampling seed): {same}/{n} = {same / n:.3f}")


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    main()
