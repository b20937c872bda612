"""Where a match player plays differently: hands dealt at chosen match scores, two agents.

An agent (the studied one, say a network trained with ``match_play``) plays an
opponent (``sixtysix-ppo-v4`` by default) on paired deals dealt at each of a
few match scores, the agent's score first (``5-6``: the agent has 5 game
points of the match, the opponent 6). On every one of the agent's decisions
the opponent is also asked what *it* would play in the agent's place (the
same view), so both players' choices are counted on the same positions:

- ``close``: of the positions where closing the stock was legal, the share
  where the agent closed, and the share where the opponent would have;
- ``agree``: the share of the agent's decisions where the opponent would have
  chosen the same move;
- the hand's outcome from the agent's side: game points per hand with a 95%
  interval, hands won, hands lost by 3, and the chance to win the match after
  the hand (the match equity table of ``training/common/match_equity.py``,
  two equal players from the new score on), which is what a match player
  should raise.

    OPENBLAS_NUM_THREADS=1 python -m research.match_scores runs/match/policy.npz \\
        --opponent sixtysix-ppo-v4 --deals 500 --seed 57001 --scores 0-0 5-6 6-5 6-6 0-6 6-0

The deals depend on ``--seed`` and the score only; the agent in each seat of
each deal. Figures are in ``research/notes/presets.md``.
"""

from __future__ import annotations

import argparse
import random
from concurrent.futures import ProcessPoolExecutor

from sixtysix_env.agents import make_agent
from sixtysix_env.game.actions import CLOSE
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import player_view
from training.common.match_equity import MatchEquity

from .hands import mean_interval, opponent_moves

DEFAULT_SCORES = ("0-0", "5-6", "6-5", "6-6", "0-6", "6-0")


def parse_score(text: str, target: int) -> tuple[int, int]:
    """``"5-6"`` as (5, 6); each a whole number below the match target."""
    try:
        mine, theirs = (int(x) for x in text.split("-"))
    except ValueError:
        raise ValueError(f"a score is MINE-THEIRS, like 5-6; got {text!r}") from None
    if not (0 <= mine < target and 0 <= theirs < target):
        raise ValueError(f"score {text!r}: each side must be 0 to {target - 1} (a match to {target})")
    return mine, theirs


def _hand(deal: int, seat: int, score: tuple[int, int], cfg, agent, opponent, seed: int) -> dict:
    """One hand at ``score`` (the agent's first) with the agent in ``seat``."""
    rng = random.Random(f"match_scores:{seed}:{score}:{deal}")
    seats = score if seat == 0 else score[::-1]
    state = new_hand(rng, rng.randrange(2), cfg, match_score=seats)
    rng_me = random.Random(f"me:{seed}:{score}:{deal}:{seat}")
    rng_opp = random.Random(f"opp:{seed}:{score}:{deal}:{seat}")
    rng_ask = random.Random(f"ask:{seed}:{score}:{deal}:{seat}")
    row = {"decisions": 0, "agree": 0, "close_legal": 0, "closed": 0, "would_close": 0}
    state = opponent_moves(state, seat, opponent, rng_opp)
    while state.result is None:
        view = player_view(state, seat)
        a = agent.act(view, rng_me)
        b = opponent.act(view, rng_ask)
        row["decisions"] += 1
        row["agree"] += a == b
        if view.legal_mask >> CLOSE & 1:
            row["close_legal"] += 1
            row["closed"] += a == CLOSE
            row["would_close"] += b == CLOSE
        state = opponent_moves(state.apply(a), seat, opponent, rng_opp)
    row["gp"] = state.result.returns()[seat]
    return row


def _chunk(args: tuple) -> list[dict]:
    spec, opponent_spec, rules, seed, score, deals = args
    cfg = make_rules(rules)
    agent, opponent = make_agent(spec), make_agent(opponent_spec)
    return [
        {"deal": d, "seat": s, **_hand(d, s, score, cfg, agent, opponent, seed)}
        for d in deals
        for s in (0, 1)
    ]


