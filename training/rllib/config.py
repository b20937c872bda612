"""Options of the RLlib backend: the SB3 path's options that carry over, plus cluster and PPO keys.

A YAML file (``configs/rllib-*.yaml``) sets them. The shared options
(run name, seed, steps, rules, PPO settings, network, opponent pool weights,
evaluation, saving) mean what they mean in :class:`sixtysix_training.config.TrainConfig`
and are checked by its code; the keys below are the RLlib ones. An option of
the SB3 path that this backend cannot honour (behaviour cloning, ``n_envs``,
...) is refused by name rather than ignored, and so is any unknown key.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, field
from typing import Any

from sixtysix_env.files import write_text

from .. import config as sb3_config
from ..config import (
    ConfigError,
    TrainConfig,
    check_numbers,
    coerce_value,
    field_docs,
    type_name,
)

#: SB3-path options this backend does not use, and what to use instead.
UNSUPPORTED: dict[str, str] = {
    "n_envs": "use num_env_runners and num_envs_per_env_runner",
    "rollout_workers": "use num_env_runners (sampling processes)",
    "batched_games": "the env runners step their own games (docs/rllib.md)",
    "n_steps": "use train_batch_size (environment steps per PPO iteration)",
    "target_kl": "RLlib's PPO has no early stop on KL; leave it out",
    "progress_bar": "the RLlib backend prints one line per iteration",
    "eval_workers": "evaluation runs in the driver process",
    "init_policy": "starting from a policy file's weights is built for the SB3 backend only",
    "match_play": "match play is built for the SB3 backend's batched games only",
}

#: Baselines the league can field as RLlib modules (see :mod:`.modules`).
LEAGUE_BASELINES = ("random", "heuristic")


@dataclass
class RLlibOptions:
    # -- where it runs ------------------------------------------------------------
    address: str | None = None
    """Ray cluster to join: null (the RAY_ADDRESS variable, else a local Ray started here), 'auto', 'host:port' or 'ray://host:port'."""
    num_cpus: int | None = None
    """CPUs of the local Ray started when no address is given (null: all of this machine's)."""
    object_store_mb: int = 256
    """Object store size of the local Ray, in MiB (small: only weights and batches pass through it)."""
    num_env_runners: int = 0
    """Sampling processes (Ray actors); 0 samples in the driver process."""
    num_envs_per_env_runner: int = 16
    """Games each env runner plays side by side (one batched network call for all)."""
    num_cpus_per_env_runner: float = 1.0
    """CPUs Ray reserves for each env runner."""
    num_learners: int = 0
    """Learner processes (0: learn in the driver; more: data-parallel learners, e.g. one per GPU)."""
    num_cpus_per_learner: float = 1.0
    """CPUs Ray reserves for each learner."""
    num_gpus_per_learner: float = 0.0
    """GPUs for each learner (0: CPU)."""

    # -- PPO -------------------------------------------------------------------------
    train_batch_size: int = 4096
    """Environment steps sampled per PPO iteration (per learner)."""
    self_weight: float = 0.0
    """Weight of mirror games (the learner on both seats, both seats' moves training it), on the scale where the pool's opponents together weigh 1."""


RLLIB_FIELDS = tuple(f.name for f in dataclasses.fields(RLlibOptions))
SHARED_FIELDS = tuple(f.name for f in dataclasses.fields(TrainConfig) if f.name not in UNSUPPORTED)


@dataclass
class RLlibConfig:
    """A checked configuration: the shared options (``train``) and the RLlib ones (``rllib``)."""

    train: TrainConfig
    rllib: RLlibOptions = field(default_factory=RLlibOptions)
    given: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"backend": "rllib"}
        for k in SHARED_FIELDS:
            out[k] = getattr(self.train, k)
        for k in RLLIB_FIELDS:
            out[k] = getattr(self.rllib, k)
        return out


def _rllib_docs() -> dict[str, str]:
    import ast
    import inspect
    import itertools

    tree = ast.parse(inspect.getsource(RLlibOptions))
    docs = {}
    for node, nxt in itertools.pairwise(tree.body[0].body):  # type: ignore[attr-defined]
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr):
            docs[node.target.id] = " ".join(str(nxt.value.value).split())  # type: ignore
    return docs


def describe_options() -> str:
    """Every option of this backend with its type, default and meaning."""
    import typing

    lines = ["# shared with the SB3 backend (training/config.py):"]
    docs, hints, d = field_docs(), typing.get_type_hints(TrainConfig), TrainConfig()
    for k in SHARED_FIELDS:
        lines.append(f"{k}: {type_name(hints[k])} = {getattr(d, k)!r}")
        lines.append(f"    {docs.get(k, '')}")
    lines.append("# RLlib backend only:")
    rdocs, rhints, rd = _rllib_docs(), typing.get_type_hints(RLlibOptions), RLlibOptions()
    for k in RLLIB_FIELDS:
        lines.append(f"{k}: {type_name(rhints[k])} = {getattr(rd, k)!r}")
        lines.append(f"    {rdocs.get(k, '')}")
    return "\n".join(lines)


