"""The checks of a training config's values, section by section.

:func:`check_config` runs the shared options' checks, then the backend's
section's (``sb3``: its games and rollouts; ``rllib``: its cluster and PPO
iteration); the first problem is a :class:`~.options.ConfigError` that
names the option, the value and what is allowed. :func:`coerce_value` checks
a value's type (msgspec's strict conversion: no booleans for numbers, no
numbers for strings, integers widened to floats).
"""

from __future__ import annotations

import dataclasses
import math
import typing
from typing import Any

import msgspec

from .options import (
    LEAGUE_BASELINES,
    MATCH_SCORES,
    PRECISIONS,
    ConfigError,
    RLlibConfig,
    RunConfig,
    SharedOptions,
    TrainConfig,
    show,
)


def coerce_value(tp: Any, value: Any) -> tuple[bool, Any]:
    """(matches, value converted) for a value read from YAML or an override.

    The check is msgspec's strict conversion. A number that plain PyYAML
    (YAML 1.1) reads as a string, such as ``3e-4``, is taken as the number
    where the option is one (:func:`read_yaml` reads it as a number already).
    """
    if type(value) is str and (tp is float or float in typing.get_args(tp)):
        try:
            number = float(value)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                value = number
    try:
        return True, msgspec.convert(value, tp, strict=True)
    except msgspec.ValidationError:
        return False, value


_CHOICES = {
    "lr_schedule": ("constant", "linear"),
    "activation": ("relu", "tanh"),
    "play_symmetry": (None, "suits"),
    "actor_symmetry": (None, "suits"),
}
_SHARED_POSITIVE = (
    "total_timesteps",
    "torch_threads",
    "batch_size",
    "n_epochs",
    "recent_snapshots",
    "max_snapshots",
    "bc_hands",
    "bc_workers",
    "bc_epochs",
    "bc_batch_size",
    "eval_deals",
)
#: Upper bounds: past them a value is a mistake (or an attack), not a bigger run.
_SHARED_AT_MOST = {
    "total_timesteps": 10**12,
    "torch_threads": 256,
    "batch_size": 1 << 20,
    "n_epochs": 1000,
    "recent_snapshots": 1000,
    "max_snapshots": 1000,
    "bc_hands": 10**8,
    "bc_workers": 256,
    "bc_epochs": 1000,
    "bc_batch_size": 1 << 20,
    "eval_deals": 10**7,
    "snapshot_every": 10**12,
    "eval_every": 10**12,
    "save_every": 10**12,
    "final_steps": 10**12,
}
MAX_HIDDEN_LAYERS = 15  # a policy file holds at most 16 layers
MAX_LAYER_WIDTH = 65536
_NON_NEGATIVE = (
    "snapshot_every",
    "eval_every",
    "save_every",
    "final_steps",
    "recent_weight",
    "older_weight",
    "ent_coef",
    "vf_coef",
)


#: The SB3 section's counts (at least 1) and upper bounds.
_SB3_POSITIVE = ("n_envs", "rollout_workers", "n_steps", "eval_workers")
_SB3_AT_MOST = {"n_envs": 1024, "rollout_workers": 256, "n_steps": 1 << 16, "eval_workers": 256}


def check_numbers(options: Any, at_most: dict[str, float], section: Any = None) -> None:
    """A :class:`ConfigError` for a number option of ``section`` (a dataclass; by default
    ``options``' own) that is not finite, or over its bound in ``at_most``."""
    for f in dataclasses.fields(section or options):
        value = getattr(options, f.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"option {f.name!r} got {value!r}; it must be a finite number")
    for key, most in at_most.items():
        value = getattr(options, key)
        if value is not None and value > most:
            raise ConfigError(f"option {key!r} got {value!r}; at most {most}")


def _check_bounds(cfg: SharedOptions) -> None:
    """Finite numbers, and sizes and counts within :data:`_AT_MOST`."""
    check_numbers(cfg, _SHARED_AT_MOST, SharedOptions)
    for key in ("baseline_weights", "final_baseline_weights"):
        weights = getattr(cfg, key)
        if weights is not None and not all(math.isfinite(w) for w in weights.values()):
            raise ConfigError(f"option {key!r} got {show(weights)}; weights must be finite")
    for key in ("net_arch", "critic_arch"):
        sizes = getattr(cfg, key)
        if sizes is not None and (
            len(sizes) > MAX_HIDDEN_LAYERS or any(n > MAX_LAYER_WIDTH for n in sizes)
        ):
            raise ConfigError(
                f"option {key!r} got {show(sizes)}; at most {MAX_HIDDEN_LAYERS} layers of "
                f"at most {MAX_LAYER_WIDTH} units"
            )


def _check_allowed(cfg: Any, choices: dict[str, tuple]) -> None:
    """Each option of ``choices`` holds one of its allowed values."""
    for key, allowed in choices.items():
        if getattr(cfg, key) not in allowed:
            raise ConfigError(
                f"option {key!r} got {getattr(cfg, key)!r}; allowed values: "
                + ", ".join("null" if a is None else repr(a) for a in allowed)
            )


