"""Who is stronger: agents played against each other on paired deals.

    sixtysix eval random heuristic expert --deals 1000 --workers 2 --json artifacts/eval.json
    sixtysix eval heuristic expert:samples=16 --matches 200 --rules santase

Every pair of the agents listed plays the same deals twice with the seats
swapped (the deck, the dealer and so the cards each seat gets are the same;
only who sits where changes), so the luck of the cards cancels. With
``--matches`` each pair plays whole matches to the preset's target, again
twice per match seed with the seats swapped (both matches see the same
sequence of decks).

For each pair the table shows, from the first agent's side: mean game
points per hand with a 95% confidence interval (over paired deals: the two
hands of a deal are averaged first, so the interval reflects the pairing),
hands won, and, with ``--matches``, matches won with a 95% Wilson interval.
The field gets a Bradley-Terry (Elo-scale) rating fitted to hand results
(match results with ``--matches``), anchored at ``random`` = 1000 when
``random`` is in the field (else the first agent). The same seed gives the
same numbers, whatever the number of worker processes, as long as the
agents themselves are deterministic given their random generator (the
expert's optional time budget is not).

An agent that returns an illegal action stops the run with an error naming
the agent, the action and the legal actions; that error, Ctrl-C or SIGTERM
(``timeout``, CI, ``kill``) still leaves what was measured so far in the
JSON file (``"complete": false``). The JSON file of an earlier run at the
same path is removed when a run starts, so it is never taken for this one's;
its folder must exist.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import shlex
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .actions import NUM_ACTIONS, action_name
from .agents.base import Agent
from .agents.registry import make_agent
from .checks import is_int
from .engine import State, deal_from_deck, random_deck
from .errors import SixtySixError
from .match import Match
from .rules import PRESETS, RuleConfig, make_rules
from .view import player_view

__all__ = [
    "EvalResult",
    "IllegalAgentActionError",
    "PairStats",
    "add_arguments",
    "bradley_terry",
    "deal_deck",
    "evaluate",
    "play_hand",
    "play_paired_deal",
    "play_paired_match",
    "run",
]

RESULT_FORMAT_VERSION = 1
Z95 = 1.959963984540054


class IllegalAgentActionError(SixtySixError, ValueError):
    """An agent answered with an action that is not legal where it was asked."""

    def __init__(self, agent: str, action: Any, legal: Sequence[int], seat: int | None = None):
        self.agent = agent
        self.action = action
        self.legal_actions = tuple(legal)
        self.seat = seat
        try:
            what = f"{action_name(action)} (id {action})"
        except (ValueError, TypeError):
            what = repr(action)
        where = f" at seat {seat}" if seat is not None else ""
        super().__init__(
            f"agent {agent!r}{where} returned the illegal action {what}; legal actions: "
            + ", ".join(f"{action_name(a)} ({a})" for a in self.legal_actions)
        )

    def __reduce__(self):  # survive the trip back from a worker process
        return (type(self), (self.agent, self.action, self.legal_actions, self.seat))


# -- playing ----------------------------------------------------------------


def deal_deck(seed: int, index: int) -> list[int]:
    """The deck of deal ``index`` of an evaluation seeded ``seed`` (shared by all pairs)."""
    return random_deck(random.Random(f"sixtysix-eval-deal:{seed}:{index}"))


def _agent_rng(seed: int, pair: int, index: int, game: int, seat: int) -> random.Random:
    return random.Random(f"sixtysix-eval-agent:{seed}:{pair}:{index}:{game}:{seat}")


def _act(
    agent: Agent, name: str, state: State, rng: random.Random, times: list[float] | None
) -> int:
    seat = state.current_player()
    view = player_view(state, seat)
    t0 = time.perf_counter()
    action = agent.act(view, rng)
    if times is not None:
        times.append((time.perf_counter() - t0) * 1000.0)
    if type(action) is not int:
        if not is_int(action):  # numpy integers yes; bools, floats no (sixtysix_env.checks)
            raise IllegalAgentActionError(name, action, state.legal_actions(), seat)
        action = int(action)
    if not (0 <= action < NUM_ACTIONS and view.legal_mask >> action & 1):
        raise IllegalAgentActionError(name, action, state.legal_actions(), seat)
    return action


def play_hand(
    agents: Sequence[Agent],
    state: State,
    rngs: Sequence[random.Random],
    names: Sequence[str] | None = None,
    times: Sequence[list[float]] | None = None,
) -> State:
    """Play ``state`` to its end with ``agents[seat]``; returns the final state.

    ``times[seat]``, if given, collects each decision's milliseconds.
    """
    names = names or [getattr(a, "name", type(a).__name__) for a in agents]
    while state.result is None:
        p = state.current_player()
        state = state.apply(_act(agents[p], names[p], state, rngs[p], times[p] if times else None))
    return state


@dataclass(frozen=True)
class DealRecord:
    """One deal played twice; ``gp`` holds A's game points in each game."""

    pair: int
    index: int
    gp: tuple[int, int]  # game 0: A at seat 0; game 1: A at seat 1


