"""A benchmark to cite: versioned protocols, each a fixed ladder, and their leaderboards.

    sixtysix benchmark my_policy.npz --json my_policy.json
    sixtysix benchmark my_policy.npz --submit     # onto a clone's leaderboard, from its root
    sixtysix benchmark --ladder --out-dir docs/benchmarks/benchmark-v1 --workers 2
    sixtysix leaderboard docs/benchmarks/benchmark-v1 -o docs/leaderboard.md

:mod:`.protocol` fixes what is played (``benchmark-v1`` for the home rules,
``santase-v1``, ``pagat66-v1`` and ``schnapsen-vu-v1`` for the other presets: the ladder,
the deal and match counts, the seeds, the Elo anchor); :mod:`.run` plays it
(:func:`benchmark`, each pair once, resumable from a folder) and writes the
versioned JSON; :mod:`.report` makes the Markdown rows and the leaderboard
page; :mod:`.cli` and :mod:`.board` are the commands.
"""

from ..ranking.standings import BenchmarkFileError
from .protocol import (
    BENCHMARK_V1,
    PAGAT66_V1,
    PROTOCOLS,
    SANTASE_V1,
    SCHNAPSEN_VU_V1,
    Protocol,
    get_protocol,
    protocol_for_rules,
)
from .report import leaderboard, markdown_rows
from .run import (
    BenchmarkResult,
    Opponent,
    PairStore,
    benchmark,
    fit_against,
    fit_ladder,
    load_benchmark,
)

__all__ = [
    "BENCHMARK_V1",
    "PAGAT66_V1",
    "PROTOCOLS",
    "SANTASE_V1",
    "SCHNAPSEN_VU_V1",
    "BenchmarkFileError",
    "BenchmarkResult",
    "Opponent",
    "PairStore",
    "Protocol",
    "benchmark",
    "fit_against",
    "fit_ladder",
    "get_protocol",
    "leaderboard",
    "load_benchmark",
    "markdown_rows",
    "protocol_for_rules",
]
