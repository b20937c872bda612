"""Self-play training with Ray RLlib's PPO (new API stack) on the PettingZoo environment.

    sixtysix train --backend rllib --config configs/rllib-tiny.yaml
    sixtysix train --backend rllib --config configs/rllib-quickstart.yaml --set num_env_runners=2
    sixtysix train --backend rllib --config configs/rllib-quickstart.yaml --set address=auto
    sixtysix train --resume runs/rllib-tiny --set total_timesteps=200000
    sixtysix export runs/rllib-tiny -o rllib-tiny.npz

With no ``address`` (and no ``RAY_ADDRESS``) a local Ray starts inside the
command; ``address: auto`` or ``ray://host:port`` runs the same config on a
cluster (``docs/rllib.md``). The run folder is laid out as the SB3 path's:
``config.yaml`` (resolved, with ``backend: rllib``), ``tb/`` (TensorBoard:
``charts/``, ``losses/``), ``progress.csv``, ``eval.jsonl``,
``snapshots/*.npz``, ``best/`` (``policy.npz``, ``eval.json``), ``latest/``
(``checkpoint/``, RLlib's ``save_to_path``, ``policy.npz`` and
``state.json`` for resuming), ``policy.npz`` (the best, exported) and
``summary.json``.

Steps count the learner's decisions (RLlib's module steps of ``learner``),
as the SB3 path counts the learner's environment steps; evaluation,
snapshots and saving happen at the first iteration boundary past their
period. With ``num_env_runners: 0`` sampling happens in this process in
a fixed order, so a seed repeats a run on one machine; with remote env
runners the interleaving of their results is up to Ray.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import math
import os
import shutil
import time
from typing import Any

from sixtysix_env.evaluation.ray_pool import LOCAL, RayAddressError, connect

from ..common.figures import eval_charts
from ..common.lifecycle import RunLifecycle, Session, close_run, run_start_line, run_summary
from ..common.pool import OpponentPool
from ..common.runs import existing_dir, read_run_state, replace_dir, stopped_by_signals
from ..config.loader import LEAGUE_BASELINES, ConfigError, RLlibConfig, config_backend
from .league import LEARNER, cumulative, league_mapping, league_table, push, slot_ids

ENV_NAME = "sixtysix-rllib"


class ClusterError(ConfigError):
    """A Ray cluster that cannot be reached or cannot hold the configured processes."""


# -- Ray ------------------------------------------------------------------------------


#: What to do instead when the configured cluster cannot be reached.
LOCAL_INSTEAD = (
    "leave `address` empty (and RAY_ADDRESS unset) to train on a local Ray (see docs/rllib.md)"
)


def init_ray(cfg: RLlibConfig, printer=print) -> str:
    """Start a local Ray or join the configured cluster; returns a description."""
    import ray

    o = cfg.rllib
    address = o.address or os.environ.get("RAY_ADDRESS") or None
    if address and address != LOCAL:
        try:
            connect(address, 0, otherwise=LOCAL_INSTEAD)
        except RayAddressError as e:
            raise ClusterError(str(e)) from None
        where = f"Ray cluster at {address}"
    else:
        ray.init(
            num_cpus=o.num_cpus,
            include_dashboard=False,
            object_store_memory=o.object_store_mb * 2**20,
            log_to_driver=True,
        )
        where = "local Ray"
    res = ray.cluster_resources()
    need_cpu = (
        o.num_env_runners * o.num_cpus_per_env_runner + o.num_learners * o.num_cpus_per_learner
    )
    need_gpu = o.num_learners * o.num_gpus_per_learner
    if o.num_learners == 0 and o.num_gpus_per_learner > 0:
        need_gpu = o.num_gpus_per_learner
    if need_cpu > res.get("CPU", 0) or need_gpu > res.get("GPU", 0):
        ray.shutdown()
        raise ClusterError(
            f"the config asks Ray for {need_cpu:g} CPUs and {need_gpu:g} GPUs "
            f"(num_env_runners x num_cpus_per_env_runner + num_learners x num_cpus_per_learner, "
            f"and GPUs per learner), but the {where} has {res.get('CPU', 0):g} CPUs and "
            f"{res.get('GPU', 0):g} GPUs; Ray would wait for them forever"
        )
    return f"{where} ({res.get('CPU', 0):g} CPUs, {res.get('GPU', 0):g} GPUs)"


# -- the algorithm ----------------------------------------------------------------------


def learner_spec(cfg: RLlibConfig, standalone: bool = False):
    """The learner's RLModuleSpec; ``standalone`` adds the spaces, to build it outside RLlib."""
    from gymnasium import spaces
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    from .league import training_aec_env
    from .modules import (
        CRITIC_KEY,
        LearnerModule,
        PrivilegedLearnerModule,
        SuitSymmetricLearnerModule,
    )

    t = cfg.shared
    extra = {}
    if standalone:
        env = training_aec_env({"rules": t.rules, "privileged_critic": t.privileged_critic})
        extra = {
            "observation_space": env.observation_space(env.possible_agents[0]),
            "action_space": spaces.Discrete(env.action_space(env.possible_agents[0]).n),
        }
    model_config: Any = DefaultModelConfig(
        fcnet_hiddens=list(t.net_arch),
        fcnet_activation=t.activation,
        vf_share_layers=False,
        head_fcnet_hiddens=[],
    )
    if t.critic_arch is not None:  # the value network's own sizes (modules._resize_critic)
        model_config = {**dataclasses.asdict(model_config), CRITIC_KEY: list(t.critic_arch)}
    return RLModuleSpec(
        module_class=(
            SuitSymmetricLearnerModule
            if t.actor_symmetry is not None  # its actor reads the information set too
            else PrivilegedLearnerModule
            if t.privileged_critic
            else LearnerModule
            if t.critic_arch is not None
            else ActionMaskingTorchRLModule
        ),
        model_config=model_config,
        **extra,
    )


