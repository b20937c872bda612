"""The SB3 backend: self-play training of a Sixty-Six policy with sb3-contrib's MaskablePPO.

    sixtysix train --config configs/quickstart.yaml
    sixtysix train --config configs/full.yaml --set seed=3 --set name=full-s3
    sixtysix train --resume runs/quickstart --set total_timesteps=2000000
    sixtysix train --list-options

The command is ``training/commands.py``, which opens and closes the run the
same way on both backends (``training/common/lifecycle.py``: :func:`run_session`);
this module is what the SB3 backend does (:data:`SB3`). A run reads top to bottom:

1. the config (:class:`sixtysix_training.config.loader.TrainConfig`: the shared options and
   the SB3 section; a YAML file's keys are its fields; ``--set key=value`` overrides one);
2. the run folder ``runs_dir/name``: ``config.yaml`` (resolved), ``tb/``
   (TensorBoard: ``charts/``, ``losses/``), ``progress.csv``, ``eval.jsonl``,
   ``snapshots/``, ``best/`` and ``latest/`` (``model.zip``; latest also has
   ``state.json`` for resuming), ``policy.npz`` (the best model, exported),
   ``summary.json``;
3. seeding (``seed``) of torch, numpy, Python, the deals and the opponent pool;
4. the opponent pool (baselines, then frozen snapshots of the learner) and
   ``n_envs`` single-agent games drawing their opponent from it per hand;
5. MaskablePPO on the flat observation with the games' action masks;
6. optionally, a warm start by behaviour cloning from a teacher agent;
7. learning, with periodic paired-deal evaluation against the baselines,
   snapshots and saving (:class:`sixtysix_training.sb3.callbacks.SelfPlayCallback`);
8. the export of the best model to a numpy policy file and a summary.

Reproducible on one machine: the same config and seed give the same
weights (evaluation and snapshots happen at fixed step counts; nothing
depends on the clock). A resumed run starts its games afresh from the saved
model and pool, so it is reproducible from that point on, but not
bit-identical to a run that was never interrupted. ``--set`` on a resume
may change the PPO settings (a linear learning rate keeps falling to zero at
the new ``total_timesteps``), the opponent weights and the evaluation; the
network and the rules are fixed, and changing them is refused.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ..common.lifecycle import Session, close_run, run_start_line, run_summary
from ..common.runs import read_run_state, stopped_by_signals
from ..config.loader import ConfigError, TrainConfig
from .model_file import ModelFileError, check_model, load_model


def ppo_settings(cfg: TrainConfig) -> dict[str, Any]:
    """MaskablePPO's keyword arguments from the config (all but the network)."""
    lr: Any = cfg.shared.learning_rate
    if cfg.shared.lr_schedule == "linear":
        lr = _LinearSchedule(cfg.shared.learning_rate)
    return {
        "learning_rate": lr,
        "n_steps": cfg.sb3.n_steps,
        "batch_size": cfg.shared.batch_size,
        "n_epochs": cfg.shared.n_epochs,
        "gamma": cfg.shared.gamma,
        "gae_lambda": cfg.shared.gae_lambda,
        "clip_range": cfg.shared.clip_range,
        "ent_coef": cfg.shared.ent_coef,
        "vf_coef": cfg.shared.vf_coef,
        "max_grad_norm": cfg.shared.max_grad_norm,
        "target_kl": cfg.sb3.target_kl,
    }


class _LinearSchedule:
    """Learning rate falling linearly from ``lr0`` to 0 over the run's steps."""

    def __init__(self, lr0: float):
        self.lr0 = lr0

    def __call__(self, progress_remaining: float) -> float:
        return self.lr0 * progress_remaining

    def __repr__(self) -> str:
        return f"linear({self.lr0:g} -> 0)"


def _make_pool(cfg: TrainConfig):
    """The opponent pool: the baselines now, frozen snapshots of the learner later."""
    from ..common.pool import OpponentPool

    return OpponentPool.from_config(cfg.shared)