def measure(
    spec: str,
    opponent: str = "sixtysix-ppo-v4",
    deals: int = 500,
    seed: int = 57001,
    scores: tuple[str, ...] = DEFAULT_SCORES,
    rules: str = "altmisalti",
    workers: int = 1,
) -> list[dict]:
    """One summary per score: the agent's and the opponent's choices on the agent's
    positions, and the hands' outcomes from the agent's side."""
    if deals < 2:
        raise ValueError(f"deals must be at least 2, got {deals}")
    cfg = make_rules(rules)
    equity = MatchEquity(cfg.match_target)
    out = []
    for text in scores:
        score = parse_score(text, cfg.match_target)
        n_chunks = max(1, min(deals, workers * 4))
        jobs = [(spec, opponent, rules, seed, score, list(range(deals))[i::n_chunks])
                for i in range(n_chunks)]
        if workers > 1:
            with ProcessPoolExecutor(workers) as pool:
                rows = [r for part in pool.map(_chunk, jobs) for r in part]
        else:
            rows = [r for job in jobs for r in _chunk(job)]
        rows.sort(key=lambda r: (r["deal"], r["seat"]))
        per_deal = [(rows[i]["gp"] + rows[i + 1]["gp"]) / 2 for i in range(0, len(rows), 2)]
        after = [
            float(equity.equity(score[0] + max(r["gp"], 0), score[1] + max(-r["gp"], 0)))
            for r in rows
        ]
        tot = {k: sum(r[k] for r in rows) for k in ("decisions", "agree", "close_legal",
                                                     "closed", "would_close")}
        legal = max(tot["close_legal"], 1)
        out.append({
            "score": text,
            "hands": len(rows),
            "gp": mean_interval(per_deal),
            "won": sum(r["gp"] > 0 for r in rows) / len(rows),
            "lost_3": sum(r["gp"] == -3 for r in rows) / len(rows),
            "equity_before": float(equity.equity(*score)),
            "equity_after": sum(after) / len(after),
            "agree": tot["agree"] / max(tot["decisions"], 1),
            "close_legal_per_hand": tot["close_legal"] / len(rows),
            "closes": tot["closed"] / legal,
            "opponent_would_close": tot["would_close"] / legal,
        })
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent", help="agent name or policy file to study")
    ap.add_argument("--opponent", default="sixtysix-ppo-v4")
    ap.add_argument("--deals", type=int, default=500, help="paired deals per score")
    ap.add_argument("--seed", type=int, default=57001)
    ap.add_argument("--scores", nargs="+", default=list(DEFAULT_SCORES),
                    help="match scores, the agent's first (default: %(default)s)")
    ap.add_argument("--rules", default="altmisalti")
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args(argv)
    rows = measure(a.agent, a.opponent, a.deals, a.seed, tuple(a.scores), a.rules, a.workers)
    print(f"{a.agent} against {a.opponent}, {a.deals} paired deals per score, seed {a.seed}, "
          f"{a.rules}")
    print("| score | gp/hand (95% CI) | hands won | lost by 3 | match chance before -> after "
          "| same move as the opponent | closes / opponent would (of legal) |")
    print("|---|---|---:|---:|---|---:|---|")
    for r in rows:
        m, lo, hi = r["gp"]
        print(f"| {r['score']} | {m:+.3f} [{lo:+.3f}, {hi:+.3f}] | {r['won']:.1%} | "
              f"{r['lost_3']:.1%} | {r['equity_before']:.3f} -> {r['equity_after']:.3f} | "
              f"{r['agree']:.1%} | {r['closes']:.1%} / {r['opponent_would_close']:.1%} "
              f"({r['close_legal_per_hand']:.2f} a hand) |")


if __name__ == "__main__":
    main()