@dataclass(frozen=True)
class MatchRecord:
    """One match seed played twice; A's match wins and A's game points per hand."""

    pair: int
    index: int
    won: tuple[bool, bool]
    hand_gp: tuple[tuple[int, ...], tuple[int, ...]]


def play_paired_deal(
    a: Agent,
    b: Agent,
    seed: int,
    index: int,
    rules: RuleConfig,
    pair: int = 0,
    names: tuple[str, str] = ("A", "B"),
    times: tuple[list[float], list[float]] | None = None,
    keep_states: list | None = None,
) -> DealRecord:
    """Deal ``index`` played by A at seat 0 and then, same deck, by A at seat 1."""
    deck = deal_deck(seed, index)
    dealer = index % 2
    gp = []
    for game in (0, 1):
        start = deal_from_deck(deck, dealer=dealer, rules=rules)
        seats = (a, b) if game == 0 else (b, a)
        seat_names = names if game == 0 else (names[1], names[0])
        seat_times = None
        if times is not None:
            seat_times = times if game == 0 else (times[1], times[0])
        rngs = [_agent_rng(seed, pair, index, game, s) for s in (0, 1)]
        end = play_hand(seats, start, rngs, seat_names, seat_times)
        if keep_states is not None:
            keep_states.append((start, end))
        gp.append(end.returns()[game])  # A sits at seat ``game``
    return DealRecord(pair, index, (gp[0], gp[1]))


def play_paired_match(
    a: Agent,
    b: Agent,
    seed: int,
    index: int,
    rules: RuleConfig,
    pair: int = 0,
    names: tuple[str, str] = ("A", "B"),
    times: tuple[list[float], list[float]] | None = None,
) -> MatchRecord:
    """Match seed ``index`` played by A at seat 0 and then by A at seat 1."""
    won, hand_gp = [], []
    for game in (0, 1):
        m = Match(rules, seed=random.Random(f"sixtysix-eval-match:{seed}:{index}"),
                  first_dealer=index % 2)
        seats = (a, b) if game == 0 else (b, a)
        seat_names = names if game == 0 else (names[1], names[0])
        seat_times = None
        if times is not None:
            seat_times = times if game == 0 else (times[1], times[0])
        rngs = [_agent_rng(seed, pair, index, game, s) for s in (0, 1)]
        while not m.is_over():
            p = m.current_player()
            m.apply(_act(seats[p], seat_names[p], m.hand, rngs[p],
                         seat_times[p] if seat_times else None))
        won.append(m.winner == game)
        hand_gp.append(tuple(g[game] - g[1 - game] for g in m.scored))
    return MatchRecord(pair, index, (won[0], won[1]), (hand_gp[0], hand_gp[1]))


# -- statistics --------------------------------------------------------------


def _mean_ci(xs: Sequence[float]) -> tuple[float | None, list[float] | None]:
    if not xs:
        return None, None
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, None
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, [m - half, m + half]


