"""``rollout_workers``: the training games in several processes (``training/sb3/vec_env.py``).

With a pool of one baseline and no renamings the games cannot tell where they are played:
the same seed gives the same deals, opponents' moves, observations and masks as in one
process. The rest checks the pool's changes reaching the workers, errors, closing, and a
run's repeatability. The RLlib backend refuses the option (``test_rllib.py``: it has
``num_env_runners``).
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

# training/sb3/vec_env.py imports SB3 (and torch): imported in the tests that use it, so
# that collecting the fast lane imports neither.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra is not installed"
)
pytest.importorskip("msgspec")  # the config's own needs (the [train] extra), light to import
pytest.importorskip("yaml")

from sixtysix_env.agents import make_agent  # noqa: E402
from sixtysix_env.policy import PolicyAgent  # noqa: E402
from sixtysix_training.common.pool import OpponentPool  # noqa: E402
from sixtysix_training.config.loader import ConfigError, load_config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY = os.path.join(ROOT, "configs", "tiny.yaml")


@pytest.mark.parametrize(
    "option, message",
    [
        ("rollout_workers=3", "option 'rollout_workers' (3) must divide 'n_envs' (4)"),
        ("rollout_workers=0", "'rollout_workers' got 0; it must be at least 1"),
        ("rollout_workers=two", "'rollout_workers' must be integer"),
    ],
)
def test_config_errors_name_the_option(option, message):
    with pytest.raises(ConfigError) as e:
        load_config(TINY, [option])
    assert message in str(e.value)


def _cfg(*options):
    return load_config(TINY, ["baseline_weights={heuristic: 1.0}", *options])


def _first_legal(masks: np.ndarray) -> np.ndarray:
    return np.array([int(np.flatnonzero(m)[0]) for m in masks])


def _play(env, steps: int):
    """Observations, masks, rewards, dones and opponents of ``steps`` steps from a reset."""
    env.seed(11)
    obs = env.reset()
    out = [(obs, env.env_method("action_masks"), None, None, None)]
    for _ in range(steps):
        masks = np.stack(env.env_method("action_masks"))
        obs, rewards, dones, infos = env.step(_first_legal(masks))
        opponents = [i.get("opponent") for i in infos]
        out.append((obs, env.env_method("action_masks"), rewards, dones, opponents))
    return out


@pytest.mark.slow
def test_the_games_in_workers_are_the_games_in_one_process():
    from sixtysix_training.sb3.vec_env import SelfPlayVecEnv, WorkerSelfPlayVecEnv

    cfg = _cfg("rollout_workers=2")
    here = SelfPlayVecEnv(cfg.n_envs, OpponentPool.from_config(cfg), cfg.rules, seed=cfg.seed)
    there = WorkerSelfPlayVecEnv(cfg, OpponentPool.from_config(cfg))
    try:
        assert len(there.processes) == 2  # one per share (AsyncVectorEnv's workers)
        assert there.has_attr("action_masks") and not there.has_attr("no_such_attribute")
        a, b = _play(here, 40), _play(there, 40)
    finally:
        here.close()
        there.close()
    assert sum(x[3].sum() for x in a[1:]) >= 4  # hands ended and new ones were dealt
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            if isinstance(u, np.ndarray) or (isinstance(u, list) and u and u[0] is not None):
                np.testing.assert_array_equal(np.asarray(u), np.asarray(v))
            else:
                assert u == v
    assert not any(p.is_alive() for p in there.processes)


@pytest.mark.slow
def test_starting_the_workers_leaves_ctrl_c_to_the_training_process():
    """AsyncVectorEnv builds one share in the training process to read its spaces: Ctrl-C
    stays a KeyboardInterrupt there (a share ignores it only in a worker), and so in the
    processes it starts later (a run's save tests failed after one in the same pytest)."""
    import signal

    from sixtysix_training.sb3.vec_env import WorkerSelfPlayVecEnv

    before = signal.getsignal(signal.SIGINT)
    cfg = _cfg("rollout_workers=2")
    there = WorkerSelfPlayVecEnv(cfg, OpponentPool.from_config(cfg))
    try:
        assert signal.getsignal(signal.SIGINT) is before
    finally:
        there.close()


@pytest.mark.slow
def test_the_pools_changes_reach_the_workers():
    from sixtysix_training.sb3.vec_env import WorkerSelfPlayVecEnv

    cfg = _cfg("rollout_workers=2", "recent_weight=1000.0", "older_weight=0.0")
    pool = OpponentPool.from_config(cfg)
    env = WorkerSelfPlayVecEnv(cfg, pool)
    try:
        opponents = {o for *_, opp in _play(env, 30)[1:] for o in opp if o}
        assert opponents == {"heuristic"}
        # A snapshot (a shipped network will do) joins the training process's pool only.
        net = make_agent("sixtysix-ppo").network
        pool.add_snapshot("snap-000000100", "snapshots/none.npz", 100, PolicyAgent(net))
        opponents = {o for *_, opp in _play(env, 40)[1:] for o in opp if o}
        assert "snap-000000100" in opponents
        pool.set_baselines({"random": 1.0})
        pool.replace_snapshots([])
        opponents = {o for *_, opp in _play(env, 40)[1:] for o in opp if o}
        assert opponents == {"random"}
    finally:
        env.close()


@pytest.mark.slow
def test_a_failure_in_a_worker_names_it_and_what_went_wrong():
    from sixtysix_training.sb3.vec_env import WorkerSelfPlayVecEnv

    cfg = _cfg("rollout_workers=2")
    env = WorkerSelfPlayVecEnv(cfg, OpponentPool.from_config(cfg))
    try:
        env.seed(0)
        env.reset()
        masks = np.stack(env.env_method("action_masks"))
        illegal = np.array([int(np.flatnonzero(~m)[0]) for m in masks])
        # AsyncVectorEnv raises the last share's error (and logs each one's).
        with pytest.raises(RuntimeError, match=r"share [01] of the games, step:\n(.*\n)*"
                                               r".*IllegalActionError: illegal action"):
            env.step(illegal)
    finally:
        env.close()
    assert not any(p.is_alive() for p in env.processes)


@pytest.mark.slow
def test_a_run_with_workers_repeats_and_resumes(tmp_path):
    """Two runs with two workers, one seed: identical weights, snapshots joining on the way;
    and a resumed run goes on with its workers."""
    from sixtysix_env.cli import main as cli_main
    from sixtysix_env.policy import read_policy

    with open(TINY, encoding="utf-8") as f:
        text = f.read()
    cfg = tmp_path / "r.yaml"
    cfg.write_text(
        text.replace("bc_teacher: heuristic", "bc_teacher: null")
        .replace("eval_every: 256", "eval_every: 0")
        .replace("snapshot_every: 256", "snapshot_every: 128")
        + "rollout_workers: 2\n"
    )
    nets = []
    for k in (1, 2):
        run = tmp_path / f"run{k}"
        assert cli_main(["train", "--config", str(cfg), "--run-dir", str(run)]) == 0
        nets.append(read_policy(str(run / "policy.npz"))[0])
        assert len(os.listdir(run / "snapshots")) >= 2  # one joined the pool mid-run
    first, second = nets
    for a, b in zip(first.weights + first.biases, second.weights + second.biases, strict=True):
        np.testing.assert_array_equal(a, b)
    run = tmp_path / "run1"
    argv = ["train", "--resume", str(run), "--set", "total_timesteps=768"]
    assert cli_main(argv) == 0
    import json

    assert json.loads((run / "latest" / "state.json").read_text())["steps"] == 768
