"""Every training option, in one dataclass; YAML files in ``configs/`` set its fields.

The configs in ``configs/`` ship with the package (``sixtysix_training.configs``)
and are found by name: ``sixtysix train --config quickstart`` (see
:func:`resolve_config`); a path to any YAML file works too.

Each field carries its documentation in its metadata (``doc``);
``sixtysix train --list-options`` prints it. A YAML file's keys must be
field names, and each value must have the field's type (checked by
msgspec's strict conversion: no booleans for numbers, no numbers for
strings, integers widened to floats): an unknown key or a wrong type is a
:class:`ConfigError` naming the key and what is allowed. YAML is read with
YAML 1.2's numbers, so ``3e-4`` is a number (PyYAML alone reads YAML 1.1,
where it is a string).
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import math
import os
import re
import reprlib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import yaml

from sixtysix_env.errors import SixtySixError
from sixtysix_env.files import write_text


class ConfigError(SixtySixError, ValueError):
    """A configuration file or override that names an unknown option or gives a wrong value."""


def _opt(default: Any, doc: str) -> Any:
    """A config field with its documentation (a list or mapping: ``field(default_factory=...)``
    with the same ``doc`` metadata, so each config gets its own)."""
    return field(default=default, metadata={"doc": doc})


@dataclass
class TrainConfig:
    """Every training option; ``sixtysix train --list-options`` prints their docs."""

    # -- the run ---------------------------------------------------------------
    name: str = _opt("run", "Name of the run; its folder is ``runs_dir/name``.")
    runs_dir: str = _opt("runs", "Folder holding run folders (relative to the working directory).")
    seed: int = _opt(
        0,
        "Seed of everything random in the run: network initialisation, deals, opponent choices.",
    )
    total_timesteps: int = _opt(
        200_000,
        "Learner decisions (environment steps) to train for, behaviour cloning not included.",
    )
    rules: str = _opt("altmisalti", "Rule preset the policy learns (altmisalti, pagat66, santase).")
    torch_threads: int = _opt(
        1,
        "Threads torch may use. A run repeats bit for bit with the same seed and number "
        "of threads (one and two give different weights); two gave a 512-512 run 1.27x "
        "to 1.36x the learner steps/s on 2 quiet cores (research/notes/learning.md).",
    )
    progress_bar: bool = _opt(True, "Show a progress bar while training.")

    # -- MaskablePPO -------------------------------------------------------------
    n_envs: int = _opt(
        32,
        "Games played side by side; one batched network call picks all their actions.",
    )
    rollout_workers: int = _opt(
        1,
        "Shares of the n_envs games stepped at once: the training process plays one, each "
        "other share a worker process of its own (1: all games here). Worth it where the "
        "pool holds a search bot (1.24x with expert:samples=16 at weight 0.15 on 2 cores, 0.90x "
        "with the ordinary pool; research/notes/learning.md). Each share draws its own opponents, so a run "
        "repeats with the same seed and number of shares, and 1 and 2 give different runs.",
    )
    batched_games: bool = _opt(
        False,
        "Play the n_envs games on the batched engine (sixtysix_env.batched, the [fast] extra): "
        "all in lock-step, each opponent moving in all its games with one call (the pool's "
        "networks as one matrix product, random and heuristic compiled, a search bot game by "
        "game). The same game, other deals: a run does not repeat one without it move for move. "
        "Not with rollout_workers above 1.",
    )
    match_play: bool = _opt(
        False,
        "Deal each training hand at a match score drawn as often as matches between equal "
        "players reach it, and reward it by the change in the learner's chance to win the "
        "match (times the match target) instead of its game points (training/match_equity.py). "
        "Needs batched_games.",
    )
    n_steps: int = _opt(128, "Steps per game between updates (rollout size = n_envs * n_steps).")
    batch_size: int = _opt(1024, "Minibatch size of the PPO update.")
    n_epochs: int = _opt(4, "Passes over each rollout in the PPO update.")
    learning_rate: float = _opt(3e-4, "Adam step size (at the start, with lr_schedule 'linear').")
    lr_schedule: str = _opt("constant", "'constant', or 'linear' (decays to 0 at total_timesteps).")
    gamma: float = _opt(1.0, "Discount factor; a hand is short and its score counts in full, so 1.")
    gae_lambda: float = _opt(0.95, "GAE lambda of the advantage estimate.")
    clip_range: float = _opt(0.2, "PPO clip range of the probability ratio.")
    ent_coef: float = _opt(0.01, "Weight of the entropy bonus.")
    vf_coef: float = _opt(0.5, "Weight of the value loss.")
    max_grad_norm: float = _opt(0.5, "Gradient norm clip.")
    target_kl: float | None = _opt(
        None,
        "Stop an update's epochs early past this KL divergence (null: never).",
    )
    net_arch: list[int] = field(
        default_factory=lambda: [256, 256],
        metadata={
            "doc": "Hidden layer sizes of the policy and (separately, unless critic_arch) the "
            "value network."
        },
    )
    critic_arch: list[int] | None = _opt(
        None,
        "Hidden layer sizes of the value network alone (null: the same as net_arch). The "
        "value network is trained but never exported, so a wide actor can keep a narrower, "
        "cheaper critic.",
    )
    activation: str = _opt("relu", "Hidden activation: 'relu' or 'tanh'.")

    # -- what speeds learning up (both backends; sixtysix_training.learning) -------
    suit_augment: bool = _opt(
        False,
        "Show each training episode to the learner under one of the 24 renamings of the suits, "
        "drawn at random (observation, mask and action through the renaming's index maps); "
        "cloning data too. The suits are interchangeable, so this is the same game renamed.",
    )
    privileged_critic: bool = _opt(
        False,
        "Let the value network also see the hidden cards (the opponent's hand, the stock in "
        "drawing order); the actor, and so the exported policy, sees only its information set.",
    )
    actor_symmetry: str | None = _opt(
        None,
        "'suits': the actor's layers share their weights across the four suits (per-suit and "
        "global channels; each hidden layer of net_arch gives a fifth of its units to each "
        "suit and the rest to global ones), so its policy is the same under every renaming "
        "of the suits by construction, in one forward pass. The exported file is an ordinary "
        "policy (a dense network with tied weights). null: a plain actor.",
    )

    # -- opponents (self-play pool) -------------------------------------------
    baseline_weights: dict[str, float] = field(
        default_factory=lambda: {"random": 0.1, "heuristic": 0.4},
        metadata={"doc": "Baseline opponents (agent names or specs) and their sampling weights."},
    )
    final_baseline_weights: dict[str, float] | None = _opt(
        None,
        "Baseline opponents and their weights for the run's last ``final_steps`` learner "
        "steps, in place of baseline_weights (the snapshots keep theirs): e.g. a cheap search "
        "bot to exploit at the end. null: baseline_weights throughout.",
    )
    final_steps: int = _opt(
        0,
        "How many learner steps at the end of the run play against final_baseline_weights "
        "(from total_timesteps - final_steps on; 0: none).",
    )
    recent_weight: float = _opt(
        0.3,
        "Sampling weight shared by the ``recent_snapshots`` newest snapshots of the learner.",
    )
    older_weight: float = _opt(
        0.2,
        "Sampling weight shared by the older snapshots (weights of absent groups are dropped).",
    )
    recent_snapshots: int = _opt(3, "How many of the newest snapshots count as recent.")
    max_snapshots: int = _opt(
        20,
        "Most snapshots kept in the pool; past it, the oldest is dropped.",
    )
    snapshot_every: int = _opt(
        100_000,
        "Steps between frozen snapshots of the learner joining the pool (0: never).",
    )
    snapshot_deterministic: bool = _opt(
        False,
        "Snapshots play their argmax (true) or sample from their policy (false).",
    )

    # -- warm start from a policy file -----------------------------------------------
    init_policy: str | None = _opt(
        None,
        "Policy file (or shipped policy name, e.g. 'sixtysix-ppo') whose weights start PPO's "
        "actor; net_arch and activation must match it. Its own play (bc_hands hands against "
        "bc_opponent) fits the value network first. null: a fresh network.",
    )

    # -- warm start by behaviour cloning -------------------------------------------
    bc_teacher: str | None = _opt(
        None,
        "Agent to imitate before PPO (e.g. 'heuristic', 'expert:samples=8'); null: no cloning.",
    )
    bc_hands: int = _opt(
        20_000,
        "Hands the teacher plays (both seats recorded) to make the cloning data set.",
    )
    bc_opponent: str = _opt(
        "teacher",
        "Who the teacher plays against while recording: 'teacher' (itself) or an agent name.",
    )
    bc_workers: int = _opt(
        1,
        "Processes that play the cloning hands (a search teacher such as 'expert' takes most "
        "of the time); the data are the same for any number.",
    )
    bc_epochs: int = _opt(5, "Passes over the cloning data set.")
    bc_batch_size: int = _opt(512, "Minibatch size of behaviour cloning.")
    bc_learning_rate: float = _opt(1e-3, "Adam step size of behaviour cloning.")
    bc_value: bool = _opt(True, "Also fit the value network to the recorded hands' outcomes.")

    # -- evaluation and saving ---------------------------------------------------
    eval_every: int = _opt(
        100_000,
        "Steps between evaluations on paired deals (0: only at the end).",
    )
    eval_deals: int = _opt(
        500,
        "Paired deals (two hands each) per baseline opponent at each evaluation.",
    )
    eval_opponents: list[str] = field(
        default_factory=lambda: ["random", "heuristic"],
        metadata={"doc": "Opponents of the periodic evaluation (agent names or specs)."},
    )
    eval_seed: int = _opt(
        2024,
        "Seed of the evaluation deals (the same deals every time, so evaluations compare).",
    )
    eval_workers: int = _opt(
        1,
        "Worker processes for evaluation (1 keeps it in the training process).",
    )
    best_metric: str = _opt(
        "heuristic",
        "The best model is the one with the highest game points per hand against this opponent.",
    )
    play_symmetry: str | None = _opt(
        None,
        "'suits': the policy this run evaluates, keeps as best and exports plays the mean of "
        "the actor's logits over the 24 renamings of the suits (a policy file with a "
        "symmetry: 24 forward passes per decision); training and the pool's snapshots are "
        "unchanged. null: the actor as it is (one forward pass). Changed on --resume, it "
        "changes what the best score measures: add --reset-best.",
    )
    save_every: int = _opt(
        100_000,
        "Steps between saves of the latest model (resumable); it is also saved at the end.",
    )

    @property
    def value_arch(self) -> list[int]:
        """The value network's hidden layer sizes: ``critic_arch``, else ``net_arch``."""
        return list(self.net_arch if self.critic_arch is None else self.critic_arch)

    @property
    def network_text(self) -> str:
        """The networks as a run's start line names them (both backends)."""
        critic = f" (critic {self.value_arch})" if self.critic_arch is not None else ""
        return f"network {self.net_arch} {self.activation}{critic}"