def _check_choices(cfg: SharedOptions) -> None:
    """Options with a fixed set of allowed values, the rules preset among them."""
    from sixtysix_env.game.rules import PRESETS

    _check_allowed(cfg, {**_CHOICES, "rules": tuple(PRESETS)})


def _check_ranges(cfg: SharedOptions) -> None:
    """Counts at least 1 or not negative, rates and clips positive, gamma and lambda 0 to 1."""
    for key in _SHARED_POSITIVE:
        if getattr(cfg, key) < 1:
            raise ConfigError(f"option {key!r} got {getattr(cfg, key)!r}; it must be at least 1")
    for key in _NON_NEGATIVE:
        if getattr(cfg, key) < 0:
            raise ConfigError(f"option {key!r} got {getattr(cfg, key)!r}; it must not be negative")
    for key in ("learning_rate", "bc_learning_rate", "clip_range", "max_grad_norm"):
        if not getattr(cfg, key) > 0:
            raise ConfigError(f"option {key!r} got {getattr(cfg, key)!r}; it must be positive")
    for key in ("gamma", "gae_lambda"):
        if not 0 <= getattr(cfg, key) <= 1:
            raise ConfigError(f"option {key!r} got {getattr(cfg, key)!r}; allowed: 0 to 1")


def _check_architecture(cfg: SharedOptions) -> None:
    """The hidden layer sizes, and how they go with the symmetry options."""
    if not cfg.net_arch or any(n < 1 for n in cfg.net_arch):
        raise ConfigError(
            f"option 'net_arch' got {cfg.net_arch!r}; give one or more positive sizes"
        )
    if cfg.critic_arch is not None and (not cfg.critic_arch or any(n < 1 for n in cfg.critic_arch)):
        raise ConfigError(
            f"option 'critic_arch' got {cfg.critic_arch!r}; give one or more positive sizes, "
            "or null for the same as net_arch"
        )
    if cfg.actor_symmetry is not None and any(n < 5 for n in cfg.net_arch):
        raise ConfigError(
            f"option 'net_arch' got {cfg.net_arch!r}; with actor_symmetry every hidden layer "
            "needs at least 5 units (a fifth of them go to each suit)"
        )
    if cfg.actor_symmetry is not None and cfg.play_symmetry is not None:
        raise ConfigError(
            f"options 'actor_symmetry' ({cfg.actor_symmetry!r}) and 'play_symmetry' "
            f"({cfg.play_symmetry!r}) are both set: an actor symmetric by construction "
            "gives the same logits under every renaming, so averaging them changes nothing "
            "and costs 24 forward passes; set play_symmetry to null"
        )


def _check_opponent_weights(cfg: SharedOptions) -> None:
    """The baseline opponents' weights, and the final phase that switches to the second set."""
    for key in ("baseline_weights", "final_baseline_weights"):
        weights = getattr(cfg, key)
        if weights is not None and any(w < 0 for w in weights.values()):
            raise ConfigError(f"option {key!r} got {weights!r}; weights must not be negative")
    if sum(cfg.baseline_weights.values()) <= 0:
        raise ConfigError(
            "option 'baseline_weights' needs at least one opponent with a positive weight "
            "(the pool starts with the baselines only)"
        )
    if cfg.final_baseline_weights is not None and sum(cfg.final_baseline_weights.values()) <= 0:
        raise ConfigError(
            "option 'final_baseline_weights' needs at least one opponent with a positive weight, "
            "or null for baseline_weights throughout"
        )
    if (cfg.final_steps > 0) != (cfg.final_baseline_weights is not None):
        raise ConfigError(
            f"options 'final_steps' ({cfg.final_steps}) and 'final_baseline_weights' "
            f"({'null' if cfg.final_baseline_weights is None else show(cfg.final_baseline_weights)})"
            " go together: give both (steps > 0 and the "
            "weights), or neither (0 and null)"
        )


def _check_rollout(cfg: TrainConfig) -> None:
    """How the games, the rollout workers and the batch size fit together (SB3 rollouts)."""
    s, o = cfg.shared, cfg.sb3
    if o.batched_games and o.rollout_workers > 1:
        raise ConfigError(
            f"options 'batched_games' and 'rollout_workers' ({o.rollout_workers}) do not go "
            "together: the batched games run in one process; set rollout_workers to 1"
        )
    if o.n_envs % o.rollout_workers:
        raise ConfigError(
            f"option 'rollout_workers' ({o.rollout_workers}) must divide 'n_envs' "
            f"({o.n_envs}): each worker plays the same number of games"
        )
    if s.batch_size > o.n_envs * o.n_steps:
        raise ConfigError(
            f"option 'batch_size' ({s.batch_size}) is larger than a rollout "
            f"(n_envs * n_steps = {o.n_envs * o.n_steps})"
        )


