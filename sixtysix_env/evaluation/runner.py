"""Running an evaluation: every pair's games, in this process or a pool, stopped cleanly.

:func:`evaluate` checks the request, builds the agents (a bad name fails
before any game), plays the items in chunks (one at a time in this process,
or spread over worker processes: the figures do not depend on it), and
summarises them (:mod:`.stats`). Ctrl-C and SIGTERM stop the run with a
partial result; an error saves the partial result and is raised again.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agents.base import Agent
from ..agents.registry import make_agent
from ..batched import have_numba
from ..game.rules import RuleConfig, make_rules
from ..util.progress import progress_bar
from .blas import limit_blas_threads, one_blas_thread
from .play import (
    HAND,
    MATCH,
    PLAY,
    DealRecord,
    MatchRecord,
    normalize_mode,
    play_paired_deals_batched,
)
from .ray_pool import check_reachable, play_on_ray
from .result import EvalResult
from .stats import summarise, timing

Record = DealRecord | MatchRecord


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived during :func:`evaluate`; handled like Ctrl-C (a partial result)."""


def _on_sigterm(signum, frame):
    # Once is enough: a second SIGTERM must not cut the saving of the partial result.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (timeout, CI, kill) stops the run the way Ctrl-C does, until the block ends.

    Only the main thread may set a handler; elsewhere SIGTERM keeps its own.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def stop_reason(e: KeyboardInterrupt) -> str:
    return "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted (Ctrl-C)"


# -- the worker side ----------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _worker_init(specs: list, names: list[str], rules: RuleConfig, seed: int, mode: str,
                 referee: str = "sixtysix") -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # and SIGTERM; it terminates the pool
    # One worker per core: a policy's BLAS threads would wait for the other workers'
    # cores (a 768-wide policy took a median of 5.6 ms per decision with two workers
    # against 0.1 ms alone, before this; sixtysix_env.evaluation.blas).
    limit_blas_threads()
    _WORKER.update(specs=specs, names=names, rules=rules, seed=seed, mode=mode, agents={},
                   batched={}, referee=referee)


def _agent(k: int) -> Agent:
    agents = _WORKER["agents"]
    if k not in agents:
        agents[k] = make_agent(_WORKER["specs"][k])
        if hasattr(agents[k], "check_rules"):  # the run warned once, when it started
            agents[k].check_rules(_WORKER["rules"], warn=False)
    return agents[k]


def _batched(k: int):
    """Agent ``k`` as a batched agent, or None where it would be played game by game (or
    numba, the [fast] extra, is missing)."""
    cache = _WORKER.setdefault("batched", {})
    if k not in cache:
        cache[k] = None
        if have_numba():
            from ..agents.batch import batched

            agent = batched(_agent(k))
            cache[k] = None if agent.needs_states else agent
    return cache[k]


def batchable(mode: str, agents: Sequence[Agent]) -> bool:
    """Whether an evaluation of ``agents`` plays in lock-step on the batched engine: paired
    deals, every agent a numpy policy or ``random``, and numba installed."""
    if mode != HAND or not have_numba():
        return False
    from ..agents.batch import can_batch

    return all(can_batch(a) for a in agents)


def _run_chunk(task: tuple[int, int, int, int, int]) -> tuple[list, dict[str, list[float]]]:
    """Play items ``start..stop-1`` of pair ``pair`` (agents ``i`` and ``j``): in lock-step
    on the batched engine where both agents allow it (the same games), else one by one."""
    pair, i, j, start, stop = task
    names = _WORKER["names"]
    a, b = _agent(i), _agent(j)
    times: tuple[list[float], list[float]] = ([], [])
    if _WORKER["mode"] == HAND and _WORKER.get("referee", "sixtysix") == "sixtysix":
        ba, bb = _batched(i), _batched(j)
        if ba is not None and bb is not None:
            out = play_paired_deals_batched(ba, bb, _WORKER["seed"], start, stop,
                                            _WORKER["rules"], pair, (names[i], names[j]), times)
            return out, {names[i]: times[0], names[j]: times[1]}
    out = []
    play = PLAY[_WORKER["mode"]]
    if _WORKER.get("referee", "sixtysix") == "schnapsen":  # the games in the package's engine
        from .schnapsen import play_paired_deal_schnapsen as play
    for index in range(start, stop):
        out.append(play(a, b, _WORKER["seed"], index, _WORKER["rules"], pair,
                        (names[i], names[j]), times))
    return out, {names[i]: times[0], names[j]: times[1]}


