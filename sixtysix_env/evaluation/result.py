"""The result of an evaluation: its figures per pair, ratings, and its JSON file.

The unit played is named as in the environments: ``"hand"`` (paired deals,
two hands each) or ``"match"`` (paired match seeds, two matches each).
:func:`~.play.normalize_mode` also takes the plural spellings (``"hands"``,
``"matches"``) that result files of format version 1 used, so those still
load with :func:`load_result`.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ..util.files import write_json
from . import report
from .play import normalize_mode

#: Version 2 writes the mode as "hand"/"match" (version 1: "hands"/"matches").
RESULT_FORMAT_VERSION = 2


@dataclass
class PairStats:
    """One pair's figures, from agent ``a``'s side."""

    a: str
    b: str
    #: Paired deals (hand mode) or paired match seeds (match mode) played.
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
    mode: str  # "hand" or "match" (see normalize_mode)
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
    #: The engine the games were played in: this project's, or the ``schnapsen``
    #: package's (``sixtysix eval --referee schnapsen``).
    referee: str = "sixtysix"

    def __post_init__(self) -> None:
        self.mode = normalize_mode(self.mode)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["format_version"] = RESULT_FORMAT_VERSION
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalResult:
        """The result a JSON file holds (format versions 1 and 2)."""
        version = data.get("format_version")
        if version not in (1, RESULT_FORMAT_VERSION):
            raise ValueError(
                f"unsupported evaluation result format_version {version!r}; "
                f"this version reads 1 and {RESULT_FORMAT_VERSION}"
            )
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        values["pairs"] = [PairStats(**p) for p in data.get("pairs", [])]
        return cls(**values)

    def save_json(self, path: str) -> None:
        """Write the figures to ``path`` whole or not at all (a temporary file, then a rename)."""
        write_json(path, self.to_dict())

    def pair(self, a: str, b: str) -> PairStats:
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
        raise KeyError(f"no pair {a!r} vs {b!r}")

    def table(self) -> str:
        return report.plain_table(self)


def load_result(path: str) -> EvalResult:
    """An evaluation result from its JSON file (also one written by an older version)."""
    with open(path, encoding="utf-8") as f:
        return EvalResult.from_dict(json.load(f))