def config_from_dict(values: dict[str, Any], source: str = "config") -> RLlibConfig:
    """A checked :class:`RLlibConfig` from a mapping of option names to values."""
    import typing

    if not isinstance(values, dict):
        raise ConfigError(f"{source}: expected a mapping of option names to values")
    values = dict(values)
    backend = values.pop("backend", "rllib")
    if backend != "rllib":
        raise ConfigError(f"{source}: option 'backend' got {backend!r}; this loader reads 'rllib'")
    for k in values:
        if k in UNSUPPORTED:
            raise ConfigError(
                f"{source}: option {k!r} is not supported by the rllib backend ({UNSUPPORTED[k]})"
            )
        if k not in SHARED_FIELDS and k not in RLLIB_FIELDS:
            allowed = ("backend",) + SHARED_FIELDS + RLLIB_FIELDS
            close = difflib.get_close_matches(str(k), allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(
                f"{source}: unknown option {k!r}{hint}; allowed options: {', '.join(allowed)}"
            )
    shared = {k: v for k, v in values.items() if k in SHARED_FIELDS}
    # The rollout here is train_batch_size (checked below), not n_envs * n_steps.
    train = sb3_config.config_from_dict(shared, source, rollout=False)
    hints = typing.get_type_hints(RLlibOptions)
    kwargs = {}
    for k in RLLIB_FIELDS:
        if k in values:
            ok, v = coerce_value(hints[k], values[k])
            if not ok:
                raise ConfigError(
                    f"{source}: option {k!r} must be {type_name(hints[k])}, got {values[k]!r}"
                )
            kwargs[k] = v
    opts = RLlibOptions(**kwargs)
    _check(train, opts, source)
    return RLlibConfig(train, opts, tuple(values))


#: Upper bounds: past them a value is a mistake, not a bigger run.
_AT_MOST = {
    "num_env_runners": 1024,
    "num_envs_per_env_runner": 1024,
    "num_learners": 1024,
    "train_batch_size": 1 << 24,
    "object_store_mb": 1 << 22,
    "num_cpus": 1 << 16,
    "num_cpus_per_env_runner": 1024,
    "num_cpus_per_learner": 1024,
    "num_gpus_per_learner": 64,
}


def _check(train: TrainConfig, o: RLlibOptions, source: str) -> None:
    def bad(key: str, msg: str) -> ConfigError:
        return ConfigError(f"{source}: option {key!r} got {getattr(o, key)!r}; {msg}")

    try:
        check_numbers(o, _AT_MOST)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None
    for key in ("num_envs_per_env_runner", "train_batch_size", "object_store_mb"):
        if getattr(o, key) < 1:
            raise bad(key, "it must be at least 1")
    for key in ("num_env_runners", "num_learners"):
        if getattr(o, key) < 0:
            raise bad(key, "it must not be negative")
    for key in ("num_cpus_per_env_runner", "num_cpus_per_learner", "num_gpus_per_learner"):
        if getattr(o, key) < 0:
            raise bad(key, "it must not be negative")
    if o.num_cpus is not None and o.num_cpus < 1:
        raise bad("num_cpus", "give at least 1, or null for all of this machine's")
    if o.self_weight < 0:
        raise bad("self_weight", "it must not be negative")
    if train.batch_size > o.train_batch_size:
        raise ConfigError(
            f"{source}: option 'batch_size' ({train.batch_size}) is larger than a PPO iteration's "
            f"batch (train_batch_size = {o.train_batch_size})"
        )
    for key in ("baseline_weights", "final_baseline_weights"):
        for name, w in (getattr(train, key) or {}).items():
            if w > 0 and name not in LEAGUE_BASELINES:
                raise ConfigError(
                    f"{source}: option {key!r} names {name!r}; the rllib backend's league "
                    f"fields these baselines: {', '.join(LEAGUE_BASELINES)} (other agents can "
                    "still be evaluation opponents, in eval_opponents)"
                )
    if o.address is not None and not o.address.strip():
        raise bad("address", "give 'auto', 'host:port', 'ray://host:port', or null")


def load_config(path: str | None = None, overrides: list[str] | None = None) -> RLlibConfig:
    """Read a YAML config (a file or a shipped config's name; or the defaults), then overrides."""
    from ..config import read_config_values

    return config_from_dict(*read_config_values(path, overrides))


def save_config(cfg: RLlibConfig, path: str) -> None:
    """The resolved config, every option, as YAML a resume reads back."""
    import yaml

    docs = {**field_docs(), **_rllib_docs()}
    lines = ["# Resolved RLlib training configuration (see training/rllib/config.py)."]
    for k, v in cfg.to_dict().items():
        if k in docs:
            lines.append(f"# {docs[k]}")
        text = yaml.safe_dump(v, default_flow_style=True, width=10**6, sort_keys=False)
        lines.append(f"{k}: {text.strip().removesuffix(chr(10) + '...').strip()}")
    write_text(path, "\n".join(lines) + "\n")