# -- the parent side ----------------------------------------------------------------


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


@dataclass
class _Run:
    """One evaluation's plan and what it has measured so far."""

    names: list[str]
    pairs: list[tuple[int, int]]
    rules: RuleConfig
    seed: int
    mode: str
    count: int
    workers: int
    #: A Ray address (see :mod:`.ray_pool`), or None for this process or a process pool.
    address: str | None = None
    built: list[Agent] = field(default_factory=list)
    #: Per agent: its name or spec (rebuilt in each worker), or the agent object itself.
    specs: list = field(default_factory=list)
    #: Whether the games are played in lock-step on the batched engine (:func:`batchable`).
    batched: bool = False
    records: list[Record] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=dict)
    #: The engine the games are played in (:data:`.schnapsen.REFEREES`).
    referee: str = "sixtysix"

    def result(self, stopped: str | None, wall_seconds: float, command: str | None) -> EvalResult:
        """The figures of what was played (all of it, or up to the stop)."""
        stats, elo, anchor = summarise(self.names, self.pairs, self.records, self.mode)
        return EvalResult(
            agents=self.names,
            rules=self.rules.to_dict(),
            seed=self.seed,
            mode=self.mode,
            requested=self.count,
            workers=self.workers,
            pairs=stats,
            elo=elo,
            elo_anchor=anchor,
            timing=timing(self.times),
            complete=stopped is None,
            stopped=stopped,
            wall_seconds=wall_seconds,
            command=command,
            referee=self.referee,
        )

    def tasks(self, chunk_size: int | None) -> list[tuple[int, int, int, int, int]]:
        """(pair, i, j, start, stop) chunks of every pair's items (larger ones where the
        games are played in lock-step: a batch's cost is mostly per step, not per game)."""
        if chunk_size is None:
            most = 500 if self.batched else 25
            chunk_size = max(1, min(most, self.count // max(1, 4 * self.workers)))
        return [
            (k, i, j, s, min(self.count, s + chunk_size))
            for k, (i, j) in enumerate(self.pairs)
            for s in range(0, self.count, chunk_size)
        ]


def _play_here(run: _Run, tasks: list, take: Callable[[Any], None]) -> None:
    """Play the tasks in this process, one item at a time (an error loses nothing played).

    numpy's BLAS keeps one thread meanwhile, as in a worker: on a machine whose cores
    are busy, a 768-wide policy took 2 to 5 ms per decision with its BLAS threads and
    0.05 to 0.2 ms without them (a benchmark's --quick run, 2 shared cores).
    """
    saved = dict(_WORKER)
    _WORKER.update(specs=run.specs, names=run.names, rules=run.rules, seed=run.seed,
                   mode=run.mode, agents=dict(enumerate(run.built)), batched={},
                   referee=run.referee)
    try:
        with one_blas_thread():
            for k, i, j, s, e in tasks:
                if run.batched:  # a chunk is one lock-step batch
                    take(_run_chunk((k, i, j, s, e)))
                    continue
                for index in range(s, e):
                    take(_run_chunk((k, i, j, index, index + 1)))
    finally:
        _WORKER.clear()
        _WORKER.update(saved)


def _play_in_pool(run: _Run, tasks: list, take: Callable[[Any], None]) -> None:
    """Play the tasks in ``run.workers`` processes; the pool ends with the call."""
    pool = multiprocessing.get_context().Pool(
        run.workers, initializer=_worker_init,
        initargs=(run.specs, run.names, run.rules, run.seed, run.mode, run.referee),
    )
    try:
        for result in pool.imap_unordered(_run_chunk, tasks):
            take(result)
        pool.close()
        pool.join()
        pool = None
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


_RAY_KEY: list[str] = [""]


def _ray_chunk(context: tuple, task: tuple[int, int, int, int, int]):
    """A Ray task: a chunk, with the agents this worker built for the same run kept."""
    key, specs, names, rules, seed, mode, referee = context
    if _RAY_KEY[0] != key:
        _RAY_KEY[0] = key
        limit_blas_threads()  # a task per CPU, as in the process pool (_worker_init)
        _WORKER.update(agents={}, batched={})
    _WORKER.update(specs=specs, names=names, rules=rules, seed=seed, mode=mode, referee=referee)
    return _run_chunk(task)


def _play_on_ray(run: _Run, tasks: list, take: Callable[[Any], None]) -> None:
    assert run.address is not None
    play_on_ray(run.address, run.workers, _ray_chunk,
                (run.specs, run.names, run.rules, run.seed, run.mode, run.referee), tasks, take)


def _play_all(
    run: _Run,
    progress: bool,
    chunk_size: int | None,
    on_record: Callable[[Any], None] | None,
) -> tuple[str | None, BaseException | None]:
    """Play every pair's items into ``run.records``; (why it stopped, the error)."""
    tasks = run.tasks(chunk_size)
    bar = None
    if progress:
        bar = progress_bar(len(run.pairs) * run.count * 2, desc="eval",
                           unit="hand" if run.mode == HAND else "match")

    def take(result) -> None:
        recs, ts = result
        run.records.extend(recs)
        for n, xs in ts.items():
            run.times[n].extend(xs)
        if on_record is not None:
            for r in recs:
                on_record(r)
        if bar is not None:
            bar.update(2 * len(recs))

    try:
        if run.address is not None:
            _play_on_ray(run, tasks, take)
        else:
            (_play_here if run.workers == 1 else _play_in_pool)(run, tasks, take)
    except KeyboardInterrupt as e:
        return stop_reason(e), None
    except BaseException as e:  # noqa: BLE001 - saved with the partial result, then re-raised
        return f"error: {e}", e
    finally:
        if bar is not None:
            bar.close()
    return None, None


def _mode_and_count(
    deals: int | None, matches: int | None, count: int | None, mode: str | None
) -> tuple[str, int]:
    """The request's (mode, items per pair), from exactly one of the three ways to give it."""
    given = [deals is not None, matches is not None, count is not None or mode is not None]
    if sum(given) != 1:
        raise ValueError("give exactly one of deals=, matches=, or mode= with count=")
    if deals is not None:
        mode, count = HAND, deals
    elif matches is not None:
        mode, count = MATCH, matches
    else:
        if mode is None or count is None:
            raise ValueError("mode= and count= go together")
        mode = normalize_mode(mode)
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"the number of {'deals' if mode == HAND else 'matches'} must be >= 1")
    return mode, count


def _check_request(agents: Sequence[str | Agent], workers: int, address: str | None,
                   referee: str = "sixtysix", rules: RuleConfig | None = None,
                   mode: str = HAND) -> None:
    """At least two agents, at least one worker, a reachable Ray address if one is given,
    and a referee that plays these rules and this mode (:mod:`.schnapsen`)."""
    if referee != "sixtysix":
        from .schnapsen import check_referee

        check_referee(referee, rules, mode)
    if len(agents) < 2:
        raise ValueError("an evaluation needs at least two agents")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers!r}")
    if address is not None:
        if not address.strip():
            raise ValueError("address must be a Ray address ('auto', 'host:port', "
                             "'ray://host:port', 'local') or None, not empty")
        check_reachable(address)


