"""Warm start by behaviour cloning: imitate a teacher agent before PPO.

The teacher (``heuristic``, or ``expert`` with a few samples) plays hands
against itself or another agent; every decision of the teacher's seats is
recorded as (observation, action mask, action) together with the game
points the hand finally brought that seat. The PPO policy's actor is then
fitted to the teacher's actions by cross-entropy over the legal actions,
and (optionally) its value network to the recorded outcomes, so PPO starts
from the teacher's play with a value estimate that already means something.

The fit speaks to the actor-critic through :class:`ActorCritic`, three methods
any backend can give: the masked logits and values of a batch, the parameters
(all, or the critic's), and the train mode. The SB3 backend's adapter is
:class:`sixtysix_training.sb3.policy.SB3ActorCritic`, the RLlib backend's
:class:`sixtysix_training.rllib.bc.ModuleActorCritic`; nothing here imports
either library.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Protocol

import numpy as np

from sixtysix_env.agents import make_agent
from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import player_view
from sixtysix_env.policy.observation import OBS_SIZE, observe_view
from sixtysix_env.util.progress import progress_bar

from .learning import PRIV_SIZE, SuitRenamer, privileged_features

#: Hands a cloning worker plays per task (the data do not depend on it).
_CHUNK = 100

#: What a cloning worker process keeps between tasks: the setup it was given, its players.
_WORKER: dict[str, Any] = {}


def _deal_all(hands: int, rules: str, seed: int, suit_augment: bool) -> list[tuple]:
    """Every hand to record, drawn in one seeded order: (index, start state, the two seats'
    rng seeds, the renaming). Dealing first makes the data independent of the workers."""
    renamer = SuitRenamer(suit_augment, seed)
    cfg = make_rules(rules)
    rng = random.Random(f"sixtysix-bc:{seed}")
    deals = []
    for h in range(hands):
        state = new_hand(rng, rng.randrange(2), cfg)
        seeds = (rng.random(), rng.random())
        deals.append((h, state, seeds, renamer.draw()))
    return deals


def _players(teacher: str, opponent: str, privileged: bool) -> dict[str, Any]:
    """The agents that play the hands, and what recording them needs."""
    t = make_agent(teacher)
    return {
        "teacher": t,
        "opponent": t if opponent == "teacher" else make_agent(opponent),
        "privileged": privileged,
        "renamer": SuitRenamer(False),  # its index maps only; the renamings come with the deals
    }


def _play(players: dict[str, Any], deals: list[tuple]) -> tuple[list, list, list[int], list]:
    """Play ``deals``: the teacher's decisions as (observations, masks, actions, returns)."""
    t, o = players["teacher"], players["opponent"]
    renamer, privileged = players["renamer"], players["privileged"]
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    for h, state, seeds, k in deals:
        teacher_seat = h % 2
        agents = (t, o) if teacher_seat == 0 else (o, t)
        recorded = (0, 1) if o is t else (teacher_seat,)
        rngs = (random.Random(seeds[0]), random.Random(seeds[1]))
        seats = []
        while state.result is None:
            p = state.current_player()
            view = player_view(state, p)
            a = agents[p].act(view, rngs[p])
            if p in recorded:
                ov = observe_view(view)
                x = ov["observation"]
                if privileged:
                    x = np.concatenate([x, privileged_features(state, p)])
                obs.append(renamer.obs(x, k))
                masks.append(renamer.mask(ov["action_mask"], k))
                actions.append(int(renamer.renamed[k][int(a)]))
                seats.append(p)
            state = state.apply(a)
        r = state.returns()
        returns.extend(float(r[p]) for p in seats)
    return obs, masks, actions, returns


def _play_task(task: tuple) -> tuple[list, list, list[int], list]:
    """A worker process's task: build its players on first use, then play the deals."""
    setup, deals = task
    if _WORKER.get("setup") != setup:
        _WORKER.update(setup=setup, players=_players(*setup))
    return _play(_WORKER["players"], deals)