def _ratio_ci(clusters: Sequence[tuple[int, int]]) -> tuple[float | None, list[float] | None]:
    """Mean per hand over clusters of (sum, hands), with a cluster-robust 95% interval."""
    total_y = sum(y for y, _ in clusters)
    total_n = sum(n for _, n in clusters)
    if not total_n:
        return None, None
    r = total_y / total_n
    k = len(clusters)
    if k < 2:
        return r, None
    nbar = total_n / k
    var = sum((y - r * n) ** 2 for y, n in clusters) / (k * (k - 1) * nbar * nbar)
    half = Z95 * math.sqrt(var)
    return r, [r - half, r + half]


def _wilson(k: int, n: int) -> list[float] | None:
    if n == 0:
        return None
    p = k / n
    den = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / den
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / den
    return [centre - half, centre + half]


@dataclass
class PairStats:
    """One pair's figures, from agent ``a``'s side."""

    a: str
    b: str
    #: Paired deals (hands mode) or paired match seeds (matches mode) played.
    deals: int = 0
    hands: int = 0
    gp_per_hand: float | None = None
    gp_ci95: list[float] | None = None
    hands_won_a: int = 0
    hands_won_b: int = 0
    hands_tied: int = 0
    matches: int = 0
    matches_won_a: int = 0
    match_rate_a: float | None = None
    match_ci95: list[float] | None = None


@dataclass
class EvalResult:
    """All figures of an evaluation (``to_dict`` is the JSON file's content)."""

    agents: list[str]
    rules: dict
    seed: int
    mode: str  # "hands" or "matches"
    requested: int  # paired deals or paired matches per pair
    workers: int
    pairs: list[PairStats]
    elo: dict[str, float]
    elo_anchor: str
    #: Per agent: decisions, mean/median/p90 milliseconds (machine-dependent).
    timing: dict[str, dict[str, float]] = field(default_factory=dict)
    complete: bool = True
    stopped: str | None = None
    wall_seconds: float = 0.0
    #: The command line that produced the figures, when run from the CLI.
    command: str | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["format_version"] = RESULT_FORMAT_VERSION
        return d

    def save_json(self, path: str) -> None:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.to_dict(), f, indent=2)
            f.write("\n")
        os.replace(tmp, path)

    def pair(self, a: str, b: str) -> PairStats:
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
        raise KeyError(f"no pair {a!r} vs {b!r}")

    def table(self) -> str:
        return _plain_table(self)


def bradley_terry(
    names: Sequence[str],
    wins: dict[tuple[int, int], float],
    anchor: int = 0,
    prior: float = 0.5,
    anchor_rating: float = 1000.0,
) -> dict[str, float]:
    """Elo-scale Bradley-Terry ratings from ``wins[(i, j)]`` (i's wins over j, ties as halves).

    ``prior`` virtual wins each way for every pair that played keep the fit
    finite when one side won everything. Fitted by minorisation-maximisation.
    """
    n = len(names)
    w = [[0.0] * n for _ in range(n)]
    played = [[False] * n for _ in range(n)]
    for (i, j), x in wins.items():
        w[i][j] += x
    for i in range(n):
        for j in range(n):
            if i != j and (w[i][j] + w[j][i]) > 0:
                played[i][j] = played[j][i] = True
    for i in range(n):
        for j in range(n):
            if played[i][j]:
                w[i][j] += prior
    p = [1.0] * n
    for _ in range(10000):
        new = []
        for i in range(n):
            wi = sum(w[i])
            den = sum((w[i][j] + w[j][i]) / (p[i] + p[j]) for j in range(n) if played[i][j])
            new.append(wi / den if den > 0 else p[i])
        g = math.exp(sum(math.log(x) for x in new) / n)
        new = [x / g for x in new]
        done = max(abs(math.log(x / y)) for x, y in zip(new, p)) < 1e-10
        p = new
        if done:
            break
    base = math.log10(p[anchor])
    return {names[i]: anchor_rating + 400.0 * (math.log10(p[i]) - base) for i in range(n)}