#: Options a resumed run cannot change, whatever the backend: the saved network was built
#: with them.
FIXED_ON_RESUME = (
    "net_arch",
    "critic_arch",
    "activation",
    "rules",
    "privileged_critic",
    "actor_symmetry",
)


# -- field documentation ------------------------------------------------------------


def field_docs() -> dict[str, str]:
    """Each field's documentation (its ``doc`` metadata)."""
    return {f.name: f.metadata.get("doc", "") for f in dataclasses.fields(TrainConfig)}


def describe_options() -> str:
    """A listing of every option: name, type, default, docstring."""
    docs = field_docs()
    hints = typing.get_type_hints(TrainConfig)
    defaults = TrainConfig()
    lines = []
    for f in dataclasses.fields(TrainConfig):
        lines.append(f"{f.name}: {type_name(hints[f.name])} = {getattr(defaults, f.name)!r}")
        lines.append(f"    {docs.get(f.name, '')}")
    return "\n".join(lines)


# -- checking values -------------------------------------------------------------------


def type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        return " | ".join("null" if a is type(None) else type_name(a) for a in typing.get_args(tp))
    if origin is list:
        return f"list of {type_name(typing.get_args(tp)[0])}"
    if origin is dict:
        k, v = typing.get_args(tp)
        return f"mapping of {type_name(k)} to {type_name(v)}"
    return {int: "integer", float: "number", bool: "true/false", str: "string"}.get(tp, str(tp))


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


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, with YAML 1.2's floats: ``3e-4`` and ``1E5`` are numbers."""


