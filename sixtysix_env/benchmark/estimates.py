"""How long a benchmark will take: the pairs it plays, each timed on the protocol's
first paired deal (:func:`time_pairs`), scaled up to the protocol's counts
(:func:`estimate`)."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..agents import make_agent
from ..evaluation import deal_deck, play_paired_deal
from ..evaluation.blas import one_blas_thread
from ..evaluation.estimate import duration_text  # the same rounding as sixtysix eval's
from ..game.engine import deal_from_deck
from ..game.rules import make_rules
from ..game.view import player_view
from .pairs import pair_order
from .protocol import Protocol

#: Hands in a match to 7, on average (measured on the protocol's match seeds: 4.1 between
#: random and heuristic, 6.7 between heuristic and sixtysix-ppo-v2-sym, 7.2 between
#: sixtysix-ppo-v4 and expert).
HANDS_PER_MATCH = 6.0


def pairs_to_play(agents: Sequence[str], protocol: Protocol) -> list[tuple[str, str]]:
    """The pairs a benchmark of ``agents`` plays, each once, in the order it plays them."""
    out: list[tuple[str, str]] = []
    for agent in agents:
        for rung in protocol.ladder:
            if rung == agent:
                continue
            first, second, _ = pair_order(protocol, agent, rung)
            if (first, second) not in out:
                out.append((first, second))
    return out


@dataclass
class PairTiming:
    """A pair's first paired deal of the protocol, timed: what the estimate scales up."""

    seconds_per_hand: float
    decisions_per_hand: float


def time_pairs(
    pairs: Sequence[tuple[str, str]], protocol: Protocol
) -> tuple[dict[tuple[str, str], PairTiming], dict[str, float], float]:
    """(each pair's timing, each agent's mean milliseconds per decision, the seconds it took).

    Each pair plays the protocol's first paired deal (2 hands) one decision at a time, as
    the evaluation plays it, after every agent is built and has made one untimed decision
    (a first call may load or compile). A bad agent raises (an
    :class:`~sixtysix_env.agents.AgentSpecError`) before anything is played.
    """
    t0 = time.perf_counter()
    rules = make_rules(protocol.rules)
    built = {n: make_agent(n) for p in pairs for n in p}
    start = deal_from_deck(deal_deck(protocol.hand_seed, 0, rules), dealer=1, rules=rules)
    for agent in built.values():
        agent.act(player_view(start, start.current_player()), random.Random(0))
    timed: dict[tuple[str, str], PairTiming] = {}
    times: dict[str, list[float]] = {n: [] for n in built}
    for a, b in pairs:
        mine: tuple[list[float], list[float]] = ([], [])
        t = time.perf_counter()
        with one_blas_thread():  # as the evaluation plays
            play_paired_deal(built[a], built[b], protocol.hand_seed, 0, rules, names=(a, b),
                             times=mine)
        timed[(a, b)] = PairTiming((time.perf_counter() - t) / 2,
                                   (len(mine[0]) + len(mine[1])) / 2)
        times[a] += mine[0]
        times[b] += mine[1]
    ms = {n: sum(ts) / len(ts) for n, ts in times.items() if ts}
    return timed, ms, time.perf_counter() - t0


@dataclass
class Estimate:
    """How long a benchmark will take, from the protocol's counts and a short timing."""

    seconds: float
    #: Decisions of both seats in the pairs to play.
    decisions: float
    pairs: int
    #: Pairs kept from an earlier run (in ``--out-dir``), not played again.
    kept: int
    #: The mean milliseconds per decision of each agent in the pairs to play.
    ms_per_decision: dict[str, float]
    #: The share of the time spent in pairs with a search rung (expert, guided).
    search_share: float
    search: tuple[str, ...]
    #: The agents benchmarked (their times are shown).
    agents: tuple[str, ...]
    workers: int
    timing_seconds: float

    def describe(self) -> str:
        """One line: the time, and what it comes from."""
        if not self.pairs:
            return f"estimated time: a few seconds (all {self.kept} pairs are kept from before)"
        kept = f"; {self.kept} pairs kept from before" if self.kept else ""
        workers = f"{self.workers} worker{'s' if self.workers != 1 else ''}"
        ms = self.ms_per_decision
        parts = [f"{self.decisions:,.0f} decisions in {self.pairs} pairs{kept}"]
        if self.search:
            names = " and ".join(self.search)
            costs = " and ".join(_ms(ms[n]) for n in self.search)
            parts.append(f"{100 * self.search_share:.0f}% of the time against {names} at "
                         f"{costs} ms a decision")
        own = [n for n in self.agents if n in ms and n not in self.search]
        if own:
            more = f" and {len(own) - 3} more" if len(own) > 3 else ""
            parts.append(", ".join(f"{n} {_ms(ms[n])} ms" for n in own[:3]) + more)
        parts.append(f"timed on a paired deal per pair in {self.timing_seconds:.1f} s")
        return (f"estimated time: about {duration_text(self.seconds)} with {workers} "
                f"({'; '.join(parts)})")


def _ms(ms: float) -> str:
    return f"{ms:.0f}" if ms >= 10 else f"{ms:.2g}"


def estimate(
    timed: dict[tuple[str, str], PairTiming],
    protocol: Protocol,
    ms_per_decision: dict[str, float],
    *,
    agents: Sequence[str] = (),
    workers: int = 1,
    kept: int = 0,
    timing_seconds: float = 0.0,
) -> Estimate:
    """The time the ``timed`` pairs take under ``protocol``: per pair, its hands (two per
    paired deal, :data:`HANDS_PER_MATCH` per match) at its timed seconds per hand,
    spread over ``workers``."""
    total = search = decisions = 0.0
    for (a, b), t in timed.items():
        deals, matches = protocol.counts(a, b)
        hands = 2 * deals + 2 * matches * HANDS_PER_MATCH
        total += hands * t.seconds_per_hand
        decisions += hands * t.decisions_per_hand
        if a in protocol.search or b in protocol.search:
            search += hands * t.seconds_per_hand
    return Estimate(
        seconds=total / max(1, workers),
        decisions=decisions,
        pairs=len(timed),
        kept=kept,
        ms_per_decision=dict(ms_per_decision),
        search_share=search / total if total else 0.0,
        search=tuple(n for n in protocol.ladder if n in protocol.search
                     and any(n in p for p in timed)),
        agents=tuple(agents),
        workers=workers,
        timing_seconds=timing_seconds,
    )