def check_shared(cfg: SharedOptions) -> None:
    """The shared options' values, and those that must agree; the first problem raises."""
    _check_choices(cfg)
    _check_bounds(cfg)
    _check_ranges(cfg)
    _check_architecture(cfg)
    _check_opponent_weights(cfg)
    if cfg.best_metric not in cfg.eval_opponents:
        raise ConfigError(
            f"option 'best_metric' got {cfg.best_metric!r}; it must be one of eval_opponents "
            f"({', '.join(map(repr, cfg.eval_opponents))})"
        )
    if not cfg.eval_opponents:
        raise ConfigError("option 'eval_opponents' must name at least one opponent")
    if not cfg.name or "/" in cfg.name or cfg.name in (".", ".."):
        raise ConfigError(f"option 'name' got {cfg.name!r}; give a plain folder name")


def check_sb3(cfg: TrainConfig) -> None:
    """The SB3 section: its counts, its rollout, and how it goes with the shared options."""
    s, o = cfg.shared, cfg.sb3
    check_numbers(o, _SB3_AT_MOST)
    for key in _SB3_POSITIVE:
        if getattr(o, key) < 1:
            raise ConfigError(f"option {key!r} got {getattr(o, key)!r}; it must be at least 1")
    _check_rollout(cfg)
    _check_allowed(o, {"match_scores": MATCH_SCORES, "critic_precision": PRECISIONS,
                         "pool_precision": PRECISIONS})
    if o.critic_precision != "float32" and not (s.privileged_critic or s.actor_symmetry):
        raise ConfigError(
            f"option 'critic_precision' ({o.critic_precision!r}) sets the value network of the "
            "runs' own policy: set privileged_critic to true or actor_symmetry to 'suits', or "
            "leave critic_precision at 'float32'"
        )
    if o.pool_precision != "float32" and not o.batched_games:
        raise ConfigError(
            f"option 'pool_precision' ({o.pool_precision!r}) sets the pool's networks in the "
            "batched games: set batched_games to true as well, or leave pool_precision at "
            "'float32'"
        )
    if o.match_scores != "reach" and not o.match_play:
        raise ConfigError(
            f"option 'match_scores' ({o.match_scores!r}) deals match play's hands: set "
            "match_play to true as well, or leave match_scores at 'reach'"
        )
    if o.match_play and not o.batched_games:
        raise ConfigError(
            "option 'match_play' plays its hands on the batched engine: set batched_games "
            "to true as well (the [fast] extra)"
        )
    if o.win_bonus < 0:
        raise ConfigError(f"option 'win_bonus' got {o.win_bonus!r}; it must be 0 or more")
    if o.win_bonus and (o.match_play or not o.batched_games):
        raise ConfigError(
            f"option 'win_bonus' ({o.win_bonus!r}) adds to a hand's game points in the batched "
            "games: set batched_games to true and match_play to false, or leave win_bonus at 0"
        )
    if o.init_policy is not None and s.bc_teacher is not None:
        raise ConfigError(
            f"options 'init_policy' ({o.init_policy!r}) and 'bc_teacher' ({s.bc_teacher!r}) "
            "both set where PPO starts; give one of them (or neither)"
        )


#: Upper bounds of the RLlib section: past them a value is a mistake, not a bigger run.
_RLLIB_AT_MOST = {
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


def check_rllib(cfg: RLlibConfig) -> None:
    """The RLlib section: its counts, its batch, and the baselines its league can field."""
    train, o = cfg.shared, cfg.rllib

    def bad(key: str, msg: str) -> ConfigError:
        return ConfigError(f"option {key!r} got {getattr(o, key)!r}; {msg}")

    check_numbers(o, _RLLIB_AT_MOST)
    for key in ("num_envs_per_env_runner", "train_batch_size", "object_store_mb"):
        if getattr(o, key) < 1:
            raise bad(key, "it must be at least 1")
    for key in (
        "num_env_runners",
        "num_learners",
        "num_cpus_per_env_runner",
        "num_cpus_per_learner",
        "num_gpus_per_learner",
        "self_weight",
    ):
        if getattr(o, key) < 0:
            raise bad(key, "it must not be negative")
    if o.num_cpus is not None and o.num_cpus < 1:
        raise bad("num_cpus", "give at least 1, or null for all of this machine's")
    if train.batch_size > o.train_batch_size:
        raise ConfigError(
            f"option 'batch_size' ({train.batch_size}) is larger than a PPO iteration's "
            f"batch (train_batch_size = {o.train_batch_size})"
        )
    for key in ("baseline_weights", "final_baseline_weights"):
        for name, w in (getattr(train, key) or {}).items():
            if w > 0 and name not in LEAGUE_BASELINES:
                raise ConfigError(
                    f"option {key!r} names {name!r}; the rllib backend's league "
                    f"fields these baselines: {', '.join(LEAGUE_BASELINES)} (other agents can "
                    "still be evaluation opponents, in eval_opponents)"
                )
    if o.address is not None and not o.address.strip():
        raise bad("address", "give 'auto', 'host:port', 'ray://host:port', or null")


def check_config(cfg: RunConfig) -> None:
    """Every check of a backend's config: the shared options, then its section."""
    check_shared(cfg.shared)
    if isinstance(cfg, RLlibConfig):
        check_rllib(cfg)
    else:
        check_sb3(cfg)