# YAML 1.1 (PyYAML's) needs a dot in a float; YAML 1.2 does not. Same as
# PyYAML's float pattern, with the dot made optional before an exponent.
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
        |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.VERBOSE,
    ),
    list("-+0123456789."),
)


#: Limits of a config's YAML: a training config is a few dozen lines.
MAX_CONFIG_BYTES = 1 << 20
MAX_YAML_DEPTH = 32
MAX_YAML_VALUES = 100_000  # counting each alias as the copy it stands for

# Error messages show values through this: bounded, whatever the value.
_repr = reprlib.Repr()
_repr.maxlevel, _repr.maxlist, _repr.maxdict, _repr.maxstring, _repr.maxother = 3, 8, 8, 80, 80
_show = _repr.repr


def _compose_bounded(loader: _Loader, parent: Any = None, index: Any = None) -> Any:
    depth = getattr(loader, "_depth", 0)
    if depth >= MAX_YAML_DEPTH:
        raise ConfigError(f"the YAML nests deeper than {MAX_YAML_DEPTH} levels")
    loader._depth = depth + 1  # type: ignore[attr-defined]
    try:
        return yaml.composer.Composer.compose_node(loader, parent, index)
    finally:
        loader._depth = depth  # type: ignore[attr-defined]


_Loader.compose_node = _compose_bounded  # type: ignore[method-assign]


