"""What the package ships: trained policies by name, with their cards and figures.

The repository keeps them in ``checkpoints/`` (``NAME.npz`` beside its card
``NAME.md`` and learning curve ``NAME.png``); an installation carries the same
files as the package data ``sixtysix_env.checkpoints``, found here through
:mod:`importlib.resources`. So after a plain ``pip install``, from any folder::

    from sixtysix_env.agents import make_agent
    bot = make_agent("sixtysix-ppo")          # or "sixtysix-ppo:deterministic=false"

and ``sixtysix play/eval/serve --opponent sixtysix-ppo``, ``gymnasium.make(
"SixtySix-v0", opponent="sixtysix-ppo")`` and the AEC environment's
opponents take the name too. ``sixtysix agents`` lists every name with the
figures measured at export, read from each file's metadata (the one
machine-readable place they are kept; the command is
:mod:`sixtysix_env.agents.listing`).
"""

from __future__ import annotations

import functools
import importlib.resources
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The package the shipped policy files are installed as (see ``pyproject.toml``).
CHECKPOINTS_PACKAGE = "sixtysix_env.checkpoints"


@dataclass(frozen=True)
class ShippedPolicy:
    """One shipped policy file and the files beside it (``None`` where absent)."""

    name: str
    path: Path
    card: Path | None
    curve: Path | None


def _checkpoints_dir() -> Path | None:
    try:
        root = importlib.resources.files(CHECKPOINTS_PACKAGE)
    except ModuleNotFoundError:
        # A source checkout used without installing: the repository's checkpoints/ sits
        # beside the package (sixtysix_env/policy/ is two folders below it).
        root = Path(__file__).resolve().parents[2] / "checkpoints"
    # The loader reads real files; an installation from a zip archive is not supported.
    path = Path(str(root))
    return path if path.is_dir() else None


@functools.lru_cache(maxsize=1)
def shipped_policies() -> dict[str, ShippedPolicy]:
    """Every shipped policy by name (the file name without ``.npz``), in name order."""
    folder = _checkpoints_dir()
    if folder is None:
        return {}
    out = {}
    for npz in sorted(folder.glob("*.npz")):
        name = npz.stem
        card, curve = npz.with_suffix(".md"), npz.with_suffix(".png")
        out[name] = ShippedPolicy(
            name, npz, card if card.is_file() else None, curve if curve.is_file() else None
        )
    return out


def shipped_names() -> list[str]:
    return list(shipped_policies())


def policy_summary(path: str | os.PathLike) -> dict[str, Any]:
    """The headline figures of a policy file, from its metadata (checked on reading).

    ``steps``, ``rules`` (preset name), ``match_play`` (trained on whole matches),
    ``started_from`` (the policy whose weights training started from, or None),
    ``algorithm``, and ``against``: per opponent the game points per hand with its 95%
    interval and the number of paired deals, as measured at export (empty if the file
    has none).
    """
    from . import read_policy

    _, meta = read_policy(path)
    training = meta.get("training") or {}
    config = training.get("config") or {}
    at_export = (meta.get("evaluation") or {}).get("at_export") or {}
    against = {}
    for opp, f in (at_export.get("against") or {}).items():
        against[opp] = {
            "gp_per_hand": f.get("gp_per_hand"),
            "gp_ci95": f.get("gp_ci95"),
            "paired_deals": f.get("paired_deals"),
            "seed": f.get("seed"),
        }
    return {
        "name": meta.get("name"),
        "steps": training.get("steps"),
        "rules": meta.get("rule_preset") or (meta.get("rules") or {}).get("name"),
        "match_play": bool(config.get("match_play")),
        "started_from": config.get("init_policy"),
        "algorithm": training.get("algorithm"),
        "against": against,
    }


def figure(f: Mapping[str, Any]) -> str:
    ci = f.get("gp_ci95")
    interval = f" [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else ""
    return f"{f['gp_per_hand']:+.3f}{interval} over {f['paired_deals']:,} paired deals"


def headline(summary: Mapping[str, Any]) -> str:
    """``"vs random +1.763 [+1.748, +1.778] over 10,000 paired deals; vs heuristic ..."``."""
    parts = [f"vs {opp} {figure(f)}" for opp, f in summary["against"].items()]
    return "; ".join(parts) if parts else "no evaluation recorded at export"


#: An ``exported`` stamp as the exporters write it (UTC, ISO 8601): such stamps sort by time.
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@functools.lru_cache(maxsize=None)
def exported_at(name: str) -> str | None:
    """When a shipped policy was exported (its file's ``exported`` stamp, UTC,
    ``2026-12-07T07:59:55Z``), or None: not a shipped policy, or a file without such a
    stamp. The standings' rule for the strongest network prefers the one shipped first."""
    from . import read_policy

    policy = shipped_policies().get(name)
    if policy is None:
        return None
    stamp = read_policy(policy.path)[1].get("exported")
    return stamp if isinstance(stamp, str) and _STAMP.fullmatch(stamp) else None


@functools.lru_cache(maxsize=None)
def trained_preset(name: str) -> str | None:
    """The rule preset a shipped policy was trained for (None where its file records none)."""
    policy = shipped_policies().get(name)
    return None if policy is None else policy_summary(policy.path).get("rules")


def networks_for(preset: str) -> list[str]:
    """The shipped policies trained for ``preset``, in name order."""
    return [name for name in shipped_names() if trained_preset(name) == preset]