def new_model(cfg: TrainConfig, env):
    """A fresh MaskablePPO on the games, its network as the config says."""
    import torch
    from sb3_contrib import MaskablePPO

    from .policy import set_critic_precision

    activation = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[cfg.shared.activation]
    policy_kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(cfg.shared.net_arch), "vf": cfg.shared.value_arch},
        "activation_fn": activation,
    }
    policy: Any = "MlpPolicy"
    if cfg.shared.privileged_critic or cfg.shared.actor_symmetry is not None:
        from sixtysix_env.policy.observation import OBS_SIZE

        from .policy import PrivilegedCriticPolicy

        policy = PrivilegedCriticPolicy
        policy_kwargs["actor_dim"] = OBS_SIZE
        policy_kwargs["actor_symmetry"] = cfg.shared.actor_symmetry
    model = MaskablePPO(
        policy,
        env,
        **ppo_settings(cfg),
        policy_kwargs=policy_kwargs,
        seed=cfg.shared.seed,
        device="cpu",
        verbose=0,
    )
    set_critic_precision(model.policy, cfg.sb3.critic_precision)
    return model


def _resumed_model(cfg: TrainConfig, run_dir: str, env, pool, reset_best: bool, printer):
    """(the saved latest model on fresh games, the run's saved state) of a resumed run."""
    state = read_run_state(run_dir)  # bounded, checked field by field
    pool.restore(run_dir, state.pop("pool", {}))
    # The PPO settings come from the run's config as it is now, so that a
    # resume with --set learning_rate=... (or ent_coef, n_epochs, ...) takes
    # effect; a linear schedule keeps decaying over the whole run.
    from .policy import set_critic_precision

    model = load_model(os.path.join(run_dir, "latest", "model.zip"), env=env, **ppo_settings(cfg))
    set_critic_precision(model.policy, cfg.sb3.critic_precision)  # not saved with the model
    # Fresh games after a resume, seeded from the resume point.
    env.seed(cfg.shared.seed + model.num_timesteps)
    model._last_obs = None  # the learn() below resets the games
    state["wall_time_before_s"] = state.get("wall_time_s", 0.0)
    if reset_best:
        old = state.pop("best_score", None)
        state.pop("best_steps", None)
        printer(f"forgetting the best score so far ({old}): the next evaluation sets it")
    printer(
        f"resuming {run_dir} at {model.num_timesteps:,} steps "
        f"with {len(pool.snapshots)} snapshots in the pool"
    )
    return model, state


def _collect_and_fit(
    cfg: TrainConfig, model, logger, player: str, fit_policy: bool, fit_value: bool
) -> dict[str, Any]:
    """``bc_hands`` hands of ``player`` (against ``bc_opponent``) recorded and fitted (bc.py)."""
    from ..common import bc
    from .policy import SB3ActorCritic

    t0 = time.perf_counter()
    data = bc.collect_for_run(cfg.shared, player, progress=cfg.sb3.progress_bar)
    collect_s = time.perf_counter() - t0
    stats = bc.pretrain(
        SB3ActorCritic(model.policy),
        data,
        cfg.shared.bc_epochs,
        cfg.shared.bc_batch_size,
        cfg.shared.bc_learning_rate,
        fit_value,
        cfg.shared.seed,
        logger,
        cfg.shared.vf_coef,
        fit_policy=fit_policy,
    )
    stats["collect_seconds"] = collect_s
    return stats


def _clone_teacher(cfg: TrainConfig, model, logger, printer) -> dict[str, Any]:
    """Warm start: fit the policy to the teacher's recorded decisions; the cloning's figures."""
    printer(
        f"behaviour cloning: {cfg.shared.bc_hands:,} hands of {cfg.shared.bc_teacher} "
        f"(against {cfg.shared.bc_opponent})"
    )
    stats = _collect_and_fit(cfg, model, logger, cfg.shared.bc_teacher, True, cfg.shared.bc_value)
    stats["teacher"] = cfg.shared.bc_teacher
    last = stats["epochs"][-1]
    printer(f"behaviour cloning: {_fit_text(stats)}; accuracy {last['accuracy']:.3f}")
    return stats


def _fit_text(stats: dict[str, Any]) -> str:
    return (
        f"{stats['decisions']:,} decisions, collected in {stats['collect_seconds']:.0f} s, "
        f"fitted in {stats['seconds']:.0f} s"
    )


