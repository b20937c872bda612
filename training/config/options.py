"""The training options, in sections: the shared ones, and one section per backend.

:class:`SharedOptions` are the options both backends read (the run, the PPO
settings they share, the network, the opponent pool, behaviour cloning,
evaluation and saving); :class:`SB3Options` are the MaskablePPO backend's
own (its games and rollouts), :class:`RLlibOptions` the RLlib backend's (the
Ray cluster, its sampling and learner processes). A backend's config has one
shape on both (:class:`RunConfig`): ``shared`` and its section named as the
backend, :class:`TrainConfig` (SB3: ``cfg.shared``, ``cfg.sb3``) and
:class:`RLlibConfig` (``cfg.shared``, ``cfg.rllib``); an option has one spelling.

Each field carries its documentation in its metadata (``doc``);
``sixtysix train --list-options`` prints it (:func:`describe_options`).
Reading and writing configs is ``training/config/loader.py``, the checks
``training/config/checks.py``, the bounded YAML reader ``training/config/yaml_reader.py``.
"""

from __future__ import annotations

import dataclasses
import reprlib
import types
import typing
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

from sixtysix_env.util.errors import SixtySixError


class ConfigError(SixtySixError, ValueError):
    """A configuration file or override that names an unknown option or gives a wrong value."""


def _opt(default: Any, doc: str) -> Any:
    """A config field with its documentation in its metadata (``doc``); a list or mapping
    is ``field(default_factory=..., metadata={"doc": ...})``, so each config gets its own."""
    return field(default=default, metadata={"doc": doc})


# Error messages show values through this: bounded, whatever the value.
_repr = reprlib.Repr()
_repr.maxlevel, _repr.maxlist, _repr.maxdict, _repr.maxstring, _repr.maxother = 3, 8, 8, 80, 80
show = _repr.repr


@dataclass
class SharedOptions:
    """The options both backends read, and mean the same by."""

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

    # -- PPO (both backends) ----------------------------------------------------------
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

    # -- what speeds learning up (both backends; sixtysix_training.common.learning) -------
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


@dataclass
class SB3Options:
    """The MaskablePPO (SB3) backend's own options: its games, rollouts and warm start."""

    progress_bar: bool = _opt(True, "Show a progress bar while training.")

    n_envs: int = _opt(
        32,
        "Games played side by side; one batched network call picks all their actions.",
    )
    rollout_workers: int = _opt(
        1,
        "Shares of the n_envs games stepped at once, each in a worker process of its own "
        "(gymnasium's AsyncVectorEnv; 1: all games in the training process). Worth it where the "
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
        "match (times the match target) instead of its game points (training/common/match_equity.py). "
        "Needs batched_games.",
    )
    match_scores: str = _opt(
        "reach",
        "With match_play, the scores the hands are dealt at: 'reach' as often as matches between "
        "equal players reach them; 'close' the same, but only scores where a side has at least "
        "the match target less 3 game points (4 or more of 7), where the match's stakes differ "
        "most from the hand's game points.",
    )
    win_bonus: float = _opt(
        0.0,
        "Added to a hand's reward when the learner wins it, taken off when it loses (a tie "
        "keeps 0): game points plus win_bonus times their sign, so that games won weigh beside "
        "game points. 0: game points alone. Needs batched_games; not with match_play.",
    )
    critic_precision: str = _opt(
        "float32",
        "Number format of the value network's products, in rollouts and updates alike: "
        "'float32'; 'bfloat16' (torch's autocast: float32 weights, gradients and loss, bfloat16 "
        "products, about 4x faster on a CPU with native bfloat16 instructions, AVX512-BF16 or "
        "AMX, and slower on one without); 'auto': bfloat16 where the CPU has them, else float32. "
        "The actor always computes in float32 (its log-probabilities make PPO's ratio). Needs "
        "the runs' own policy (privileged_critic or actor_symmetry) unless float32; summary.json "
        "records the one a run used.",
    )
    pool_precision: str = _opt(
        "float32",
        "Number format of the forward passes of the pool's networks (snapshots, shipped "
        "networks) in the batched games, torch's products on the training threads: 'float32', "
        "'bfloat16' (a network's logits within about 1% of float32's, about 2x faster where "
        "the CPU has native bfloat16 instructions) or 'auto' (bfloat16 where it has them). "
        "Needs batched_games unless float32; summary.json records the one a run used.",
    )
    n_steps: int = _opt(128, "Steps per game between updates (rollout size = n_envs * n_steps).")
    target_kl: float | None = _opt(
        None,
        "Stop an update's epochs early past this KL divergence (null: never).",
    )
    # -- warm start from a policy file -----------------------------------------------
    init_policy: str | None = _opt(
        None,
        "Policy file (or shipped policy name, e.g. 'sixtysix-ppo') whose weights start PPO's "
        "actor; net_arch and activation must match it. Its own play (bc_hands hands against "
        "bc_opponent) fits the value network first. null: a fresh network.",
    )

    eval_workers: int = _opt(
        1,
        "Worker processes for evaluation (1 keeps it in the training process).",
    )


