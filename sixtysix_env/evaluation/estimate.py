"""How long an evaluation will take, said before it starts (``sixtysix eval``), the way
``sixtysix benchmark`` says it: each pair plays the run's first paired deal, timed, after
one untimed decision of every agent (a first call may load or compile), and the run's
hands are scaled from it. A run whose games are played in lock-step on the batched engine
(:func:`.runner.batchable`) is timed on a lock-step batch of its first deals instead.

The figure is an estimate: the first deal stands for all of them, and the workers are
taken to share the work evenly on free cores.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..agents import make_agent
from ..game.engine import deal_from_deck
from ..game.rules import make_rules
from ..game.view import player_view
from .blas import one_blas_thread
from .play import HAND, deal_deck, play_paired_deal, play_paired_deals_batched
from .runner import _mode_and_count, _unique_names, batchable

#: Hands in a match to 7 (the mean under the default presets), as the benchmark counts them.
HANDS_PER_MATCH = 6.0
#: Deals per pair played in one timed lock-step batch (after a batch of one, untimed).
BATCH_TIMED = 64


def duration_text(seconds: float) -> str:
    """``40 s``, ``12 min``, ``2.5 h``: rounded as an estimate should be."""
    if seconds < 90:
        return f"{max(5, 5 * round(seconds / 5)):.0f} s"
    if seconds < 120 * 60:
        return f"{round(seconds / 60):.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass
class EvalEstimate:
    """How long an evaluation will take, and what the figure comes from."""

    seconds: float
    #: Hands of the whole run (all pairs, both seats; matches counted in hands).
    hands: float
    pairs: int
    workers: int
    #: Each agent's mean milliseconds per decision in the timed games.
    ms_per_decision: dict[str, float]
    #: Whether the games are played in lock-step on the batched engine.
    batched: bool
    timing_seconds: float

    def describe(self) -> str:
        """One line: the time, and what it comes from."""
        workers = f"{self.workers} worker{'s' if self.workers != 1 else ''}"
        parts = [f"{self.hands:,.0f} hands in {self.pairs} pair{'s' if self.pairs != 1 else ''}"]
        slowest = sorted(self.ms_per_decision.items(), key=lambda kv: -kv[1])
        if slowest:
            more = f" and {len(slowest) - 3} more" if len(slowest) > 3 else ""
            parts.append(", ".join(f"{n} {_ms(ms)} ms" for n, ms in slowest[:3]) + more
                         + " a decision")
        timed = (f"a lock-step batch of up to {BATCH_TIMED} deals per pair" if self.batched
                 else "a paired deal per pair")
        parts.append(f"timed on {timed} in {self.timing_seconds:.1f} s")
        return (f"estimated time: about {duration_text(self.seconds)} with {workers} "
                f"({'; '.join(parts)})")


def _ms(ms: float) -> str:
    return f"{ms:.0f}" if ms >= 10 else f"{ms:.2g}"


def _time_pair(agents: tuple, names: tuple[str, str], pair: int, seed: int, rules,
               count: int, batched: bool, times: tuple[list[float], list[float]]) -> float:
    """Seconds per hand of one pair: its first paired deal one decision at a time, or (in
    lock-step) its first deals after an untimed batch of one."""
    if not batched:
        t = time.perf_counter()
        play_paired_deal(*agents, seed, 0, rules, pair=pair, names=names, times=times)
        return (time.perf_counter() - t) / 2
    from ..agents.batch import batched as as_batched

    a, b = as_batched(agents[0]), as_batched(agents[1])
    play_paired_deals_batched(a, b, seed, 0, 1, rules, pair, names)  # compiles
    n = min(count, BATCH_TIMED)
    t = time.perf_counter()
    play_paired_deals_batched(a, b, seed, 0, n, rules, pair, names, times)
    return (time.perf_counter() - t) / (2 * n)


def estimate_evaluation(
    agents: Sequence[str],
    *,
    deals: int | None = None,
    matches: int | None = None,
    rules: str = "altmisalti",
    seed: int = 0,
    workers: int = 1,
) -> EvalEstimate:
    """How long :func:`.evaluate` of ``agents`` with these arguments will take, from a short
    timing of each pair. A request the evaluation would refuse raises as it would
    (``ValueError``; an agent that cannot be built, its :class:`SixtySixError`)."""
    mode, count = _mode_and_count(deals, matches, None, None)
    if len(agents) < 2 or workers < 1:
        raise ValueError("an evaluation needs at least two agents and one worker")
    t0 = time.perf_counter()
    config = make_rules(rules)
    names = _unique_names(agents)
    built = [make_agent(a) for a in agents]
    lockstep = batchable(mode, built)
    start = deal_from_deck(deal_deck(seed, 0, config), dealer=0, rules=config)
    times: dict[str, list[float]] = {n: [] for n in names}
    total = 0.0
    with one_blas_thread():  # as the evaluation plays
        if not lockstep:
            for agent in built:  # untimed: a first call may load or compile
                agent.act(player_view(start, start.current_player()), random.Random(0))
        pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
        for k, (i, j) in enumerate(pairs):
            total += _time_pair((built[i], built[j]), (names[i], names[j]), k, seed, config,
                                count, lockstep, (times[names[i]], times[names[j]]))
    hands_per_pair = 2 * count * (1 if mode == HAND else HANDS_PER_MATCH)
    return EvalEstimate(
        seconds=total * hands_per_pair / workers,
        hands=hands_per_pair * len(pairs),
        pairs=len(pairs),
        workers=workers,
        ms_per_decision={n: sum(ts) / len(ts) for n, ts in times.items() if ts},
        batched=lockstep,
        timing_seconds=time.perf_counter() - t0,
    )