def collect(
    teacher: str,
    opponent: str,
    hands: int,
    rules: str,
    seed: int,
    progress: bool = False,
    suit_augment: bool = False,
    privileged: bool = False,
    workers: int = 1,
) -> dict[str, np.ndarray]:
    """Record the teacher's decisions over ``hands`` hands (seats alternate with the deal).

    With ``suit_augment`` each hand is recorded under a random renaming of the
    suits (observation, mask and action alike); with ``privileged`` each
    observation carries the hidden cards after it, for a privileged critic
    (:mod:`sixtysix_training.common.learning`). ``workers`` processes play the hands
    (a search teacher such as ``expert`` takes most of the time); every hand is
    dealt and seeded before, so the data are the same for any number of them.
    """
    if workers < 1:
        raise ValueError(f"collect: workers must be at least 1 (got {workers})")
    setup = (teacher, opponent, privileged)
    players = _players(*setup)  # a bad agent name fails here, before any process starts
    deals = _deal_all(hands, rules, seed, suit_augment)
    tasks = [(setup, deals[i : i + _CHUNK]) for i in range(0, hands, _CHUNK)]
    bar = progress_bar(hands, f"cloning data ({teacher})", "hand") if progress else None
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []

    def take(part, n: int) -> None:
        obs.extend(part[0])
        masks.extend(part[1])
        actions.extend(part[2])
        returns.extend(part[3])
        if bar is not None:
            bar.update(n)

    if workers > 1 and len(tasks) > 1:
        # spawned, not forked: the training process has torch's threads running
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(workers, len(tasks)), mp_context=ctx) as pool:
            for part, task in zip(pool.map(_play_task, tasks), tasks):
                take(part, len(task[1]))
    else:
        for task in tasks:
            take(_play(players, task[1]), len(task[1]))
    if bar is not None:
        bar.close()
    assert len(returns) == len(actions) == len(obs)
    obs_arr, mask_arr = stack_records(obs, masks, OBS_SIZE + (PRIV_SIZE if privileged else 0))
    return {
        "obs": obs_arr,
        "masks": mask_arr,
        "actions": np.array(actions, dtype=np.int64),
        "returns": np.array(returns, dtype=np.float32),
    }


def collect_for_run(cfg, player: str, progress: bool = False) -> dict[str, np.ndarray]:
    """:func:`collect` as a training config asks (``bc_hands`` hands against ``bc_opponent``,
    its rules, seed and learning options); both backends' warm starts use it."""
    return collect(
        player,
        cfg.bc_opponent,
        cfg.bc_hands,
        cfg.rules,
        cfg.seed,
        progress=progress,
        suit_augment=cfg.suit_augment,
        privileged=cfg.privileged_critic,
        workers=cfg.bc_workers,
    )


class ActorCritic(Protocol):
    """What behaviour cloning needs of an actor-critic network (torch tensors in and out)."""

    def logits_and_values(self, obs, masks) -> tuple[Any, Any]:
        """The action logits of a batch, illegal actions masked out (a very negative logit),
        shape (n, 34), and the state values, shape (n,)."""

    def parameters(self, critic_only: bool = False) -> list:
        """The parameters to fit: all of them, or only the critic's."""

    def train(self, mode: bool) -> None:
        """Training mode on (True) or off."""


def accuracy(model: ActorCritic, obs, masks, actions) -> float:
    """Share of the decisions where the model's most likely action is the recorded one."""
    import torch as th

    n = len(actions)
    if n == 0:
        return float("nan")
    model.train(False)
    correct = 0
    with th.no_grad():
        for start in range(0, n, 8192):
            sl = slice(start, start + 8192)
            logits, _ = model.logits_and_values(obs[sl], masks[sl])
            correct += int((logits.argmax(-1) == actions[sl]).sum())
    return correct / n


def stack_records(
    obs: list[np.ndarray], masks: list[np.ndarray], width: int = OBS_SIZE
) -> tuple[np.ndarray, np.ndarray]:
    """Per-decision observations (``width`` entries each) and action masks as float32 and
    bool arrays."""
    if not obs:
        return np.zeros((0, width), np.float32), np.zeros((0, NUM_ACTIONS), bool)
    return np.stack(obs).astype(np.float32), np.stack(masks).astype(bool)


def _hold_out(tensors: tuple, fraction: float, gen) -> tuple[tuple, tuple | None]:
    """(the fitted share, the held-out (obs, masks, actions) or None) of the decisions."""
    import torch as th

    obs, masks, actions, returns = tensors
    if fraction <= 0:
        return tensors, None
    order = th.randperm(len(actions), generator=gen)
    n_val = int(len(actions) * fraction)
    val, train = order[:n_val], order[n_val:]
    held = (obs[val], masks[val], actions[val])
    fitted = (obs[train], masks[train], actions[train], None if returns is None else returns[train])
    return fitted, held