def _expanded_size(node: yaml.Node, memo: dict[int, int]) -> int:
    """How many values ``node`` stands for once every alias is copied out (a "billion
    laughs" document of 300 bytes stands for 10^9)."""
    known = memo.get(id(node))
    if known is not None:
        return known
    memo[id(node)] = 1  # a cycle (an alias inside its own anchor) counts once
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(v, memo) for v in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, memo) + _expanded_size(v, memo) for k, v in node.value)
    memo[id(node)] = size = min(size, MAX_YAML_VALUES + 1)
    return size


def read_yaml(stream: Any) -> Any:
    """A YAML document (a string or an open file), safely, with YAML 1.2's numbers.

    Bounded: at most :data:`MAX_CONFIG_BYTES` of text, :data:`MAX_YAML_DEPTH`
    levels and :data:`MAX_YAML_VALUES` values with aliases expanded; beyond
    them a :class:`ConfigError`.
    """
    text = stream if isinstance(stream, str) else stream.read(MAX_CONFIG_BYTES + 1)
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigError(f"the YAML is over {MAX_CONFIG_BYTES} characters; a config is a few lines")
    loader = _Loader(text)  # a SafeLoader
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}) > MAX_YAML_VALUES:
            raise ConfigError(
                f"the YAML stands for more than {MAX_YAML_VALUES} values once its aliases "
                "are expanded; a config is a few lines"
            )
        return loader.construct_document(node)
    finally:
        loader.dispose()