def init_network(cfg: TrainConfig):
    """The numpy network ``init_policy`` names, checked against the config's network."""
    from sixtysix_env.agents import AgentSpecError, make_agent

    try:
        agent = make_agent(cfg.sb3.init_policy)
    except AgentSpecError as e:
        raise ConfigError(f"option 'init_policy' got {cfg.sb3.init_policy!r}: {e}") from None
    network = getattr(agent, "network", None)
    if network is None:
        raise ConfigError(
            f"option 'init_policy' got {cfg.sb3.init_policy!r}, which is not a policy; give a "
            "policy file (.npz) or a shipped policy's name ('sixtysix agents' lists them)"
        )
    if network.symmetry is not None:
        raise ConfigError(
            f"option 'init_policy' got {cfg.sb3.init_policy!r}, which averages its network over a "
            f"symmetry ({network.symmetry!r}); PPO's actor is one plain network: start from the "
            "plain policy it was made from"
        )
    if network.hidden != list(cfg.shared.net_arch) or network.activation != cfg.shared.activation:
        raise ConfigError(
            f"option 'init_policy' ({cfg.sb3.init_policy!r}) has hidden layers {network.hidden} "
            f"{network.activation}; the config asks for net_arch {list(cfg.shared.net_arch)} "
            f"{cfg.shared.activation}: set them to the policy's"
        )
    return network


def start_from_policy(cfg: TrainConfig, model, logger, printer) -> dict[str, Any]:
    """Warm start: the policy file's weights into the actor, then its play fits the critic."""
    import numpy as np

    from ..common.numpy_policy import load_into_policy, network_from_policy

    network = init_network(cfg)
    load_into_policy(model.policy, network)
    copied = network_from_policy(model.policy)
    rng = np.random.default_rng(cfg.shared.seed)
    probe = rng.random((8, network.layers[0][0]), dtype=np.float32)
    if not np.allclose(copied.logits(probe), network.logits(probe), atol=1e-4):
        raise RuntimeError("init_policy: the copied actor does not reproduce the policy file")
    printer(
        f"starting from {cfg.sb3.init_policy}: actor {network.layers}; fitting the value network "
        f"on {cfg.shared.bc_hands:,} of its hands (against {cfg.shared.bc_opponent})"
    )
    stats = _collect_and_fit(cfg, model, logger, cfg.sb3.init_policy, False, True)
    stats["init_policy"] = cfg.sb3.init_policy
    last = stats["epochs"][-1]
    printer(
        f"value fit: {_fit_text(stats)}; value loss {last['value_loss']:.3f}, the actor's own "
        f"moves {last['accuracy']:.3f}"
    )
    return stats


def _learn(cfg: TrainConfig, model, callback, resume: bool, printer) -> tuple[float, float, int]:
    """Learn up to ``total_timesteps``; (wall seconds, learning seconds, steps this session)."""
    from .callbacks import StepProgressBar

    remaining = cfg.shared.total_timesteps - model.num_timesteps
    t_learn = time.perf_counter()
    steps_before = model.num_timesteps
    if remaining > 0:
        model.learn(
            total_timesteps=remaining,
            callback=[callback, StepProgressBar(remaining)] if cfg.sb3.progress_bar else callback,
            reset_num_timesteps=not resume,
        )
    else:
        printer(
            f"nothing to do: the run already has {model.num_timesteps:,} of "
            f"{cfg.shared.total_timesteps:,} steps"
        )
    learn_s = time.perf_counter() - t_learn
    learning_s = callback.learning_seconds() if remaining > 0 else 0.0
    return learn_s, learning_s, model.num_timesteps - steps_before


def _summary(
    cfg: TrainConfig, model, state: dict, learn_s: float, learning_s: float, steps: int
) -> dict[str, Any]:
    """The run's ``summary.json`` (the lifecycle's, :func:`run_summary`; the time includes
    the cloning), with the SB3 backend's extras: the warm start from a policy file, and the
    number formats on this machine."""
    bc_stats = state.get("bc") or state.get("init") or {}
    wall_time_s = (
        state.get("wall_time_before_s", 0.0)
        + learn_s
        + bc_stats.get("seconds", 0)
        + bc_stats.get("collect_seconds", 0)
    )
    session = Session(model.num_timesteps, steps, wall_time_s, learn_s, learning_s)
    return run_summary(cfg, state, session, {"init": state.get("init"),
                                             **_precisions(cfg, model)})