def _timing(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    out = {}
    for name, ts in times.items():
        if not ts:
            continue
        s = sorted(ts)
        out[name] = {
            "decisions": len(s),
            "mean_ms": statistics.fmean(s),
            "median_ms": s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2,
            "p90_ms": s[min(len(s) - 1, int(0.9 * len(s)))],
            "max_ms": s[-1],
        }
    return out


def _summarise(
    names: list[str],
    pairs: list[tuple[int, int]],
    records: list,
    mode: str,
) -> tuple[list[PairStats], dict[str, float], str]:
    records = sorted(records, key=lambda r: (r.pair, r.index))
    stats = [PairStats(names[i], names[j]) for i, j in pairs]
    per_deal: list[list[float]] = [[] for _ in pairs]
    clusters: list[list[tuple[int, int]]] = [[] for _ in pairs]  # (A's gp, hands) per match seed
    wins: dict[tuple[int, int], float] = {}
    for r in records:
        st = stats[r.pair]
        i, j = pairs[r.pair]
        st.deals += 1
        if mode == "hands":
            hand_gps = list(r.gp)
            per_deal[r.pair].append((r.gp[0] + r.gp[1]) / 2)
        else:
            hand_gps = list(r.hand_gp[0]) + list(r.hand_gp[1])
            clusters[r.pair].append((sum(hand_gps), len(hand_gps)))
            st.matches += 2
            st.matches_won_a += int(r.won[0]) + int(r.won[1])
        for g in hand_gps:
            st.hands += 1
            if g > 0:
                st.hands_won_a += 1
            elif g < 0:
                st.hands_won_b += 1
            else:
                st.hands_tied += 1
        if mode == "hands":
            a_w = sum(1.0 if g > 0 else 0.5 if g == 0 else 0.0 for g in hand_gps)
            b_w = len(hand_gps) - a_w
        else:
            a_w = float(r.won[0]) + float(r.won[1])
            b_w = 2.0 - a_w
        wins[(i, j)] = wins.get((i, j), 0.0) + a_w
        wins[(j, i)] = wins.get((j, i), 0.0) + b_w
    for k, st in enumerate(stats):
        if mode == "hands":
            st.gp_per_hand, st.gp_ci95 = _mean_ci(per_deal[k])
        else:
            # Per-hand mean over all hands; the interval treats each match
            # seed (its two matches) as one cluster of hands.
            st.gp_per_hand, st.gp_ci95 = _ratio_ci(clusters[k])
            if st.matches:
                st.match_rate_a = st.matches_won_a / st.matches
                st.match_ci95 = _wilson(st.matches_won_a, st.matches)
    anchor = names.index("random") if "random" in names else 0
    elo = bradley_terry(names, wins, anchor=anchor) if wins else {}
    return stats, elo, names[anchor]


# -- running -----------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _worker_init(specs: list, names: list[str], rules: RuleConfig, seed: int, mode: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # and SIGTERM; it terminates the pool
    _WORKER.update(specs=specs, names=names, rules=rules, seed=seed, mode=mode, agents={})


def _agent(k: int) -> Agent:
    agents = _WORKER["agents"]
    if k not in agents:
        agents[k] = make_agent(_WORKER["specs"][k])
    return agents[k]


def _run_chunk(task: tuple[int, int, int, int, int]) -> tuple[list, dict[str, list[float]]]:
    """Play items ``start..stop-1`` of pair ``pair`` (agents ``i`` and ``j``)."""
    pair, i, j, start, stop = task
    names = _WORKER["names"]
    a, b = _agent(i), _agent(j)
    times: tuple[list[float], list[float]] = ([], [])
    out = []
    play = play_paired_deal if _WORKER["mode"] == "hands" else play_paired_match
    for index in range(start, stop):
        out.append(play(a, b, _WORKER["seed"], index, _WORKER["rules"], pair,
                        (names[i], names[j]), times))
    return out, {names[i]: times[0], names[j]: times[1]}


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived during :func:`evaluate`; handled like Ctrl-C (a partial result)."""


def _on_sigterm(signum, frame):
    # Once is enough: a second SIGTERM must not cut the saving of the partial result.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated


def check_json_path(path: str) -> None:
    """Refuse, before anything is played, a JSON path whose folder does not exist."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(
            f"cannot write the results to {path!r}: the folder {folder!r} does not exist "
            "(create it first)"
        )
    if os.path.isdir(path):
        raise ValueError(f"cannot write the results to {path!r}: it is a folder")