_CHOICES = {
    "lr_schedule": ("constant", "linear"),
    "activation": ("relu", "tanh"),
    "play_symmetry": (None, "suits"),
    "actor_symmetry": (None, "suits"),
}
_POSITIVE = (
    "total_timesteps",
    "torch_threads",
    "n_envs",
    "rollout_workers",
    "n_steps",
    "batch_size",
    "n_epochs",
    "recent_snapshots",
    "max_snapshots",
    "bc_hands",
    "bc_workers",
    "bc_epochs",
    "bc_batch_size",
    "eval_deals",
    "eval_workers",
)
#: Upper bounds: past them a value is a mistake (or an attack), not a bigger run.
_AT_MOST = {
    "total_timesteps": 10**12,
    "torch_threads": 256,
    "n_envs": 1024,
    "rollout_workers": 256,
    "n_steps": 1 << 16,
    "batch_size": 1 << 20,
    "n_epochs": 1000,
    "recent_snapshots": 1000,
    "max_snapshots": 1000,
    "bc_hands": 10**8,
    "bc_workers": 256,
    "bc_epochs": 1000,
    "bc_batch_size": 1 << 20,
    "eval_deals": 10**7,
    "eval_workers": 256,
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


def check_numbers(options: Any, at_most: dict[str, float]) -> None:
    """A :class:`ConfigError` for a number option of the dataclass ``options`` that is not
    finite, or over its bound in ``at_most`` (both backends' options)."""
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"option {f.name!r} got {value!r}; it must be a finite number")
    for key, most in at_most.items():
        value = getattr(options, key)
        if value is not None and value > most:
            raise ConfigError(f"option {key!r} got {value!r}; at most {most}")


def _check_bounds(cfg: TrainConfig) -> None:
    """Finite numbers, and sizes and counts within :data:`_AT_MOST`."""
    check_numbers(cfg, _AT_MOST)
    for key in ("baseline_weights", "final_baseline_weights"):
        weights = getattr(cfg, key)
        if weights is not None and not all(math.isfinite(w) for w in weights.values()):
            raise ConfigError(f"option {key!r} got {_show(weights)}; weights must be finite")
    for key in ("net_arch", "critic_arch"):
        sizes = getattr(cfg, key)
        if sizes is not None and (
            len(sizes) > MAX_HIDDEN_LAYERS or any(n > MAX_LAYER_WIDTH for n in sizes)
        ):
            raise ConfigError(
                f"option {key!r} got {_show(sizes)}; at most {MAX_HIDDEN_LAYERS} layers of "
                f"at most {MAX_LAYER_WIDTH} units"
            )


def _check_choices(cfg: TrainConfig) -> None:
    """Options with a fixed set of allowed values, the rules preset among them."""
    from sixtysix_env.rules import PRESETS

    for key, allowed in _CHOICES.items():
        if getattr(cfg, key) not in allowed:
            raise ConfigError(
                f"option {key!r} got {getattr(cfg, key)!r}; allowed values: "
                + ", ".join("null" if a is None else repr(a) for a in allowed)
            )
    if cfg.rules not in PRESETS:
        raise ConfigError(
            f"option 'rules' got {cfg.rules!r}; allowed values: {', '.join(map(repr, PRESETS))}"
        )


def _check_ranges(cfg: TrainConfig) -> None:
    """Counts at least 1 or not negative, rates and clips positive, gamma and lambda 0 to 1."""
    for key in _POSITIVE:
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


def _check_architecture(cfg: TrainConfig) -> None:
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


def _check_opponent_weights(cfg: TrainConfig) -> None:
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
            f"({'null' if cfg.final_baseline_weights is None else _show(cfg.final_baseline_weights)})"
            " go together: give both (steps > 0 and the "
            "weights), or neither (0 and null)"
        )


def _check_rollout(cfg: TrainConfig) -> None:
    """How the games, the rollout workers and the batch size fit together (SB3 rollouts)."""
    if cfg.batched_games and cfg.rollout_workers > 1:
        raise ConfigError(
            f"options 'batched_games' and 'rollout_workers' ({cfg.rollout_workers}) do not go "
            "together: the batched games run in one process; set rollout_workers to 1"
        )
    if cfg.n_envs % cfg.rollout_workers:
        raise ConfigError(
            f"option 'rollout_workers' ({cfg.rollout_workers}) must divide 'n_envs' "
            f"({cfg.n_envs}): each worker plays the same number of games"
        )
    if cfg.batch_size > cfg.n_envs * cfg.n_steps:
        raise ConfigError(
            f"option 'batch_size' ({cfg.batch_size}) is larger than a rollout "
            f"(n_envs * n_steps = {cfg.n_envs * cfg.n_steps})"
        )