def _build_agents(run: _Run, agents: Sequence[str | Agent]) -> None:
    """Build every agent once here: bad names fail before any game is played."""
    run.built = [make_agent(a) for a in agents]
    for agent in run.built:  # a policy trained for other rules says so, once
        if hasattr(agent, "check_rules"):
            agent.check_rules(run.rules)


def _play_built(
    run: _Run,
    agents: Sequence[str | Agent],
    t0: float,
    json_path: str | None,
    command: str | None,
    progress: bool,
    chunk_size: int | None,
    on_record: Callable[[Any], None] | None,
) -> tuple[EvalResult, BaseException | None]:
    """The run once its agents are built: (its result, the error that stopped it).

    From here on the file at ``json_path`` is this run's: marked started at
    once, replaced by the figures at the end, also when the run stops early.
    """
    run.specs = [a if isinstance(a, str) else b for a, b in zip(agents, run.built)]
    run.batched = run.referee == "sixtysix" and batchable(run.mode, run.built)
    if json_path:
        run.result("started; no figures yet", 0.0, command).save_json(json_path)
    stopped, error = _play_all(run, progress, chunk_size, on_record)
    result = run.result(stopped, time.perf_counter() - t0, command)
    if json_path:
        result.save_json(json_path)
    return result, error


#: The end of ``EvalResult.stopped`` for a run stopped before it started: it wrote no file.
NOT_STARTED = "before any game was played"


