"""Where a network loses to the search bot: the same games with the search's moves in one phase.

An agent (a policy, say ``sixtysix-ppo-v4``) plays an opponent (``expert`` by
default) on paired deals: each deal twice, the agent in each seat. Beside it,
on the very same deals and random streams, play *hybrids*: the agent with a
second agent (``expert`` by default, the *helper*) choosing its moves in one
part of the hand only, the agent everywhere else:

- ``open-lead``: the stock is open and the agent leads the trick (this is
  where it exchanges the trump 9, declares marriages and closes the stock);
- ``open-follow``: the stock is open and the agent answers a lead;
- ``strict``: the stock is closed or drawn out (follow suit, head the trick),
  or one of its two halves: ``closed`` (somebody closed the stock) and
  ``exhausted`` (the stock was drawn out; both hands are known);
- ``all``: the helper everywhere (the helper itself against the opponent);
- ``close`` and ``marriage``: one kind of choice, wherever it is legal: the
  helper's move is played when the agent's or the helper's move is that kind
  (closing the stock; declaring a marriage), so the agent keeps its own
  moves otherwise.

A hybrid's game is the agent's own game until the helper first chooses a
different move, so the difference between a hybrid and the agent, deal by
deal, is what the agent's moves in that phase cost against this opponent
(a positive figure: the helper does better there). Its interval comes from
those per-deal differences, which are zero wherever nothing changed, so it is
much narrower than two separate evaluations' would be.

    OPENBLAS_NUM_THREADS=1 python -m research.loss_by_phase sixtysix-ppo-v4 --deals 1000 --seed 199 --workers 2

It prints the agent's game points per hand against the opponent, then for
each hybrid its game points per hand, the difference from the agent with a
95% interval, the decisions per hand that fell in that phase (in the hybrid's
own games), and how often the helper's move was another one there. The deals
depend on ``--seed`` only. The opponent and the helper draw from their own
random streams, seeded per game, the same for the agent and every hybrid.
Figures are in ``research/notes/learning.md``.
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor

from sixtysix_env.agents import make_agent
from sixtysix_env.game.actions import CLOSE, FIRST_MARRIAGE
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import PlayerView, player_view

from .hands import mean_interval, opponent_moves

#: The parts of the hand a hybrid can hand to the helper, by the position alone.
VIEW_PHASES = {
    "open-lead": lambda v: not v.is_strict and v.lead_card is None,
    "open-follow": lambda v: not v.is_strict and v.lead_card is not None,
    "strict": lambda v: v.is_strict,
    "closed": lambda v: v.is_closed,
    "exhausted": lambda v: v.is_exhausted,
    "all": lambda v: True,
}
#: The kinds of choice a hybrid can hand to the helper: these actions, where one is legal.
ACTION_PHASES = {
    "close": frozenset({CLOSE}),
    "marriage": frozenset(range(FIRST_MARRIAGE, FIRST_MARRIAGE + 8)),
}
PHASES = (*VIEW_PHASES, *ACTION_PHASES)
DEFAULT_PHASES = ("open-lead", "open-follow", "strict")


def phase_of(view: PlayerView) -> str:
    """Which of the three default parts of the hand a decision belongs to."""
    if view.is_strict:
        return "strict"
    return "open-lead" if view.lead_card is None else "open-follow"


def _choose(variant: str, view: PlayerView, a: int, helper, rng_help) -> tuple[int, bool]:
    """The move a hybrid plays where the agent chose ``a``, and whether the decision is in
    the variant's phase (for a kind of choice: whether that kind was legal)."""
    if variant in ACTION_PHASES:
        kind = ACTION_PHASES[variant]
        if not any(view.legal_mask >> x & 1 for x in kind):
            return a, False
        h = helper.act(view, rng_help)
        return (h if a in kind or h in kind else a), True
    if not VIEW_PHASES[variant](view):
        return a, False
    return helper.act(view, rng_help), True


def _play(deal: int, seat: int, variant: str, cfg, agent, helper, opponent, seed: int) -> dict:
    """One hand of ``variant`` ("agent" or a phase) in ``seat`` against the opponent."""
    rng = random.Random(f"loss_by_phase:{seed}:{deal}")
    state = new_hand(rng, rng.randrange(2), cfg)
    # The same streams for the agent and every hybrid on this deal and seat.
    rng_me = random.Random(f"me:{seed}:{deal}:{seat}")
    rng_help = random.Random(f"help:{seed}:{deal}:{seat}")
    rng_opp = random.Random(f"opp:{seed}:{deal}:{seat}")
    decisions = in_phase = changed = 0
    state = opponent_moves(state, seat, opponent, rng_opp)
    while state.result is None:
        view = player_view(state, seat)
        decisions += 1
        a = agent.act(view, rng_me)
        if variant != "agent":
            played, counted = _choose(variant, view, a, helper, rng_help)
            in_phase += counted
            changed += played != a
            a = played
        state = opponent_moves(state.apply(a), seat, opponent, rng_opp)
    return {
        "gp": state.result.returns()[seat],
        "decisions": decisions,
        "in_phase": in_phase,
        "changed": changed,
    }