def _unique_names(agents: Sequence[str | Agent]) -> list[str]:
    names, seen = [], {}
    for a in agents:
        base = a if isinstance(a, str) else getattr(a, "name", type(a).__name__)
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return names


def _stop_reason(e: KeyboardInterrupt) -> str:
    return "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted (Ctrl-C)"


def _play_all(
    agents, built, names, pairs, cfg, seed, mode, count, workers, progress, chunk_size,
    on_record, records, times,
) -> tuple[str | None, BaseException | None]:
    """Play every pair's deals or matches into ``records``; (why it stopped, the error)."""
    specs: list = [a if isinstance(a, str) else b for a, b in zip(agents, built)]
    if chunk_size is None:
        chunk_size = max(1, min(25, count // max(1, 4 * workers)))
    tasks = [
        (k, i, j, s, min(count, s + chunk_size))
        for k, (i, j) in enumerate(pairs)
        for s in range(0, count, chunk_size)
    ]
    total_units = len(pairs) * count * 2
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=total_units, unit="hand" if mode == "hands" else "match",
                       desc="eval", file=sys.stderr, dynamic_ncols=True)
        except ImportError:
            bar = None
    stopped: str | None = None
    error: BaseException | None = None

    def take(result) -> None:
        recs, ts = result
        records.extend(recs)
        for n, xs in ts.items():
            times[n].extend(xs)
        if on_record is not None:
            for r in recs:
                on_record(r)
        if bar is not None:
            bar.update(2 * len(recs))

    pool = None
    try:
        if workers == 1:
            _worker_state = dict(_WORKER)
            _WORKER.update(specs=specs, names=names, rules=cfg, seed=seed, mode=mode,
                           agents=dict(enumerate(built)))
            try:
                for task in tasks:
                    # One item at a time, so an error loses nothing already played.
                    k, i, j, s, e = task
                    for index in range(s, e):
                        take(_run_chunk((k, i, j, index, index + 1)))
            finally:
                _WORKER.clear()
                _WORKER.update(_worker_state)
        else:
            ctx = multiprocessing.get_context()
            pool = ctx.Pool(workers, initializer=_worker_init,
                            initargs=(specs, names, cfg, seed, mode))
            for result in pool.imap_unordered(_run_chunk, tasks):
                take(result)
            pool.close()
            pool.join()
            pool = None
    except KeyboardInterrupt as e:
        stopped = _stop_reason(e)
    except BaseException as e:  # noqa: BLE001 - saved with the partial result, then re-raised
        stopped = f"error: {e}"
        error = e
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        if bar is not None:
            bar.close()
    return stopped, error


def evaluate(
    agents: Sequence[str | Agent],
    *,
    deals: int | None = None,
    matches: int | None = None,
    rules: str | RuleConfig | dict | None = "altmisalti",
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    json_path: str | None = None,
    chunk_size: int | None = None,
    on_record: Callable[[Any], None] | None = None,
    command: str | None = None,
) -> EvalResult:
    """Round robin of ``agents`` (names, ``name:key=value`` specs, policy files or agent objects).

    Give ``deals`` (paired deals per pair: two hands each) or ``matches``
    (paired match seeds per pair: two matches each). With ``workers`` > 1 the
    deals are spread over processes (agent objects must then be picklable);
    the figures do not depend on it. ``json_path`` receives the result, also
    when the run stops early: on Ctrl-C or SIGTERM (also during start-up)
    the partial result is returned with ``complete=False``; on an error (such
    as an agent's illegal action) it is
    saved, attached to the exception as ``partial_result``, and the
    exception is raised.
    """
    if (deals is None) == (matches is None):
        raise ValueError("give exactly one of deals= or matches=")
    count = deals if deals is not None else matches
    mode = "hands" if deals is not None else "matches"
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"the number of {'deals' if mode == 'hands' else 'matches'} must be >= 1")
    if len(agents) < 2:
        raise ValueError("an evaluation needs at least two agents")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers!r}")
    cfg = make_rules(rules)
    names = _unique_names(agents)
    if json_path:
        check_json_path(json_path)
        # A previous run's file must not pass for this run's, whatever happens next.
        if os.path.lexists(json_path):
            os.remove(json_path)
    t0 = time.perf_counter()
    stopped: str | None = None
    error: BaseException | None = None
    records: list = []
    times: dict[str, list[float]] = {n: [] for n in names}
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    # SIGTERM (timeout, CI, kill) stops the run the way Ctrl-C does; only the
    # main thread may set a handler.
    old_term = None
    if threading.current_thread() is threading.main_thread():
        old_term = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        try:
            # Build every agent once here: bad names fail before any game is played.
            built = [make_agent(a) for a in agents]
        except KeyboardInterrupt as e:  # Ctrl-C or SIGTERM while starting up
            stopped = _stop_reason(e) + " before any game was played"
            built = None
        if built is not None:
            stopped, error = _play_all(
                agents, built, names, pairs, cfg, seed, mode, count, workers, progress,
                chunk_size, on_record, records, times,
            )
        stats, elo, anchor = _summarise(names, pairs, records, mode)
        result = EvalResult(
            agents=names,
            rules=cfg.to_dict(),
            seed=seed,
            mode=mode,
            requested=count,
            workers=workers,
            pairs=stats,
            elo=elo,
            elo_anchor=anchor,
            timing=_timing(times),
            complete=stopped is None,
            stopped=stopped,
            wall_seconds=time.perf_counter() - t0,
            command=command,
        )
        if json_path:
            result.save_json(json_path)
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    if error is not None:
        error.partial_result = result  # type: ignore[attr-defined]
        raise error
    return result