def _check_values(cfg: TrainConfig, rollout: bool = True) -> None:
    """Each option's value, and the options that must agree; the first problem raises."""
    _check_choices(cfg)
    _check_bounds(cfg)
    _check_ranges(cfg)
    _check_architecture(cfg)
    _check_opponent_weights(cfg)
    if rollout:
        _check_rollout(cfg)
    if cfg.best_metric not in cfg.eval_opponents:
        raise ConfigError(
            f"option 'best_metric' got {cfg.best_metric!r}; it must be one of eval_opponents "
            f"({', '.join(map(repr, cfg.eval_opponents))})"
        )
    if not cfg.eval_opponents:
        raise ConfigError("option 'eval_opponents' must name at least one opponent")
    if cfg.match_play and not cfg.batched_games:
        raise ConfigError(
            "option 'match_play' plays its hands on the batched engine: set batched_games "
            "to true as well (the [fast] extra)"
        )
    if cfg.init_policy is not None and cfg.bc_teacher is not None:
        raise ConfigError(
            f"options 'init_policy' ({cfg.init_policy!r}) and 'bc_teacher' ({cfg.bc_teacher!r}) "
            "both set where PPO starts; give one of them (or neither)"
        )
    if not cfg.name or "/" in cfg.name or cfg.name in (".", ".."):
        raise ConfigError(f"option 'name' got {cfg.name!r}; give a plain folder name")