def lr_setting(t: Any) -> Any:
    """RLlib's ``lr``: the constant, or a linear schedule to 0 at the end of the run.

    RLlib's schedules count environment steps (every move of either seat),
    not the learner's: against an opponent a hand is about twice as many
    moves as the learner makes, so the schedule ends at twice
    ``total_timesteps`` (a run stops with the rate near 0, not at 0 halfway).
    """
    if t.lr_schedule != "linear":
        return t.learning_rate
    return [[0, t.learning_rate], [2 * t.total_timesteps, 0.0]]


def ppo_training_settings(cfg: RLlibConfig) -> dict[str, Any]:
    """``PPOConfig.training``'s keyword arguments: the shared options under RLlib's names
    (the SB3 path's counterpart is :func:`sixtysix_training.sb3.train.ppo_settings`)."""
    t = cfg.shared
    return {
        "train_batch_size_per_learner": cfg.rllib.train_batch_size,
        "minibatch_size": t.batch_size,
        "num_epochs": t.n_epochs,
        "lr": lr_setting(t),
        "gamma": t.gamma,
        "lambda_": t.gae_lambda,
        "clip_param": t.clip_range,
        "entropy_coeff": t.ent_coef,
        "vf_loss_coeff": t.vf_coef,
        "grad_clip": t.max_grad_norm,
        "grad_clip_by": "global_norm",
        "use_kl_loss": False,  # SB3's PPO has no KL penalty either
    }


def _lean_sampling(config_class) -> dict[str, Any]:
    """``episodes_to_numpy=False`` where this Ray has the setting.

    Ray 2.60's multi-agent env runner converts every episode finished so far
    to numpy again at every vector step (a cost that grows with the square of
    the episodes per sample); a profile here put 39% of the sampling time
    there. The learner's connectors batch the episodes either way.
    """
    import inspect

    params = inspect.signature(config_class.env_runners).parameters
    return {"episodes_to_numpy": False} if "episodes_to_numpy" in params else {}