# -- display -----------------------------------------------------------------


def _fmt(x: float | None, nd: int = 3) -> str:
    return "-" if x is None else f"{x:+.{nd}f}"


def _ci(ci: list[float] | None, nd: int = 3, pct: bool = False) -> str:
    if ci is None:
        return "-"
    if pct:
        return f"[{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]"
    return f"[{ci[0]:+.{nd}f}, {ci[1]:+.{nd}f}]"


def _rows(res: EvalResult) -> tuple[list[str], list[list[str]]]:
    head = ["A", "B", "deals" if res.mode == "hands" else "match seeds", "hands",
            "gp/hand (A)", "95% CI", "hands won A-B-tie"]
    if res.mode == "matches":
        head += ["matches won A", "95% CI"]
    rows = []
    for p in res.pairs:
        row = [p.a, p.b, str(p.deals), str(p.hands), _fmt(p.gp_per_hand), _ci(p.gp_ci95),
               f"{p.hands_won_a}-{p.hands_won_b}-{p.hands_tied}"]
        if res.mode == "matches":
            rate = "-" if p.match_rate_a is None else f"{p.matches_won_a}/{p.matches} ({100 * p.match_rate_a:.1f}%)"
            row += [rate, _ci(p.match_ci95, pct=True)]
        rows.append(row)
    return head, rows


def _rating_rows(res: EvalResult) -> list[list[str]]:
    out = []
    for name in sorted(res.elo, key=lambda n: -res.elo[n]):
        t = res.timing.get(name, {})
        out.append([
            name,
            f"{res.elo[name]:.0f}",
            str(t.get("decisions", 0)),
            f"{t['median_ms']:.2f}" if t else "-",
            f"{t['mean_ms']:.2f}" if t else "-",
            f"{t['p90_ms']:.2f}" if t else "-",
        ])
    return out


_RATING_HEAD = ["agent", "Elo (BT)", "decisions", "median ms", "mean ms", "p90 ms"]