def _fit_epoch(
    model: ActorCritic, opt, tensors: tuple, batch_size: int, gen, vf_coef: float,
    fit_policy: bool = True,
):
    """One pass over the decisions in a seeded order: (total policy loss, total value loss).

    With ``fit_policy`` false only the value loss is minimised (the actor's
    loss is still measured and reported).
    """
    import torch as th

    obs, masks, actions, returns = tensors
    n = len(actions)
    perm = th.randperm(n, generator=gen)
    tot_pi = tot_v = 0.0
    for start in range(0, n, batch_size):
        idx = perm[start : start + batch_size]
        logits, values = model.logits_and_values(obs[idx], masks[idx])
        log_prob = th.log_softmax(logits, -1).gather(-1, actions[idx].long().unsqueeze(-1))
        pi_loss = -log_prob.mean()
        loss = pi_loss if fit_policy else 0.0
        if returns is not None:
            v_loss = th.nn.functional.mse_loss(values.flatten(), returns[idx])
            loss = loss + vf_coef * v_loss
            tot_v += float(v_loss.detach()) * len(idx)
        opt.zero_grad()
        loss.backward()
        th.nn.utils.clip_grad_norm_([p for g in opt.param_groups for p in g["params"]], 1.0)
        opt.step()
        tot_pi += float(pi_loss.detach()) * len(idx)
    return tot_pi, tot_v


def pretrain(
    model: ActorCritic,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    learning_rate: float,
    fit_value: bool,
    seed: int,
    logger=None,
    vf_coef: float = 0.5,
    val_fraction: float = 0.0,
    fit_policy: bool = True,
) -> dict[str, Any]:
    """Fit ``model`` (an :class:`ActorCritic`) to the teacher's actions.

    ``val_fraction`` holds that share of the decisions out of the fit and
    reports the accuracy on them (``val_accuracy``), before and after each epoch.
    ``fit_policy`` false (with ``fit_value``) fits only the value network and
    leaves the actor's weights as they are.
    """
    import torch as th

    if not (fit_policy or fit_value):
        raise ValueError("pretrain: nothing to fit (fit_policy and fit_value are both false)")

    gen = th.Generator().manual_seed(seed)
    tensors, val = _hold_out(_tensors(data, fit_value), val_fraction, gen)
    obs, masks, actions, _ = tensors
    n = len(actions)
    params = list(model.parameters(critic_only=not fit_policy))
    opt = th.optim.Adam(params, lr=learning_rate)
    history = []
    if val is not None:
        history.append(
            {
                "epoch": 0,
                "accuracy": accuracy(model, obs, masks, actions),
                "val_accuracy": accuracy(model, *val),
            }
        )
    model.train(True)
    t0 = time.perf_counter()
    for epoch in range(epochs):
        tot_pi, tot_v = _fit_epoch(model, opt, tensors, batch_size, gen, vf_coef, fit_policy)
        row = {
            "epoch": epoch + 1,
            "policy_loss": tot_pi / n,
            "value_loss": tot_v / n if fit_value else None,
            "accuracy": accuracy(model, obs, masks, actions),
        }
        if val is not None:
            row["val_accuracy"] = accuracy(model, *val)
        model.train(True)
        history.append(row)
        if logger is not None:
            _log_epoch(logger, row, fit_value)
    model.train(False)
    return {"decisions": n, "epochs": history, "seconds": time.perf_counter() - t0}


def _tensors(data: dict[str, np.ndarray], fit_value: bool) -> tuple:
    """(observations, masks, actions, returns or None without ``fit_value``) as tensors."""
    import torch as th

    return (
        th.as_tensor(data["obs"]),
        th.as_tensor(data["masks"]),
        th.as_tensor(data["actions"]),
        th.as_tensor(data["returns"]) if fit_value else None,
    )


def _log_epoch(logger, row: dict[str, Any], fit_value: bool) -> None:
    """An epoch's losses and accuracy on the run's charts."""
    logger.record("losses/bc_policy_loss", row["policy_loss"])
    if fit_value:
        logger.record("losses/bc_value_loss", row["value_loss"])
    logger.record("charts/bc_accuracy", row["accuracy"])
    logger.dump(row["epoch"])  # bc charts are indexed by epoch