def config_from_dict(
    values: dict[str, Any], source: str = "config", rollout: bool = True
) -> TrainConfig:
    """A checked :class:`TrainConfig` from a mapping of option names to values.

    ``rollout``: whether ``n_envs * n_steps`` is the rollout that ``batch_size``
    divides (the SB3 backend's; the RLlib backend checks its ``train_batch_size``)."""
    if not isinstance(values, dict):
        raise ConfigError(
            f"{source}: expected a mapping of option names to values, got {type(values).__name__}"
        )
    values = dict(values)
    backend = values.pop("backend", "sb3")
    if backend != "sb3":
        raise ConfigError(
            f"{source}: option 'backend' got {_show(backend)}; this loader reads the sb3 backend's "
            f"configs (backends: {', '.join(BACKENDS)}; for rllib use --backend rllib)"
        )
    hints = typing.get_type_hints(TrainConfig)
    names = [f.name for f in dataclasses.fields(TrainConfig)]
    unknown = [k for k in values if k not in hints]
    if unknown:
        import difflib

        k = unknown[0]
        close = difflib.get_close_matches(str(k)[:100], names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(
            f"{source}: unknown option {_show(k)}{hint}; allowed options: {', '.join(names)}"
        )
    kwargs = {}
    for key, value in values.items():
        ok, v = coerce_value(hints[key], value)
        if not ok:
            raise ConfigError(
                f"{source}: option {key!r} must be {type_name(hints[key])}, got {_show(value)} "
                f"({type(value).__name__})"
            )
        kwargs[key] = v
    cfg = TrainConfig(**kwargs)
    try:
        _check_values(cfg, rollout)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None
    return cfg


def parse_override(text: str) -> tuple[str, Any]:
    """``"key=value"`` (value in YAML syntax) -> (key, value)."""
    key, eq, raw = text.partition("=")
    if not eq or not key.strip():
        raise ConfigError(f"override {text!r} must look like key=value")
    try:
        value = read_yaml(raw) if raw.strip() else None
    except yaml.YAMLError as e:
        raise ConfigError(f"override {_show(text)}: the value is not valid YAML ({e})") from None
    except ConfigError as e:
        raise ConfigError(f"override {_show(text)}: {e}") from None
    return key.strip(), value


#: The package the shipped configs are installed as (see ``pyproject.toml``).
CONFIGS_PACKAGE = "sixtysix_training.configs"


def shipped_configs() -> dict[str, Path]:
    """The shipped configs by name (``quickstart`` -> its ``quickstart.yaml``)."""
    try:
        root = Path(str(importlib.resources.files(CONFIGS_PACKAGE)))
    except ModuleNotFoundError:
        # Imported from a source checkout as a plain folder: configs/ sits beside it.
        root = Path(__file__).resolve().parent.parent / "configs"
    if not root.is_dir():
        return {}
    return {p.stem: p for p in sorted(root.glob("*.yaml"))}


def resolve_config(spec: str) -> str:
    """A config file's path from a path or the name of a shipped config.

    An existing file wins; otherwise a bare name (``quickstart``, or
    ``quickstart.yaml``) names a shipped config. Anything else is a
    :class:`ConfigError` listing the shipped names.
    """
    if os.path.isfile(spec):
        return spec
    shipped = shipped_configs()
    base = os.path.basename(spec)
    stem = base.removesuffix(".yaml")
    # configs/NAME.yaml from outside a clone means the shipped one too.
    if stem in shipped and os.path.dirname(spec) in ("", "configs"):
        return str(shipped[stem])
    names = ", ".join(shipped) or "(none in this installation)"
    if os.path.dirname(spec) not in ("", "configs"):
        raise ConfigError(f"config file {spec!r} does not exist (shipped configs: {names})")
    raise ConfigError(
        f"config {spec!r} is neither a file nor a shipped config; shipped configs: {names}"
    )


def read_config_values(
    path: str | None = None, overrides: list[str] | None = None
) -> tuple[dict[str, Any], str]:
    """(option values, where they came from) of a YAML config (a file or a shipped config's
    name; or none) with ``key=value`` overrides on top; both training backends read so."""
    values: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        path = resolve_config(path)
        source = path
        try:
            with open(path, encoding="utf-8") as f:
                loaded = read_yaml(f)
        except OSError as e:
            raise ConfigError(f"cannot read config {path!r}: {e}") from None
        except yaml.YAMLError as e:
            raise ConfigError(f"{path}: not valid YAML ({e})") from None
        except ConfigError as e:
            raise ConfigError(f"{path}: {e}") from None
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"{path}: expected a mapping of option names to values")
        values.update(loaded)
    for text in overrides or []:
        k, v = parse_override(text)
        values[k] = v
        source = f"{source} with overrides" if "overrides" not in source else source
    return values, source


#: The training backends and the value of a config's ``backend`` key that picks each.
BACKENDS = ("sb3", "rllib")


def config_backend(path: str) -> str:
    """The backend a config file, a shipped config's name or a run folder asks for.

    Its ``backend`` key as YAML reads it (``backend: rllib`` and
    ``backend: "rllib"`` alike); ``sb3`` when there is none, or when the file
    cannot be read (the loader then says why).
    """
    if os.path.isdir(path):
        path = os.path.join(path, "config.yaml")
    try:
        values, _ = read_config_values(path)
    except ConfigError:
        return "sb3"
    backend = values.get("backend", "sb3")
    return backend if backend in BACKENDS else "sb3"


def load_config(path: str | None = None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config (a file or a shipped config's name; or the defaults), then overrides."""
    return config_from_dict(*read_config_values(path, overrides))


def config_to_dict(cfg: TrainConfig) -> dict[str, Any]:
    return dataclasses.asdict(cfg)


def save_config(cfg: TrainConfig, path: str) -> None:
    docs = field_docs()
    lines = ["# Resolved training configuration (every option; see training/config.py)."]
    for f in dataclasses.fields(TrainConfig):
        lines.append(f"# {docs.get(f.name, '')}")
        value = yaml.safe_dump(
            getattr(cfg, f.name), default_flow_style=True, width=10**6, sort_keys=False
        )
        # A plain scalar comes with a document end marker.
        value = value.strip().removesuffix("\n...").strip()
        lines.append(f"{f.name}: {value}")
    write_text(path, "\n".join(lines) + "\n")