def _plain_table(res: EvalResult) -> str:
    def fmt(head, rows):
        widths = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h)
                  for k, h in enumerate(head)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)),
                 "  ".join("-" * w for w in widths)]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
        return "\n".join(lines)

    head, rows = _rows(res)
    basis = "hands" if res.mode == "hands" else "matches"
    ratings = f"Ratings (Bradley-Terry on {basis}, {res.elo_anchor} = 1000) and time per decision:"
    out = [_title(res), "", fmt(head, rows), "", ratings, fmt(_RATING_HEAD, _rating_rows(res))]
    if not res.complete:
        out.append(f"\nINCOMPLETE: {res.stopped}")
    return "\n".join(out)


def _title(res: EvalResult) -> str:
    unit = "paired deals" if res.mode == "hands" else "paired matches"
    return (f"Evaluation: rules {res.rules['name']}, seed {res.seed}, {res.requested} {unit} "
            f"per pair, {res.wall_seconds:.1f} s")


def print_table(res: EvalResult, file=None) -> None:
    """Print the result with rich when available, else as plain text."""
    file = file or sys.stdout
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(_plain_table(res), file=file)
        return
    console = Console(file=file)
    if not console.is_terminal:
        console = Console(file=file, width=160)
    head, rows = _rows(res)
    t = Table(title=_title(res))
    for h in head:
        t.add_column(h, justify="left" if h in ("A", "B") else "right")
    for r in rows:
        t.add_row(*r)
    console.print(t)
    t2 = Table(title=f"Ratings (Bradley-Terry on {'hands' if res.mode == 'hands' else 'matches'}, "
               f"{res.elo_anchor} = 1000) and time per decision")
    for h in _RATING_HEAD:
        t2.add_column(h, justify="left" if h == "agent" else "right")
    for r in _rating_rows(res):
        t2.add_row(*r)
    console.print(t2)
    if not res.complete:
        console.print(f"[bold red]INCOMPLETE[/]: {res.stopped}")


# -- command line -------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "agents", nargs="+",
        help="agents: random, heuristic, expert, NAME:key=value,... (e.g. expert:samples=16), "
        "or a policy file (.npz)",
    )
    n = parser.add_mutually_exclusive_group()
    n.add_argument("--deals", type=int, help="paired deals per pair, 2 hands each (default 200)")
    n.add_argument("--hands", type=int, help="hands per pair (rounded up to whole paired deals)")
    n.add_argument("--matches", type=int,
                   help="paired match seeds per pair, 2 matches each, to the preset's target")
    parser.add_argument("--rules", default="altmisalti", choices=sorted(PRESETS),
                        help="rule preset (default altmisalti)")
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--json", metavar="PATH", help="write all figures to this JSON file")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--plain", action="store_true", help="plain-text table (no rich)")


def run(args: argparse.Namespace) -> int:
    if args.matches is not None:
        kw = {"matches": args.matches}
    elif args.hands is not None:
        kw = {"deals": max(1, (args.hands + 1) // 2)}
    else:
        kw = {"deals": args.deals if args.deals is not None else 200}
    try:
        parts = ["sixtysix", "eval", *args.agents, f"--{next(iter(kw))}", str(next(iter(kw.values()))),
                 "--rules", args.rules, "--seed", str(args.seed), "--workers", str(args.workers)]
        command = " ".join(shlex.quote(p) for p in parts)
        res = evaluate(args.agents, rules=args.rules, seed=args.seed, workers=args.workers,
                       progress=not args.no_progress, json_path=args.json, command=command, **kw)
    except SixtySixError as e:
        partial = getattr(e, "partial_result", None)
        if partial is not None and (partial.pairs and any(p.deals for p in partial.pairs)):
            print(partial.table() if args.plain else "", end="")
            if not args.plain:
                print_table(partial)
        print(f"sixtysix eval: {e}", file=sys.stderr)
        if args.json and partial is not None:
            print(f"sixtysix eval: what was measured is saved in {args.json}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"sixtysix eval: {e}", file=sys.stderr)
        return 2
    if args.plain:
        print(res.table())
    else:
        print_table(res)
    if args.json:
        print(f"figures saved to {args.json}")
    if not res.complete:
        print(f"sixtysix eval: stopped early ({res.stopped}); partial figures shown",
              file=sys.stderr)
        return 143 if res.stopped and res.stopped.startswith("terminated") else 130
    return 0