def _chunk(args: tuple) -> list[dict]:
    spec, helper_spec, opponent_spec, rules, seed, deals, variants = args
    cfg = make_rules(rules)
    agent, helper, opponent = make_agent(spec), make_agent(helper_spec), make_agent(opponent_spec)
    out = []
    for d in deals:
        row = {"deal": d}
        for v in variants:
            games = [_play(d, s, v, cfg, agent, helper, opponent, seed) for s in (0, 1)]
            row[v] = {k: sum(g[k] for g in games) for k in games[0]}
        out.append(row)
    return out


def measure(
    spec: str,
    deals: int,
    seed: int,
    helper: str = "expert",
    opponent: str = "expert",
    phases: tuple[str, ...] = DEFAULT_PHASES,
    rules: str = "altmisalti",
    workers: int = 1,
) -> dict:
    """The agent's and each hybrid's figures over ``deals`` paired deals."""
    for p in phases:
        if p not in PHASES:
            raise ValueError(f"unknown phase {p!r}; allowed: {', '.join(PHASES)}")
    if deals < 2:
        raise ValueError(f"deals must be at least 2, got {deals}")
    variants = ("agent", *phases)
    n_chunks = max(1, min(deals, workers * 8))
    chunks = [list(range(deals))[i::n_chunks] for i in range(n_chunks)]
    jobs = [(spec, helper, opponent, rules, seed, c, variants) for c in chunks]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            rows = [r for part in pool.map(_chunk, jobs) for r in part]
    else:
        rows = [r for job in jobs for r in _chunk(job)]
    rows.sort(key=lambda r: r["deal"])
    hands = 2 * deals
    base = [r["agent"]["gp"] / 2 for r in rows]
    out = {"agent": spec, "helper": helper, "opponent": opponent, "deals": deals, "seed": seed}
    out["agent_gp"] = mean_interval(base)
    agent_decisions = sum(r["agent"]["decisions"] for r in rows)
    for v in phases:
        gp = [r[v]["gp"] / 2 for r in rows]
        diff = [g - b for g, b in zip(gp, base)]
        # Counted in the hybrid's own games: the decisions the helper was asked about.
        in_phase = sum(r[v]["in_phase"] for r in rows)
        out[v] = {
            "gp": mean_interval(gp),
            "gain": mean_interval(diff),
            "deals_changed": sum(d != 0 for d in diff),
            "decisions_per_hand": in_phase / hands,
            "changed_share": sum(r[v]["changed"] for r in rows) / max(in_phase, 1),
        }
    out["decisions_per_hand"] = agent_decisions / hands
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent", help="agent name or policy file to measure")
    ap.add_argument("--helper", default="expert", help="who chooses in the phase (default expert)")
    ap.add_argument("--opponent", default="expert", help="who they play (default expert)")
    ap.add_argument(
        "--phases",
        nargs="+",
        default=list(DEFAULT_PHASES),
        choices=PHASES,
        help=f"the hybrids to play (default: {' '.join(DEFAULT_PHASES)})",
    )
    ap.add_argument("--deals", type=int, default=200, help="paired deals (default 200)")
    ap.add_argument("--seed", type=int, default=77, help="seed of the deals (default 77)")
    ap.add_argument("--rules", default="altmisalti", help="rules preset (default altmisalti)")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    r = measure(
        args.agent,
        args.deals,
        args.seed,
        helper=args.helper,
        opponent=args.opponent,
        phases=tuple(args.phases),
        rules=args.rules,
        workers=args.workers,
    )
    m, lo, hi = r["agent_gp"]
    print(
        f"{r['agent']} vs {r['opponent']}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}] gp/hand over "
        f"{r['deals']} paired deals (seed {r['seed']}), {r['decisions_per_hand']:.2f} decisions "
        f"per hand"
    )
    print(f"with {r['helper']} choosing in one phase:")
    print(
        "  phase         gp/hand   gain over the agent [95%]     decisions/hand"
        "  helper differs  deals changed"
    )
    for v in args.phases:
        p = r[v]
        g, glo, ghi = p["gain"]
        print(
            f"  {v:<12} {p['gp'][0]:+.3f}    {g:+.3f} [{glo:+.3f}, {ghi:+.3f}]"
            f"       {p['decisions_per_hand']:5.2f}         {100 * p['changed_share']:5.1f}%"
            f"        {p['deals_changed']}"
        )
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