def _fielded_baselines(t: Any) -> set[str]:
    """The baselines the league fields at some point of the run (baseline_weights, or
    final_baseline_weights at the end): each has its module from the start."""
    return {
        name
        for weights in (t.baseline_weights, t.final_baseline_weights or {})
        for name, w in weights.items()
        if w > 0
    }


def _module_specs(cfg: RLlibConfig, fielded: set[str]) -> dict[str, Any]:
    """The league's modules by id: the learner's, one per fielded baseline, one per
    snapshot slot."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .modules import OpponentModule

    t = cfg.shared
    specs = {LEARNER: learner_spec(cfg)}
    for name in LEAGUE_BASELINES:
        if name in fielded:
            specs[name] = RLModuleSpec(
                module_class=OpponentModule, model_config={"kind": name, "seed": t.seed}
            )
    for i, slot in enumerate(slot_ids(t.max_snapshots)):
        specs[slot] = RLModuleSpec(
            module_class=OpponentModule,
            model_config={"kind": "snapshot", "slot": slot, "seed": t.seed + 1 + i},
        )
    return specs


def _env_config(t: Any, fielded: set[str]) -> dict[str, Any]:
    """The league environment's settings (``make_env``'s ``env_config``)."""
    return {
        "rules": t.rules,
        "heuristic_hint": "heuristic" in fielded,
        "suit_augment": t.suit_augment,
        "privileged_critic": t.privileged_critic,
        "seed": t.seed,
    }


def build_algo(cfg: RLlibConfig, pool: OpponentPool):
    """RLlib's PPO: the learner, the league's modules and the policy mapping."""
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.tune.registry import register_env

    from .callbacks import LeagueCallback
    from .league import make_env

    t, o = cfg.shared, cfg.rllib
    torch.manual_seed(t.seed)
    register_env(ENV_NAME, make_env)
    fielded = _fielded_baselines(t)
    specs = _module_specs(cfg, fielded)
    # The baselines-only table: what a runner plays before (or without) a push.
    base_pool = OpponentPool(t.baseline_weights, seed=t.seed)
    default_table = cumulative(league_table(base_pool, {}, o.self_weight))
    config = (
        PPOConfig()
        .environment(
            ENV_NAME,
            env_config=_env_config(t, fielded),
            disable_env_checking=True,  # its random actions ignore the mask
        )
        .env_runners(
            num_env_runners=o.num_env_runners,
            num_envs_per_env_runner=o.num_envs_per_env_runner,
            num_cpus_per_env_runner=o.num_cpus_per_env_runner,
            **_lean_sampling(PPOConfig),
        )
        .learners(
            num_learners=o.num_learners,
            num_cpus_per_learner=o.num_cpus_per_learner,
            num_gpus_per_learner=o.num_gpus_per_learner,
        )
        .multi_agent(
            policies=set(specs),
            policy_mapping_fn=functools.partial(
                league_mapping, default_table=default_table, seed=t.seed
            ),
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(**ppo_training_settings(cfg))
        .callbacks(LeagueCallback)
        .debugging(seed=t.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=200)
    )
    return config.build_algo()


# -- metrics ---------------------------------------------------------------------------------

#: result keys (a path into RLlib's result dict) -> chart names, as the SB3 path groups them.
_CHARTS = {
    ("env_runners", "module_episode_returns_mean", LEARNER): "charts/episodic_return",
    ("env_runners", "episode_len_mean"): "charts/episodic_length",
    ("learners", LEARNER, "policy_loss"): "losses/policy_gradient_loss",
    ("learners", LEARNER, "vf_loss"): "losses/value_loss",
    ("learners", LEARNER, "entropy"): "losses/entropy",
    ("learners", LEARNER, "mean_kl_loss"): "losses/approx_kl",
    ("learners", LEARNER, "total_loss"): "losses/loss",
    ("learners", LEARNER, "vf_explained_var"): "losses/explained_variance",
    ("learners", LEARNER, "default_optimizer_learning_rate"): "charts/learning_rate",
}


def _get(d: Any, path: tuple) -> Any:
    for k in path:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def _scalar(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


class Metrics:
    """TensorBoard (``tb/``) and ``progress.csv`` from RLlib's result dicts."""

    def __init__(self, run_dir: str) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(os.path.join(run_dir, "tb"))
        self.csv_path = os.path.join(run_dir, "progress.csv")

    def iteration(self, steps: int, result: dict, extra: dict[str, float]) -> dict[str, float]:
        row: dict[str, float] = {}
        for path, name in _CHARTS.items():
            v = _scalar(_get(result, path))
            if v is not None:
                row[name] = v
        for key, v in (_get(result, ("env_runners",)) or {}).items():
            if str(key).startswith("return_vs_") and _scalar(v) is not None:
                row[f"charts/{key}"] = float(v)
        row.update(extra)
        for k, v in row.items():
            self.writer.add_scalar(k, v, steps)
        self.writer.flush()
        return row

    def eval(self, steps: int, figures: dict[str, dict], seconds: float) -> None:
        for name, value in eval_charts(figures, seconds).items():
            self.writer.add_scalar(name, value, steps)
        self.writer.flush()

    def write_csv(self, steps: int, row: dict[str, float]) -> None:
        fields = ["steps"] + sorted(row)
        new = not os.path.exists(self.csv_path)
        if not new:
            with open(self.csv_path, encoding="utf-8") as f:
                header = f.readline().strip().split(",")
            fields = header + [k for k in sorted(row) if k not in header]
            if fields != header:  # a new column (a new opponent): rewrite with it
                with open(self.csv_path, encoding="utf-8") as f:
                    old = list(csv.DictReader(f))
                with open(self.csv_path, "w", encoding="utf-8", newline="") as f:
                    w = csv.DictWriter(f, fields)
                    w.writeheader()
                    w.writerows(old)
        with open(self.csv_path, "a", encoding="utf-8", newline="") as f:
            w = csv.DictWriter(f, fields)
            if new:
                w.writeheader()
            w.writerow({"steps": steps, **row})

    def close(self) -> None:
        self.writer.close()