@dataclass
class RLlibOptions:
    """The RLlib backend's own options: where it runs, and its PPO iteration."""

    # -- where it runs ------------------------------------------------------------
    address: str | None = _opt(
        None,
        "Ray cluster to join: null (the RAY_ADDRESS variable, else a local Ray started here), "
        "'auto', 'host:port' or 'ray://host:port'.",
    )
    num_cpus: int | None = _opt(
        None,
        "CPUs of the local Ray started when no address is given (null: all of this machine's).",
    )
    object_store_mb: int = _opt(
        256,
        "Object store size of the local Ray, in MiB (small: only weights and batches pass "
        "through it).",
    )
    num_env_runners: int = _opt(
        0, "Sampling processes (Ray actors); 0 samples in the driver process."
    )
    num_envs_per_env_runner: int = _opt(
        16, "Games each env runner plays side by side (one batched network call for all)."
    )
    num_cpus_per_env_runner: float = _opt(1.0, "CPUs Ray reserves for each env runner.")
    num_learners: int = _opt(
        0,
        "Learner processes (0: learn in the driver; more: data-parallel learners, e.g. one "
        "per GPU).",
    )
    num_cpus_per_learner: float = _opt(1.0, "CPUs Ray reserves for each learner.")
    num_gpus_per_learner: float = _opt(0.0, "GPUs for each learner (0: CPU).")

    # -- PPO -------------------------------------------------------------------------
    train_batch_size: int = _opt(4096, "Environment steps sampled per PPO iteration (per learner).")
    self_weight: float = _opt(
        0.0,
        "Weight of mirror games (the learner on both seats, both seats' moves training it), "
        "on the scale where the pool's opponents together weigh 1.",
    )


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"{old} is deprecated; use {new} (a config's shared options are cfg.shared.<option>, "
        "a backend's own cfg.sb3.<option> or cfg.rllib.<option>)",
        DeprecationWarning,
        stacklevel=3,
    )


@dataclass
class RunConfig:
    """A backend's config, the same shape on both: ``shared`` (:class:`SharedOptions`, the
    options both backends read) and the backend's own section, named as the backend
    (``cfg.sb3``, ``cfg.rllib``). An option has one spelling: ``cfg.shared.seed``,
    ``cfg.sb3.n_envs``, ``cfg.rllib.num_env_runners``."""

    shared: SharedOptions = field(default_factory=SharedOptions)

    #: The config's ``backend`` key; the section's attribute has the same name.
    backend: ClassVar[str] = ""

    @property
    def section(self) -> Any:
        """The backend's own options (``cfg.sb3`` or ``cfg.rllib``)."""
        return getattr(self, self.backend)


#: What the flat SB3 config had as attributes (its options and SharedOptions' properties),
#: each with the section that holds it now.
_FLAT_SB3: dict[str, str] = {}


@dataclass(init=False)
class TrainConfig(RunConfig):
    """The SB3 backend's config: ``shared`` and ``sb3`` (:class:`SB3Options`); what
    ``training/config/loader.py`` loads by default.

    It was flat before (one dataclass holding both sections): ``TrainConfig(seed=3)`` and
    ``cfg.seed`` still work, with a :class:`DeprecationWarning`."""

    sb3: SB3Options = field(default_factory=SB3Options)
    backend: ClassVar[str] = "sb3"

    def __init__(
        self, shared: SharedOptions | None = None, sb3: SB3Options | None = None, **flat: Any
    ) -> None:
        self.shared = SharedOptions() if shared is None else shared
        self.sb3 = SB3Options() if sb3 is None else sb3
        for key in flat:
            if key not in _FLAT_SB3 or key in ("value_arch", "network_text"):
                raise TypeError(f"TrainConfig() got an unexpected keyword argument {key!r}")
        if flat:
            _deprecated(
                "TrainConfig(option=value)", "TrainConfig(SharedOptions(...), SB3Options(...))"
            )
        for key, value in flat.items():
            setattr(getattr(self, _FLAT_SB3[key]), key, value)

    def __getattr__(self, name: str) -> Any:
        # Called only for what the class and the instance lack: the old flat spelling.
        where = _FLAT_SB3.get(name)
        if where is None or name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        section = self.__dict__.get(where)
        if section is None:
            raise AttributeError(name)
        _deprecated(f"cfg.{name}", f"cfg.{where}.{name}")
        return getattr(section, name)

    def __setattr__(self, name: str, value: Any) -> None:
        where = _FLAT_SB3.get(name)
        if where is None:
            object.__setattr__(self, name, value)
            return
        _deprecated(f"cfg.{name} = ...", f"cfg.{where}.{name} = ...")
        setattr(getattr(self, where), name, value)