def _precisions(cfg: TrainConfig, model) -> dict[str, str]:
    """The number formats the critic and the pool's networks compute in on this machine."""
    from .policy import critic_precision, resolve_precision

    return {
        "critic_precision": critic_precision(model.policy),
        "pool_precision": resolve_precision(cfg.sb3.pool_precision),
    }


def train(
    cfg: TrainConfig,
    run_dir: str,
    resume: bool = False,
    printer=print,
    reset_best: bool = False,
) -> dict[str, Any]:
    """Train (or resume) the run in ``run_dir``; returns its summary.

    ``reset_best`` (with ``resume``) forgets the best score so far, for when
    the evaluation opponents have changed and old scores no longer compare.
    The steps below run in this order, which the seeding depends on.
    """
    # Heavy imports in the steps, so `sixtysix train --help` and config errors stay fast.
    import torch
    from stable_baselines3.common.utils import set_random_seed

    from sixtysix_env.evaluation.blas import one_blas_thread

    from .callbacks import SelfPlayCallback, make_logger
    from .vec_env import SelfPlayVecEnv

    torch.set_num_threads(cfg.shared.torch_threads)
    set_random_seed(cfg.shared.seed)
    pool = _make_pool(cfg)
    env = SelfPlayVecEnv.from_config(cfg, pool)  # rollout_workers: its processes start here
    try:
        state: dict[str, Any] = {}
        if resume:
            model, state = _resumed_model(cfg, run_dir, env, pool, reset_best, printer)
        else:
            model = new_model(cfg, env)
        if (cfg.sb3.critic_precision, cfg.sb3.pool_precision) != ("float32", "float32"):
            printer("number formats on this machine: {critic_precision} for the critic, "
                    "{pool_precision} for the pool's networks".format(**_precisions(cfg, model)))
        logger = make_logger(run_dir)
        model.set_logger(logger)
        if cfg.shared.bc_teacher and not resume:
            state["bc"] = _clone_teacher(cfg, model, logger, printer)
        if cfg.sb3.init_policy and not resume:
            state["init"] = start_from_policy(cfg, model, logger, printer)
        callback = SelfPlayCallback(cfg, run_dir, pool, state, printer)
        with (
            stopped_by_signals(
                callback.save_latest,
                lambda: (
                    callback.num_timesteps if getattr(callback, "model", None) is not None else None
                ),
                callback.run_dir,
                printer,
            ),
            one_blas_thread(),
        ):  # the opponents' numpy passes beside torch's threads
            learn_s, learning_s, steps = _learn(cfg, model, callback, resume, printer)
    finally:
        env.close()
    logger.close()
    summary = _summary(cfg, model, state, learn_s, learning_s, steps)
    close_run(cfg, run_dir, summary, lambda: _export_best(cfg, run_dir), printer)
    return summary


def _export_best(cfg: TrainConfig, run_dir: str) -> None:
    """The best model as the run's ``policy.npz`` (none before the first evaluation)."""
    from .export import export_model

    best = os.path.join(run_dir, "best", "model.zip")
    if os.path.exists(best):
        export_model(
            best, os.path.join(run_dir, "policy.npz"), run_dir, name=cfg.shared.name, eval_deals=0
        )


class SB3Backend:
    """The SB3 backend as a ``sixtysix train`` session runs it (:class:`~.lifecycle.Backend`)."""

    name = "sb3"
    fixed_on_resume: tuple[str, ...] = ()
    resets_best = True
    start_errors: tuple[type[BaseException], ...] = ()

    def check_new(self, cfg: TrainConfig) -> None:
        if cfg.sb3.init_policy is not None:
            init_network(cfg)

    def check_resume(self, run_dir: str) -> None:
        try:
            check_model(os.path.join(run_dir, "latest", "model.zip"))  # nothing unpickled
        except ModelFileError as e:
            raise ConfigError(str(e)) from None

    def start_line(self, cfg: TrainConfig, run_dir: str) -> str:
        return run_start_line(cfg.shared, f"{cfg.sb3.n_envs} games", run_dir)

    def train(self, cfg: TrainConfig, run_dir: str, resume: bool, printer, reset_best: bool):
        return train(cfg, run_dir, resume=resume, printer=printer, reset_best=reset_best)

    def error_text(self, error: BaseException) -> str:
        return f"sixtysix train: {error}"


#: The backend ``sixtysix train`` runs by default (``training/commands.py``).
SB3 = SB3Backend()