# -- the run ---------------------------------------------------------------------------------


class Run:
    """One training session on RLlib: the algorithm and its league, driving the run's
    lifecycle (:class:`~..lifecycle.RunLifecycle`, shared with the SB3 backend)."""

    def __init__(self, cfg: RLlibConfig, run_dir: str, resume: bool, printer=print) -> None:
        self.cfg, self.run_dir, self.printer = cfg, run_dir, printer
        t = cfg.shared
        self.pool = OpponentPool.from_config(t)
        self.state: dict[str, Any] = {"steps": 0, "slots": {}, "league_version": 0}
        self.algo = build_algo(cfg, self.pool)
        if resume:
            self.state = read_run_state(run_dir)  # bounded, checked field by field
            self.pool.restore(run_dir, self.state.pop("pool", {}))
            self.algo.restore_from_path(
                existing_dir(os.path.abspath(os.path.join(run_dir, "latest", "checkpoint")))
            )
            self.state["wall_time_before_s"] = self.state.get("wall_time_s", 0.0)
            printer(
                f"resuming {run_dir} at {self.state['steps']:,} steps "
                f"with {len(self.pool.snapshots)} snapshots in the pool"
            )
        self.push()
        self.metrics = Metrics(run_dir)
        self.life = RunLifecycle(t, run_dir, self.pool, self.state, self, printer)
        self.bc_seconds = 0.0
        if t.bc_teacher and not resume:
            from .bc import warm_start

            t_bc = time.perf_counter()
            self.state["bc"] = warm_start(
                self.algo, learner_spec(cfg, standalone=True), cfg, printer
            )
            self.bc_seconds = time.perf_counter() - t_bc
            last = self.state["bc"]["epochs"][-1]
            self.metrics.writer.add_scalar("charts/bc_accuracy", last["accuracy"], 0)

    # -- league ------------------------------------------------------------------

    def push(self) -> None:
        self.state["league_version"] = self.state.get("league_version", 0) + 1
        push(
            self.algo,
            self.pool,
            self.state["slots"],
            self.cfg.rllib.self_weight,
            self.state["league_version"],
            self.cfg.shared.seed,
        )

    # -- what the lifecycle asks of this backend (lifecycle.Learner) -----------------

    def steps(self) -> int:
        return int(self.state["steps"])

    def network(self):
        from .weights import network_from_state

        state = self.algo.learner_group.get_weights([LEARNER])[LEARNER]
        return network_from_state(state, self.cfg.shared.activation, list(self.cfg.shared.net_arch))

    def added_snapshot(self, label: str, network) -> None:
        """Give the new snapshot a free league slot (one no snapshot still in the pool
        holds: the pool drops its oldest) and hand the league its weights."""
        slots = self.state["slots"]
        live = {s.label for s in self.pool.snapshots}
        for old in [k for k in slots if k not in live]:
            del slots[old]
        used = set(slots.values())
        slots[label] = next(s for s in slot_ids(self.cfg.shared.max_snapshots) if s not in used)
        self.push()

    def record_evaluation(self, steps: int, figures: dict[str, dict], seconds: float) -> None:
        self.metrics.eval(steps, figures, seconds)

    def pool_changed(self) -> None:
        """The baselines' weights changed (``final_baseline_weights``): hand the league
        the new table."""
        self.push()

    def save_model(self, folder: str, resumable: bool) -> None:
        """``policy.npz`` (what an export needs); with ``resumable`` also RLlib's checkpoint,
        the previous one kept until the new one is in place."""
        from sixtysix_env.policy import save_policy

        if resumable:
            ckpt = os.path.abspath(os.path.join(folder, "checkpoint"))
            tmp = ckpt + ".tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            self.algo.save_to_path(tmp)
            replace_dir(tmp, ckpt)
        t = self.cfg.shared
        save_policy(
            os.path.join(folder, "policy.npz"),
            self.network(),
            {"name": t.name, "training": {"steps": self.steps(), "run": t.name}},
        )

    # -- the loop --------------------------------------------------------------------------

    def learn(self) -> dict[str, Any]:
        t = self.cfg.shared
        life = self.life
        life.begin()
        start_steps = self.state["steps"]
        t0 = time.perf_counter()
        iteration = 0
        while self.state["steps"] < t.total_timesteps:
            t_it = time.perf_counter()
            result = self.algo.train()
            it_s = time.perf_counter() - t_it
            new = int(_get(result, ("env_runners", "num_module_steps_sampled", LEARNER)) or 0)
            env_steps = int(_get(result, ("env_runners", "num_env_steps_sampled")) or 0)
            self.state["steps"] += new
            steps = self.state["steps"]
            iteration += 1
            learning_s = life.learning_seconds()
            extra = {
                "charts/SPS": new / it_s if it_s > 0 else 0.0,
                "charts/env_SPS": env_steps / it_s if it_s > 0 else 0.0,
                "charts/SPS_learning": (steps - start_steps) / learning_s if learning_s else 0.0,
                "charts/pool_snapshots": float(len(self.pool.snapshots)),
            }
            row = self.metrics.iteration(steps, result, extra)
            self.metrics.write_csv(steps, row)
            ret = row.get("charts/episodic_return")
            self.printer(
                f"[{steps:>10,} steps] iteration {iteration}: {new:,} learner steps in "
                f"{it_s:.1f} s ({extra['charts/SPS']:,.0f}/s)"
                + (f", return {ret:+.3f}" if ret is not None else "")
            )
            life.periodic(final=steps >= t.total_timesteps)
        return {
            "steps_this_session": self.state["steps"] - start_steps,
            "learning_seconds": life.learning_seconds(),
            "learn_wall_time_s": time.perf_counter() - t0,
        }

    def session(self, speed: dict[str, Any]) -> Session:
        """This session's figures for the run's summary (``speed``: what :meth:`learn` gave)."""
        return Session(steps=self.state["steps"], wall_time_s=self.wall_time(), **speed)

    def save_latest(self) -> None:
        self.life.save_latest()

    def wall_time(self) -> float:
        """This run's seconds so far: earlier sessions, cloning and learning."""
        return self.life.wall_time() + self.bc_seconds

    def close(self) -> None:
        self.metrics.close()
        self.algo.stop()


