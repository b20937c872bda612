"""The opponent pool of self-play: baselines plus frozen snapshots of the learner.

Each episode (one hand) of each training game draws its opponent from the
pool with the configured weights: every baseline has its own weight, the
``recent_snapshots`` newest snapshots share ``recent_weight`` and the older
ones share ``older_weight``. A group with no member yet drops out and the
others are renormalised, so a run starts against the baselines alone.

Snapshots are exported numpy policies (:class:`sixtysix_env.policy.PolicyAgent`):
they play without torch, fast enough to sit inside the environment step,
and they are saved in the run folder so a resumed run gets its pool back.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sixtysix_env.agents import make_agent
from sixtysix_env.agents.base import Agent
from sixtysix_env.policy import PolicyAgent, load_policy

if TYPE_CHECKING:
    from ..config.loader import SharedOptions

#: Groups an opponent belongs to (for logging returns per group).
BASELINE, RECENT, OLDER = "baseline", "recent", "older"


@dataclass
class Snapshot:
    label: str  # e.g. "snap-000200000"
    path: str  # the .npz file, relative to the run folder
    steps: int
    agent: PolicyAgent


class OpponentPool:
    """Baselines and snapshots, sampled per episode with a seeded generator."""

    def __init__(
        self,
        baseline_weights: dict[str, float],
        recent_weight: float = 0.3,
        older_weight: float = 0.2,
        recent_snapshots: int = 3,
        max_snapshots: int = 20,
        snapshot_deterministic: bool = False,
        seed: int = 0,
    ) -> None:
        self.baseline_weights = dict(baseline_weights)
        self.baselines: dict[str, Agent] = {}
        self._make_agents(baseline_weights)
        self.recent_weight = recent_weight
        self.older_weight = older_weight
        self.recent_snapshots = recent_snapshots
        self.max_snapshots = max_snapshots
        self.snapshot_deterministic = snapshot_deterministic
        self.snapshots: list[Snapshot] = []
        self.rng = random.Random(f"sixtysix-pool:{seed}")
        self._table: list[tuple[float, str, str, Agent]] | None = None

    @classmethod
    def from_config(cls, cfg: SharedOptions) -> OpponentPool:
        """The pool a training config asks for (its shared options: both backends use it).

        The agents of ``final_baseline_weights`` are made now too, so that a name no agent
        has fails when the run starts, not at its end."""
        pool = cls(
            cfg.baseline_weights,
            recent_weight=cfg.recent_weight,
            older_weight=cfg.older_weight,
            recent_snapshots=cfg.recent_snapshots,
            max_snapshots=cfg.max_snapshots,
            snapshot_deterministic=cfg.snapshot_deterministic,
            seed=cfg.seed,
        )
        pool._make_agents(cfg.final_baseline_weights or {})
        return pool

    # -- members ---------------------------------------------------------------

    def set_baselines(self, baseline_weights: dict[str, float]) -> None:
        """The baselines and their weights from now on (``final_baseline_weights``); the
        snapshots keep theirs, and agents already made are kept."""
        self.baseline_weights = dict(baseline_weights)
        self._make_agents(baseline_weights)
        self._table = None

    def _make_agents(self, names) -> None:
        """An agent for each name that has none yet (a spec no agent has fails here)."""
        for name in names:
            if name not in self.baselines:
                self.baselines[name] = make_agent(name)

    def add_snapshot(self, label: str, path: str, steps: int, agent: PolicyAgent) -> None:
        agent.deterministic = self.snapshot_deterministic
        agent.name = label
        self.snapshots.append(Snapshot(label, path, steps, agent))
        while len(self.snapshots) > self.max_snapshots:
            self.snapshots.pop(0)
        self._table = None

    def replace_snapshots(self, snapshots: list[Snapshot]) -> None:
        """The snapshots from now on, oldest first (a rollout worker's copy of the
        training process's pool, :mod:`sixtysix_training.sb3.vec_env`)."""
        for s in snapshots:
            s.agent.deterministic = self.snapshot_deterministic
            s.agent.name = s.label
        self.snapshots = list(snapshots)[-self.max_snapshots :]
        self._table = None

    def load_snapshot(self, run_dir: str, label: str, path: str, steps: int) -> None:
        agent = load_policy(os.path.join(run_dir, path), deterministic=self.snapshot_deterministic)
        self.add_snapshot(label, path, steps, agent)

    def weights(self) -> list[tuple[float, str, str]]:
        """(probability, opponent label, group) of every member."""
        table = self._build()
        total = table[-1][0]
        out, prev = [], 0.0
        for cum, label, group, _ in table:
            out.append(((cum - prev) / total, label, group))
            prev = cum
        return out

    def _build(self) -> list[tuple[float, str, str, Agent]]:
        if self._table is None:
            rows: list[tuple[float, str, str, Agent]] = []
            for name, w in self.baseline_weights.items():
                if w > 0:
                    rows.append((w, name, BASELINE, self.baselines[name]))
            recent = self.snapshots[-self.recent_snapshots :] if self.snapshots else []
            older = self.snapshots[: len(self.snapshots) - len(recent)]
            for group, members, w in (
                (RECENT, recent, self.recent_weight),
                (OLDER, older, self.older_weight),
            ):
                if members and w > 0:
                    for s in members:
                        rows.append((w / len(members), s.label, group, s.agent))
            cum, table = 0.0, []
            for w, label, group, agent in rows:
                cum += w
                table.append((cum, label, group, agent))
            self._table = table
        return self._table

    def sample(self) -> tuple[str, str, Agent]:
        """(label, group, agent) of the next episode's opponent."""
        table = self._build()
        u = self.rng.random() * table[-1][0]
        for cum, label, group, agent in table:
            if u < cum:
                return label, group, agent
        _, label, group, agent = table[-1]
        return label, group, agent

    # -- saving ----------------------------------------------------------------

    def state(self) -> dict:
        """What a resumed run needs: the snapshot list and the generator's state."""
        return {
            "snapshots": [
                {"label": s.label, "path": s.path, "steps": s.steps} for s in self.snapshots
            ],
            "rng": _rng_to_json(self.rng.getstate()),
        }

    def restore(self, run_dir: str, state: dict) -> None:
        self.snapshots = []
        for s in state.get("snapshots", []):
            self.load_snapshot(run_dir, s["label"], s["path"], int(s["steps"]))
        if "rng" in state:
            self.rng.setstate(_rng_from_json(state["rng"]))
        self._table = None


def _rng_to_json(st) -> list:
    version, internal, gauss = st
    return [version, list(internal), gauss]


def _rng_from_json(st) -> tuple:
    version, internal, gauss = st
    return (version, tuple(internal), gauss)