@dataclass(init=False)
class RLlibConfig(RunConfig):
    """The RLlib backend's config: ``shared`` and ``rllib`` (:class:`RLlibOptions`).

    Its shared options were ``train`` before: ``RLlibConfig(train=...)`` and ``cfg.train``
    still work, with a :class:`DeprecationWarning`."""

    rllib: RLlibOptions = field(default_factory=RLlibOptions)
    backend: ClassVar[str] = "rllib"

    def __init__(
        self,
        shared: SharedOptions | None = None,
        rllib: RLlibOptions | None = None,
        *,
        train: SharedOptions | None = None,
    ) -> None:
        if train is not None:
            _deprecated("RLlibConfig(train=...)", "RLlibConfig(shared=...)")
            if shared is not None:
                raise TypeError("RLlibConfig() got both shared and train (its old name)")
            shared = train
        self.shared = SharedOptions() if shared is None else shared
        self.rllib = RLlibOptions() if rllib is None else rllib

    @property
    def train(self) -> SharedOptions:
        """The shared options under their old name (deprecated: ``cfg.shared``)."""
        _deprecated("cfg.train", "cfg.shared")
        return self.shared


#: The training backends (a config's ``backend`` key picks one), each with its section.
SECTIONS: dict[str, type] = {"sb3": SB3Options, "rllib": RLlibOptions}
BACKENDS = tuple(SECTIONS)

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

#: Baselines the RLlib league can field as RLlib modules (``training/rllib/modules.py``).
LEAGUE_BASELINES = ("random", "heuristic")

#: The values of ``match_scores``: which match scores match play deals its hands at.
MATCH_SCORES = ("reach", "close")

#: The values of ``critic_precision`` and ``pool_precision``: a number format of products.
PRECISIONS = ("float32", "bfloat16", "auto")

#: The SB3 section's options, and what to use on the RLlib backend instead.
SB3_ONLY_ON_RLLIB: dict[str, str] = {
    "n_envs": "use num_env_runners and num_envs_per_env_runner",
    "rollout_workers": "use num_env_runners (sampling processes)",
    "batched_games": "the env runners step their own games (docs/rllib.md)",
    "n_steps": "use train_batch_size (environment steps per PPO iteration)",
    "target_kl": "RLlib's PPO has no early stop on KL; leave it out",
    "progress_bar": "the RLlib backend prints one line per iteration",
    "eval_workers": "evaluation runs in the driver process",
    "init_policy": "starting from a policy file's weights is built for the SB3 backend only",
    "match_play": "match play is built for the SB3 backend's batched games only",
    "match_scores": "match play is built for the SB3 backend's batched games only",
    "win_bonus": "the bonus for a hand won is built for the SB3 backend's batched games only",
    "critic_precision": "the RLlib learner computes in float32; leave it out",
    "pool_precision": "the RLlib league's modules compute in float32; leave it out",
}


def section_fields(section: type) -> tuple[str, ...]:
    """The option names of a section (a dataclass above), in order."""
    return tuple(f.name for f in dataclasses.fields(section))


SHARED_FIELDS = section_fields(SharedOptions)
_FLAT_SB3.update(
    {k: "shared" for k in (*SHARED_FIELDS, "value_arch", "network_text")},
    **{k: "sb3" for k in section_fields(SB3Options)},
)


def options_of(backend: str) -> tuple[str, ...]:
    """Every option a backend's config has: the shared ones, then its section's."""
    return SHARED_FIELDS + section_fields(SECTIONS[backend])


def config_class(backend: str) -> type:
    return TrainConfig if backend == "sb3" else RLlibConfig


def flat_options(cfg: RunConfig) -> dict[str, Any]:
    """Every option of a config by name, flat (the shared ones, then its section's): what a
    config file and a policy file's training record hold."""
    return {
        **{k: getattr(cfg.shared, k) for k in SHARED_FIELDS},
        **{k: getattr(cfg.section, k) for k in section_fields(SECTIONS[cfg.backend])},
    }


def field_docs() -> dict[str, str]:
    """Every option's documentation (its ``doc`` metadata), all sections."""
    return {
        f.name: f.metadata.get("doc", "")
        for section in (SharedOptions, *SECTIONS.values())
        for f in dataclasses.fields(section)
    }


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


def option_types(backend: str) -> dict[str, Any]:
    """Each option of a backend's config and its type."""
    return {
        **typing.get_type_hints(SharedOptions),
        **typing.get_type_hints(SECTIONS[backend]),
    }


#: The headings of a listing and of a saved config, section by section.
SECTION_TITLES = {
    "shared": "shared by both backends",
    "sb3": "the SB3 backend (MaskablePPO) only",
    "rllib": "the RLlib backend only",
}


def describe_options(backend: str = "sb3") -> str:
    """A listing of every option of a backend: name, type, default, meaning; section by section."""
    docs, lines = field_docs(), []
    for key, section in (("shared", SharedOptions), (backend, SECTIONS[backend])):
        lines.append(f"# {SECTION_TITLES[key]}:")
        hints, defaults = typing.get_type_hints(section), section()
        for f in dataclasses.fields(section):
            lines.append(f"{f.name}: {type_name(hints[f.name])} = {getattr(defaults, f.name)!r}")
            lines.append(f"    {docs.get(f.name, '')}")
    return "\n".join(lines)