def train(
    cfg: RLlibConfig, run_dir: str, resume: bool = False, printer=print, reset_best: bool = False
) -> dict[str, Any]:
    """Train (or resume) the run in ``run_dir`` on Ray, then close it; returns its summary."""
    import ray
    import torch

    from sixtysix_env.evaluation.blas import one_blas_thread

    from .export import export_run

    if reset_best:
        raise ConfigError("--reset-best is not supported by the rllib backend")
    torch.set_num_threads(cfg.shared.torch_threads)
    where = init_ray(cfg, printer)
    printer(f"on {where}")
    try:
        run = Run(cfg, run_dir, resume, printer)
        try:
            with stopped_by_signals(
                run.save_latest, lambda: run.state["steps"], run_dir, printer
            ), one_blas_thread():  # as in the env runners (league.make_env)
                speed = run.learn()
        finally:
            run.close()
        summary = run_summary(cfg, run.state, run.session(speed), {
            "ray": where,
            "num_env_runners": cfg.rllib.num_env_runners,
            "num_envs_per_env_runner": cfg.rllib.num_envs_per_env_runner,
        })
    finally:
        ray.shutdown()
    policy = os.path.join(run_dir, "policy.npz")
    close_run(cfg, run_dir, summary, lambda: export_run(run_dir, policy, eval_deals=0), printer)
    return summary


