"""How much could reading the opponent give at most? The expert told the opponent's cards.

Plays ``--deals`` paired deals (each twice, seats swapped) of three searchers
against ``--opponent`` on the same deals: ``expert`` (uniform deals),
``expert:inference=MODEL`` (deals from the belief) and an expert that is told
the opponent's hidden cards (its deals differ only in the stock's order: the
most any belief could give). Prints each one's game points per hand and the
paired differences with 95% intervals.

    python research/inference_ceiling.py --opponent heuristic --model heuristic --deals 300 --seed 8201
"""

from __future__ import annotations

import argparse
import math
import random

from sixtysix_env.agents import make_agent
from sixtysix_env.agents.expert import ExpertAgent
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import determinize, player_view


class ToldExpert(ExpertAgent):
    """The expert, its deals drawn with the opponent's true hidden cards."""

    hidden = 0  # set before each decision by the game loop

    def _dealer(self, view, rng):
        told = self.hidden & ~view.opponent_known
        return lambda r: determinize(view, r, opponent_hidden=told)


def play(agent, opponent, deal: int, seat: int, seed: int) -> int:
    """The searcher's game points in deal ``deal`` from ``seat``."""
    s = new_hand(seed * 100_000 + deal, dealer=deal % 2)
    rng = random.Random(seed * 7 + deal * 2 + seat)
    while s.result is None:
        p = s.current_player()
        v = player_view(s, p)
        if p == seat:
            if isinstance(agent, ToldExpert):
                agent.hidden = s.hand(1 - p)
            a = agent.act(v, rng)
        else:
            a = opponent.act(v, rng)
        s = s.apply(a)
    return s.result.returns()[seat]


def interval(xs: list[float]) -> str:
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = 1.96 * sd / math.sqrt(n)
    return f"{m:+.3f} [{m - h:+.3f}, {m + h:+.3f}]"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--model", default="heuristic")
    ap.add_argument("--options", default="",
                    help="more options of the reading expert, e.g. inference_worlds=1024")
    ap.add_argument("--no-told", action="store_true", help="leave out the expert told the cards")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=8201)
    a = ap.parse_args(argv)
    reading = f"expert:inference={a.model}" + (f",{a.options}" if a.options else "")
    searchers = {"expert": make_agent("expert"), reading: make_agent(reading)}
    if not a.no_told:
        searchers["expert told the cards"] = ToldExpert()
    opponent = make_agent(a.opponent)
    per_deal: dict[str, list[float]] = {name: [] for name in searchers}
    for d in range(a.deals):
        for name, agent in searchers.items():
            per_deal[name].append(
                (play(agent, opponent, d, 0, a.seed) + play(agent, opponent, d, 1, a.seed)) / 2
            )
    print(f"against {a.opponent}, {a.deals} paired deals (seed {a.seed}), game points per hand:")
    for name, xs in per_deal.items():
        print(f"  {name:<32} {interval(xs)}")
    base = per_deal["expert"]
    for name, xs in per_deal.items():
        if name != "expert":
            print(f"  {name} minus expert: {interval([x - b for x, b in zip(xs, base)])}")


if __name__ == "__main__":
    main()