def evaluate(
    agents: Sequence[str | Agent],
    *,
    deals: int | None = None,
    matches: int | None = None,
    mode: str | None = None,
    count: int | None = None,
    rules: str | RuleConfig | dict | None = "altmisalti",
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    json_path: str | None = None,
    chunk_size: int | None = None,
    on_record: Callable[[Any], None] | None = None,
    command: str | None = None,
    address: str | None = None,
    referee: str = "sixtysix",
) -> EvalResult:
    """Round robin of ``agents`` (names, ``name:key=value`` specs, policy files or agent objects).

    Give ``deals`` (paired deals per pair: two hands each) or ``matches`` (paired match seeds
    per pair: two matches each), or equivalently ``mode`` (``"hand"``/``"hands"`` or
    ``"match"``/``"matches"``) with ``count``. With ``workers`` > 1 the deals are spread over
    processes (agent objects must then be picklable); the figures do not depend on it.
    ``address`` (``"auto"``, ``"host:port"``, ``"ray://host:port"``, or ``"local"`` for a Ray
    started here; the commands' ``--address``, which defaults to ``RAY_ADDRESS``) plays them as
    Ray tasks instead, ``workers`` at a time (with ``workers=1``: as many as the cluster has
    CPUs), with the same figures again (:mod:`.ray_pool`); an unreachable address fails at once.
    ``json_path`` is this run's from the moment the run starts (every agent built): a record of
    the run, marked incomplete, replaces the file there at once, and the figures replace it as
    the run ends, also when it stops early (each write whole or not at all). On Ctrl-C or
    SIGTERM the partial result is returned with ``complete=False``; on an error (such as an
    agent's illegal action) it is saved, attached to the exception as ``partial_result``, and
    the exception is raised. Before the run starts the file is left as it was: a bad agent spec
    raises, and a stop while the agents are built returns a result whose ``stopped`` ends with
    :data:`NOT_STARTED`, without writing it. ``referee="schnapsen"``: the deals are played in
    the ``schnapsen`` package's engine (:mod:`.schnapsen`, schnapsen-vu only).
    """
    mode, count = _mode_and_count(deals, matches, count, mode)
    _check_request(agents, workers, address, referee, make_rules(rules), mode)
    names = _unique_names(agents)
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    run = _Run(names, pairs, make_rules(rules), seed, mode, count, workers, address,
               times={n: [] for n in names}, referee=referee)
    if json_path:
        check_json_path(json_path)
    t0 = time.perf_counter()
    with sigterm_as_interrupt():
        try:
            _build_agents(run, agents)
        except KeyboardInterrupt as e:  # Ctrl-C or SIGTERM while starting up
            return run.result(f"{stop_reason(e)} {NOT_STARTED}", time.perf_counter() - t0, command)
        result, error = _play_built(run, agents, t0, json_path, command,
                                    progress, chunk_size, on_record)
    if error is not None:
        error.partial_result = result  # type: ignore[attr-defined]
        raise error
    return result