class RLlibBackend:
    """The RLlib backend as a ``sixtysix train`` session runs it (:class:`~..lifecycle.Backend`)."""

    name = "rllib"
    #: The league's slots are built for max_snapshots too.
    fixed_on_resume = ("max_snapshots",)
    resets_best = False
    #: Nothing trained yet: no cluster, or Ray not installed.
    start_errors: tuple[type[BaseException], ...] = (ClusterError, ImportError)

    def check_new(self, cfg: RLlibConfig) -> None:
        pass

    def check_resume(self, run_dir: str) -> None:
        pass

    def start_line(self, cfg: RLlibConfig, run_dir: str) -> str:
        o = cfg.rllib
        games = f"{o.num_env_runners} env runners x {o.num_envs_per_env_runner} games"
        return run_start_line(cfg.shared, games, run_dir, on=" on RLlib")

    def train(self, cfg: RLlibConfig, run_dir: str, resume: bool, printer, reset_best: bool):
        return train(cfg, run_dir, resume=resume, printer=printer, reset_best=reset_best)

    def error_text(self, error: BaseException) -> str:
        if isinstance(error, ImportError):
            return f"{INSTALL_HINT}: {error}; install the extra: pip install -e '.[rllib]'"
        return f"sixtysix train: {error}"


#: What ``sixtysix train --backend rllib`` runs (``training/commands.py``).
RLLIB = RLlibBackend()
#: The command an ImportError of this backend is reported under.
INSTALL_HINT = "sixtysix train --backend rllib"


def is_rllib_run(path: str) -> bool:
    """Whether ``path`` (a run folder, a YAML config or a shipped config's name) is for RLlib."""
    return config_backend(path) == "rllib"
