"""The RLlib backend: the observation adapter, its config, the league and a smoke run.

The adapter and config tests need only the core (and PyYAML); the rest
needs Ray RLlib (the ``[rllib]`` extra; CI runs them in their own virtual
environment, see ``.ci/run``) and is skipped without it.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

from sixtysix_env import sixtysix_v0
from sixtysix_env.env.rllib import MASK_KEY, OBS_KEY, RLlibObservationWrapper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY = os.path.join(ROOT, "configs", "rllib-tiny.yaml")


# -- the adapter (core only) ---------------------------------------------------------------


def test_adapter_renames_the_keys_and_keeps_the_game():
    plain = sixtysix_v0.env()
    wrapped = RLlibObservationWrapper(sixtysix_v0.env())
    plain.reset(seed=3)
    wrapped.reset(seed=3)
    space = wrapped.observation_space("player_0")
    assert set(space.spaces) == {OBS_KEY, MASK_KEY}
    steps = 0
    for agent in wrapped.agent_iter():
        obs, reward, term, trunc, _ = wrapped.last()
        ref, ref_reward, *_ = plain.last()
        assert plain.agent_selection == agent
        assert set(obs) == {OBS_KEY, MASK_KEY}
        assert obs[MASK_KEY].dtype == np.float32
        np.testing.assert_array_equal(obs[OBS_KEY], ref["observation"])
        np.testing.assert_array_equal(obs[MASK_KEY], ref["action_mask"])
        assert space.contains(obs)
        assert reward == ref_reward
        action = None if term or trunc else int(np.flatnonzero(obs[MASK_KEY])[-1])
        wrapped.step(action)
        plain.step(action)
        steps += 1
    assert steps > 6


def test_adapter_refuses_an_environment_without_the_mask():
    from pettingzoo.utils.wrappers import BaseWrapper

    class NoMask(BaseWrapper):
        def observation_space(self, agent):
            return self.env.observation_space(agent)["observation"]

    with pytest.raises(ValueError, match="'observation' and 'action_mask'"):
        RLlibObservationWrapper(NoMask(sixtysix_v0.raw_env()))


# -- config (core + PyYAML) -------------------------------------------------------------------

yaml = pytest.importorskip("yaml")

from sixtysix_training.config import loader as _config
from sixtysix_training.config.loader import ConfigError, config_to_dict


def load_config(path=None, overrides=None):
    """The one loader, reading the RLlib backend's config."""
    return _config.load_config(path, overrides, backend="rllib")


def config_from_dict(values):
    return _config.config_from_dict(values, backend="rllib")


def describe_options():
    return _config.describe_options("rllib")


def _write(tmp_path, text: str) -> str:
    p = tmp_path / "c.yaml"
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("name", ["rllib-tiny.yaml", "rllib-quickstart.yaml"])
def test_shipped_rllib_configs_load(name):
    cfg = load_config(os.path.join(ROOT, "configs", name))
    assert cfg.shared.total_timesteps > 0
    assert config_to_dict(cfg)["backend"] == "rllib"


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "num_env_runner: 2\n",
            "unknown option 'num_env_runner' (did you mean 'num_env_runners'?)",
        ),
        ("progress_bar: false\n", "'progress_bar' is not supported by the rllib backend"),
        ("n_envs: 8\n", "use num_env_runners and num_envs_per_env_runner"),
        ("rollout_workers: 2\n", "'rollout_workers' is not supported by the rllib backend (use num_env_runners"),
        ("num_env_runners: -1\n", "'num_env_runners' got -1; it must not be negative"),
        ("num_env_runners: two\n", "'num_env_runners' must be integer"),
        ("baseline_weights: {expert: 1.0}\n", "fields these baselines: random, heuristic"),
        (
            "final_steps: 100\nfinal_baseline_weights: {expert: 1.0}\n",
            "option 'final_baseline_weights' names 'expert'; the rllib backend's league fields",
        ),
        ("final_steps: 100\n", "'final_steps' (100) and 'final_baseline_weights' (null) go"),
        ("batch_size: 9000\ntrain_batch_size: 4000\n", "larger than a PPO iteration's batch"),
        ("learning_rate: -1\n", "'learning_rate' got -1.0; it must be positive"),
        ("backend: sb3\n", "this loader reads 'rllib'"),
    ],
)
def test_config_errors_name_the_option(tmp_path, text, message):
    with pytest.raises(ConfigError) as e:
        load_config(_write(tmp_path, text))
    assert message in str(e.value)


def test_cloning_workers_reach_the_shared_collector(tmp_path, monkeypatch):
    """``bc_workers`` means on this backend what it means on SB3's: the one collector's."""
    from sixtysix_training.common import bc

    cfg = load_config(_write(tmp_path, "bc_teacher: heuristic\nbc_workers: 2\n"))
    seen = {}
    monkeypatch.setattr(bc, "collect", lambda *a, **kw: seen.update(kw))
    bc.collect_for_run(cfg.shared, cfg.shared.bc_teacher)
    assert cfg.shared.bc_workers == 2 and seen["workers"] == 2
    with pytest.raises(ConfigError, match="bc_workers"):
        load_config(_write(tmp_path, "bc_workers: 0\n"))


def test_ppo_settings_are_the_shared_options_under_rllibs_names(tmp_path):
    """The PPO settings (gae_lambda among them: configs/fast.yaml's 0.5) mean here what they
    mean on the SB3 path, and RLlib's PPOConfig takes every one of them."""
    _ray()
    from ray.rllib.algorithms.ppo import PPOConfig

    from sixtysix_training.rllib.train import ppo_training_settings

    text = "gae_lambda: 0.5\ngamma: 0.99\nent_coef: 0.02\nn_epochs: 3\nclip_range: 0.1\n"
    settings = ppo_training_settings(load_config(_write(tmp_path, text)))
    assert settings["lambda_"] == 0.5 and settings["gamma"] == 0.99
    assert settings["entropy_coeff"] == 0.02 and settings["num_epochs"] == 3
    assert settings["clip_param"] == 0.1
    config = PPOConfig().training(**settings)
    assert config.lambda_ == 0.5 and config.entropy_coeff == 0.02


def test_options_listing_covers_both_groups():
    text = describe_options()
    assert "num_env_runners: integer = 0" in text
    assert "baseline_weights:" in text
    assert "n_envs" not in text and "bc_teacher" in text


def test_train_command_picks_the_backend_from_the_config(tmp_path):
    from sixtysix_training.commands import chosen_backend

    ns = argparse.Namespace(backend=None, resume=None, config=TINY, set=[])
    assert chosen_backend(ns) == "rllib"
    ns = argparse.Namespace(
        backend=None, resume=None, config=os.path.join(ROOT, "configs", "tiny.yaml"), set=[]
    )
    assert chosen_backend(ns) == "sb3"
    # the backend key as YAML reads it, quoted or not, and from --set
    for text in ('backend: "rllib"', "backend: 'rllib'  # a comment", "{backend: rllib}"):
        path = tmp_path / "c.yaml"
        path.write_text(text + "\n")
        assert chosen_backend(
            argparse.Namespace(backend=None, resume=None, config=str(path), set=[])
        ) == "rllib", text
    ns = argparse.Namespace(backend=None, resume=None, config=None, set=["backend=rllib"])
    assert chosen_backend(ns) == "rllib"


def test_the_sb3_loader_reads_backend_sb3_and_refuses_another_by_name(tmp_path):
    from sixtysix_training.config.loader import ConfigError as SB3ConfigError
    from sixtysix_training.config.loader import load_config as sb3_load_config

    assert sb3_load_config(None, ["backend=sb3"]).shared.name == "run"
    with pytest.raises(SB3ConfigError, match="option 'backend' got 'rllib'.*--backend rllib"):
        sb3_load_config(TINY)


def test_unreachable_address_is_a_clear_error():
    pytest.importorskip("ray")
    from sixtysix_training.rllib.train import ClusterError, init_ray

    with socket.socket() as s:  # a port nobody listens on: bind, then close
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = load_config(TINY, [f"address=127.0.0.1:{port}"])
    with pytest.raises(ClusterError, match=r"cannot reach the Ray cluster at '127\.0\.0\.1:\d+'"
                       r".*train on a local Ray"):
        init_ray(cfg)
    with pytest.raises(ClusterError, match="not 'auto', 'host:port', 'ray://host:port' or 'local'"):
        init_ray(load_config(TINY, ["address=ray://nowhere"]))


def test_league_mapping_agrees_within_an_episode_and_follows_the_weights():
    from sixtysix_training.common.pool import OpponentPool
    from sixtysix_training.rllib import league

    pool = OpponentPool({"random": 0.25, "heuristic": 0.75}, seed=0)
    table = league.cumulative(league.league_table(pool, {}, self_weight=0.0))
    league._LEAGUE.update(table=table, rng=None)
    league._LEAGUE["picks"].clear()

    class Ep:
        def __init__(self, i):
            self.id_ = f"ep{i}"

    counts = {"random": 0, "heuristic": 0}
    seats = [0, 0]
    for i in range(2000):
        ep = Ep(i)
        a, b = league.league_mapping("player_0", ep), league.league_mapping("player_1", ep)
        assert (a == league.LEARNER) != (b == league.LEARNER)
        assert league.league_mapping("player_0", ep) == a  # asked again: the same
        opp = b if a == league.LEARNER else a
        counts[opp] += 1
        seats[0 if a == league.LEARNER else 1] += 1
    assert 0.70 < counts["heuristic"] / 2000 < 0.80
    assert 900 < seats[0] < 1100
    league._LEAGUE.update(table=None, rng=None)


# -- with Ray RLlib ------------------------------------------------------------------------------


def _ray():
    return pytest.importorskip("ray.rllib")


@pytest.fixture
def ray_local():
    _ray()
    import ray

    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 2**20)
    yield
    ray.shutdown()


def test_rllib_ppo_with_masking_trains_on_the_adapter(ray_local):
    """RLlib's own masking module on the PettingZoo env: two PPO iterations, no illegal move."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    from sixtysix_env.env.rllib import rllib_env

    assert isinstance(rllib_env(), PettingZooEnv)
    # raw_env raises on an illegal move, so an unmasked action would fail the test.
    register_env(
        "sixtysix-test",
        lambda cfg: PettingZooEnv(RLlibObservationWrapper(sixtysix_v0.raw_env(**cfg))),
    )
    config = (
        PPOConfig()
        .environment("sixtysix-test", env_config={"rules": "altmisalti"}, disable_env_checking=True)
        .env_runners(num_env_runners=0, num_envs_per_env_runner=4)
        .multi_agent(
            policies={"shared"},
            policy_mapping_fn=lambda agent_id, episode, **kw: "shared",
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config=DefaultModelConfig(fcnet_hiddens=[32]),
                    )
                }
            )
        )
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        for _ in range(2):
            result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 512
        assert result["learners"]["shared"]["num_module_steps_trained"] > 0
    finally:
        algo.stop()


def _masking_spec(net_arch, activation):
    from gymnasium import spaces
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    wrapped = RLlibObservationWrapper(sixtysix_v0.raw_env())
    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=wrapped.observation_space("player_0"),
        action_space=spaces.Discrete(34),
        model_config=DefaultModelConfig(
            fcnet_hiddens=net_arch,
            fcnet_activation=activation,
            vf_share_layers=False,
            head_fcnet_hiddens=[],
        ),
    )


def _some_observations(n=40):
    env = RLlibObservationWrapper(sixtysix_v0.raw_env())
    env.reset(seed=1)
    obs, masks = [], []
    rng = np.random.default_rng(0)
    while len(obs) < n:
        if env.terminations[env.agent_selection]:
            env.reset()
            continue
        o = env.observe(env.agent_selection)
        obs.append(o[OBS_KEY])
        masks.append(o[MASK_KEY])
        env.step(int(rng.choice(np.flatnonzero(o[MASK_KEY]))))
    return np.stack(obs), np.stack(masks)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_export_is_a_weights_copy_of_the_learner(activation):
    _ray()
    import torch
    from ray.rllib.core.columns import Columns

    from sixtysix_training.rllib.weights import network_from_state

    module = _masking_spec([24, 16], activation).build()
    obs, masks = _some_observations()
    with torch.no_grad():
        out = module.forward_inference(
            {Columns.OBS: {OBS_KEY: torch.from_numpy(obs), MASK_KEY: torch.from_numpy(masks)}}
        )
    logits = out[Columns.ACTION_DIST_INPUTS].numpy()
    net = network_from_state(module.get_state(), activation)
    assert net.hidden == [24, 16]
    mine = net.logits(obs)
    legal = masks > 0
    np.testing.assert_allclose(mine[legal], logits[legal], rtol=1e-5, atol=1e-5)
    assert (logits[~legal] < -1e30).all()  # RLlib's mask: log(0) clamped to FLOAT_MIN
    np.testing.assert_array_equal(
        np.where(legal, mine, -np.inf).argmax(-1), np.where(legal, logits, -np.inf).argmax(-1)
    )


def test_behaviour_cloning_fits_the_learner_module():
    """The shared cloning code, through ModuleActorCritic, fits RLlib's masking module."""
    _ray()
    import torch

    from sixtysix_training.common import bc
    from sixtysix_training.rllib.bc import ModuleActorCritic
    from sixtysix_training.rllib.train import learner_spec

    module = learner_spec(config_from_dict({"net_arch": [32]}), standalone=True).build()
    data = bc.collect("heuristic", "teacher", 200, "altmisalti", 0)
    policy = ModuleActorCritic(module)
    tensors = [torch.as_tensor(data[k]) for k in ("obs", "masks", "actions")]
    before = bc.accuracy(policy, *tensors)
    stats = bc.pretrain(policy, data, 3, 256, 1e-3, True, 0)
    assert stats["epochs"][-1]["accuracy"] > before + 0.1
    assert stats["epochs"][-1]["value_loss"] is not None


def test_opponent_modules_play_legal_moves():
    _ray()
    import torch
    from gymnasium import spaces
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from sixtysix_env.policy import load_policy
    from sixtysix_training.rllib import league
    from sixtysix_training.rllib.modules import OpponentModule

    space = league.HeuristicHintWrapper(RLlibObservationWrapper(sixtysix_v0.raw_env()))
    space = space.observation_space("player_0")
    obs, masks = _some_observations()
    hint = np.zeros_like(masks)
    hint[np.arange(len(masks)), masks.argmax(-1)] = 1.0
    batch = {
        Columns.OBS: {
            OBS_KEY: torch.from_numpy(obs),
            MASK_KEY: torch.from_numpy(masks),
            league.HINT_KEY: torch.from_numpy(hint),
        }
    }
    net = load_policy(os.path.join(ROOT, "checkpoints", "sixtysix-ppo.npz")).network
    league._LEAGUE["networks"] = {"snap0": net}
    league._LEAGUE["deterministic"] = True
    for kind, slot in (("random", None), ("heuristic", None), ("snapshot", "snap0")):
        module = RLModuleSpec(
            module_class=OpponentModule,
            observation_space=space,
            action_space=spaces.Discrete(34),
            model_config={"kind": kind, "slot": slot, "seed": 0},
        ).build()
        actions = module.forward_exploration({Columns.OBS: dict(batch[Columns.OBS])})[
            Columns.ACTIONS
        ].numpy()
        assert masks[np.arange(len(actions)), actions].all(), kind
        if kind == "heuristic":
            np.testing.assert_array_equal(actions, hint.argmax(-1))
        if kind == "snapshot":
            expect = np.where(masks > 0, net.logits(obs), -np.inf).argmax(-1)
            np.testing.assert_array_equal(actions, expect)
    league._LEAGUE.update(networks={}, deterministic=False)


def _cli(args: list[str], cwd: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "sixtysix_env.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _train_tiny(cwd: str, **options) -> subprocess.CompletedProcess:
    """``sixtysix train --backend rllib`` on the tiny config with ``--set`` overrides."""
    sets = [x for k, v in options.items() for x in ("--set", f"{k}={v}")]
    return _cli(["train", "--backend", "rllib", "--config", TINY, *sets], cwd)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """The tiny config, shortened: trains on a local Ray, evaluates, saves, exports."""
    _ray()
    cwd = tmp_path_factory.mktemp("rllib")
    r = _train_tiny(
        str(cwd), total_timesteps=24000, eval_every=12000, snapshot_every=8000, num_cpus=2
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return cwd, os.path.join(str(cwd), "runs", "rllib-tiny"), r.stdout


def test_tiny_run_writes_its_run_folder(tiny_run):
    from _processes import RUN_FOLDER

    _, run_dir, out = tiny_run
    for rel in (*RUN_FOLDER, "best/policy.npz", "latest/policy.npz", "latest/checkpoint"):
        assert os.path.exists(os.path.join(run_dir, rel)), rel
    assert len(os.listdir(os.path.join(run_dir, "snapshots"))) >= 2
    assert os.listdir(os.path.join(run_dir, "tb"))
    with open(os.path.join(run_dir, "eval.jsonl"), encoding="utf-8") as f:
        evals = [json.loads(line) for line in f]
    assert evals[0]["steps"] == 0 and evals[-1]["steps"] >= 24000
    with open(os.path.join(run_dir, "progress.csv"), encoding="utf-8") as f:
        header = f.readline()
    for chart in (
        "charts/SPS",
        "charts/return_vs_random",
        "charts/return_vs_heuristic",
        "losses/policy_gradient_loss",
    ):
        assert chart in header, chart
    assert "eval gp/hand vs random" in out
    # the lifecycle's summary (the same keys as the SB3 backend's), then RLlib's own
    from sixtysix_training.common.lifecycle import Session, run_summary
    from sixtysix_training.config.loader import RLlibConfig

    with open(os.path.join(run_dir, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    shared = run_summary(RLlibConfig(), {}, Session(0, 0, 0.0, 0.0, 0.0), {})
    assert set(summary) - set(shared) == {"ray", "num_env_runners", "num_envs_per_env_runner"}
    assert summary["backend"] == "rllib" and summary["steps"] >= 24000


def test_tiny_run_export_beats_random(tiny_run):
    """The exported file loads without ray or torch and beats random over 1,000 paired deals."""
    cwd, run_dir, _ = tiny_run
    out = os.path.join(str(cwd), "tiny.npz")
    r = _cli(
        ["export", run_dir, "-o", out, "--eval-deals", "1000", "--eval-opponents", "random"],
        str(cwd),
    )
    assert r.returncode == 0, r.stderr
    # The run's evaluation log goes beside the policy, as for an SB3 run (plot_curve reads it).
    log = os.path.join(str(cwd), "tiny.eval.jsonl")
    with open(log, encoding="utf-8") as f, open(os.path.join(run_dir, "eval.jsonl")) as g:
        assert f.read() == g.read()
    code = (
        "import sys, json; sys.modules['torch'] = None; sys.modules['ray'] = None\n"
        "from sixtysix_env.policy import load_policy\n"
        f"a = load_policy({out!r}); r = a.metadata['evaluation']['at_export']['against']\n"
        "print(json.dumps([a.metadata['training']['algorithm'], r['random']]))"
    )
    p = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    algorithm, vs_random = json.loads(p.stdout)
    assert "RLlib" in algorithm
    assert vs_random["paired_deals"] == 1000
    assert vs_random["gp_ci95"][0] > 0.2, vs_random


def test_tiny_run_resumes_on_two_env_runners(tiny_run):
    """A resume (learner, optimizer, pool) that samples in two Ray actors instead of the driver."""
    cwd, run_dir, _ = tiny_run
    r = _cli(
        ["train", "--resume", run_dir, "--set", "total_timesteps=28000"]
        + ["--set", "num_env_runners=2"],
        str(cwd),
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "resuming" in r.stdout and "2 env runners" in r.stdout
    with open(os.path.join(run_dir, "latest", "state.json"), encoding="utf-8") as f:
        assert json.load(f)["steps"] >= 28000


def test_impossible_resources_and_unreachable_cluster_fail_clearly(tmp_path):
    _ray()
    r = _cli(
        ["train", "--config", TINY, "--set", "num_cpus=1", "--set", "num_env_runners=3"],
        str(tmp_path),
    )
    assert r.returncode == 2
    assert "asks Ray for 3 CPUs" in r.stderr and "has 1 CPUs" in r.stderr
    r = _cli(["train", "--config", TINY, "--set", "address=ray://127.0.0.1:1"], str(tmp_path))
    assert r.returncode == 2
    assert "cannot reach the Ray cluster at 'ray://127.0.0.1:1'" in r.stderr


def test_address_flag_is_for_the_rllib_backend(capsys):
    from sixtysix_env.cli import main as _cli_main

    def main(argv):
        return _cli_main(["train", *argv])


    assert main(["--config", "quickstart", "--address", "auto"]) == 2
    assert "--address is for the RLlib backend" in capsys.readouterr().err


def test_address_flag_reaches_the_rllib_config(monkeypatch):
    import argparse

    from sixtysix_training import commands as train_cli

    seen = {}
    monkeypatch.setattr(
        train_cli, "run_session", lambda args, backend: seen.setdefault("set", args.set) and 0
    )
    monkeypatch.setattr(train_cli, "backend_named", lambda name: name)
    parser = argparse.ArgumentParser()
    train_cli.add_arguments(parser)
    args = parser.parse_args(
        ["--backend", "rllib", "--config", "configs/rllib-tiny.yaml", "--address", "ray://h:1"]
    )
    train_cli.run(args)
    assert seen["set"] == ["address=ray://h:1"]


def test_linear_rate_lasts_the_whole_run():
    # RLlib counts both seats' moves; a schedule ending at total_timesteps hit 0
    # halfway through a run (measured: identical evaluations after ~150k of 300k steps).
    from sixtysix_training.rllib.train import lr_setting

    t = load_config("configs/rllib-quickstart.yaml").shared
    assert t.lr_schedule == "linear"
    (x0, lr0), (x1, lr1) = lr_setting(t)
    assert (x0, lr0, lr1) == (0, t.learning_rate, 0.0) and x1 == 2 * t.total_timesteps
    t2 = load_config("configs/rllib-tiny.yaml").shared
    assert t2.lr_schedule == "constant" and lr_setting(t2) == t2.learning_rate


def test_shipped_rllib_configs_are_recognised_by_name():
    import argparse

    from sixtysix_training.commands import chosen_backend
    from sixtysix_training.rllib.train import is_rllib_run

    assert is_rllib_run("rllib-tiny") and is_rllib_run("configs/rllib-quickstart.yaml")
    assert not is_rllib_run("quickstart") and not is_rllib_run("no-such-config")
    args = argparse.Namespace(backend=None, resume=None, config="rllib-tiny", set=[])
    assert chosen_backend(args) == "rllib"


# -- the learning options: the same keys as the SB3 backend ------------------------


def _play_training_env(env_config: dict, hands: int, seed: int = 3):
    """Random legal moves through the training AEC env; (observations seen, renamings used).

    ``raw_env`` raises on an illegal move, so a renamed move mapped back wrongly fails here.
    """
    from sixtysix_training.common.learning import SuitRenamer, privileged_features
    from sixtysix_training.rllib import league

    env = league.training_aec_env(env_config)
    renamer = getattr(env, "renamer", None) or SuitRenamer(False)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    raw = env.unwrapped
    seen, ks, done = 0, set(), 0
    while done < hands:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            if not env.agents:
                done += 1
                env.reset()
            continue
        o = env.observe(agent)
        k = getattr(env, "k", 0)
        ks.add(k)
        seat = raw.possible_agents.index(agent)
        plain = raw.observe(agent)
        x = plain["observation"]
        if env_config.get("privileged_critic"):
            x = np.concatenate([x, privileged_features(raw.game_state, seat)])
        np.testing.assert_array_equal(o[OBS_KEY], renamer.obs(x, k))
        np.testing.assert_array_equal(o[MASK_KEY], renamer.mask(plain["action_mask"], k))
        if league.HINT_KEY in o:
            assert o[MASK_KEY][o[league.HINT_KEY].argmax()] == 1.0
        env.step(int(rng.choice(np.flatnonzero(o[MASK_KEY]))))
        seen += 1
    return seen, ks


@pytest.mark.parametrize("privileged", [False, True])
def test_suit_augment_renames_every_seat_and_maps_moves_back(privileged):
    from sixtysix_env.policy.observation import OBS_SIZE
    from sixtysix_training.common.learning import PRIV_SIZE
    from sixtysix_training.rllib import league

    cfg = {"suit_augment": True, "privileged_critic": privileged, "heuristic_hint": True}
    env = league.training_aec_env(cfg)
    size = OBS_SIZE + (PRIV_SIZE if privileged else 0)
    assert env.observation_space("player_0")[OBS_KEY].shape == (size,)
    seen, ks = _play_training_env(cfg, hands=60)
    assert seen > 500 and len(ks) >= 15
    seen, ks = _play_training_env({"heuristic_hint": True}, hands=5)
    assert ks == {0}


def test_privileged_learner_module_actor_ignores_hidden_cards():
    _ray()
    import torch
    from ray.rllib.core.columns import Columns

    from sixtysix_env.policy.observation import OBS_SIZE
    from sixtysix_training.common.learning import PRIV_SIZE
    from sixtysix_training.rllib.modules import PrivilegedLearnerModule
    from sixtysix_training.rllib.train import learner_spec
    from sixtysix_training.rllib.weights import network_from_state

    cfg = config_from_dict({"net_arch": [32, 16], "privileged_critic": True})
    module = learner_spec(cfg, standalone=True).build()
    assert isinstance(module, PrivilegedLearnerModule)
    obs, masks = _some_observations(60)
    rng = np.random.default_rng(1)
    a = np.concatenate([obs, rng.integers(0, 2, (len(obs), PRIV_SIZE)).astype(np.float32)], 1)
    b = np.concatenate([obs, rng.integers(0, 2, (len(obs), PRIV_SIZE)).astype(np.float32)], 1)

    def run(x):
        batch = {Columns.OBS: {OBS_KEY: torch.from_numpy(x), MASK_KEY: torch.from_numpy(masks)}}
        with torch.no_grad():
            # as RLlib's learner does: the values first (which moves the mask out of the
            # observation dict), then the training forward pass
            values = module.compute_values(batch)
            logits = module.forward_train(batch)[Columns.ACTION_DIST_INPUTS]
        return logits.numpy(), values.numpy()

    (la, va), (lb, vb) = run(a), run(b)
    np.testing.assert_array_equal(la, lb)  # the actor cannot read a hidden card
    assert not np.allclose(va, vb)  # the critic does
    net = network_from_state(module.get_state(), "relu")
    assert net.layers[0][0] == OBS_SIZE
    legal = masks > 0
    np.testing.assert_allclose(net.logits(obs)[legal], la[legal], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("privileged", [False, True])
def test_suit_symmetric_learner_module_renames_its_logits_with_the_suits(privileged):
    """actor_symmetry: suits on this backend: the learner's logits for a renamed position are
    the renamed logits, a hidden card changes nothing, and the export is its actor."""
    _ray()
    import torch
    from _processes import check_renames_with_the_suits
    from ray.rllib.core.columns import Columns

    from sixtysix_env.policy.observation import OBS_SIZE
    from sixtysix_training.common.learning import PRIV_SIZE
    from sixtysix_training.rllib.modules import SuitSymmetricLearnerModule
    from sixtysix_training.rllib.train import learner_spec
    from sixtysix_training.rllib.weights import network_from_state

    cfg = config_from_dict(
        {"net_arch": [40, 24], "privileged_critic": privileged, "actor_symmetry": "suits"}
    )
    module = learner_spec(cfg, standalone=True).build()
    assert isinstance(module, SuitSymmetricLearnerModule)
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():  # blocks large enough that every layer matters
        for name, p in module.named_parameters():
            if name.endswith("params"):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.2)
    obs, masks = _some_observations(60)
    rng = np.random.default_rng(1)
    n_priv = PRIV_SIZE if privileged else 0

    def logits(x):
        x = np.concatenate([x, rng.integers(0, 2, (len(x), n_priv)).astype(np.float32)], 1)
        batch = {Columns.OBS: {OBS_KEY: torch.from_numpy(x), MASK_KEY: torch.ones(len(x), 34)}}
        with torch.no_grad():
            module.compute_values(batch)
            return module.forward_train(batch)[Columns.ACTION_DIST_INPUTS].numpy()

    base = check_renames_with_the_suits(logits, obs)
    np.testing.assert_array_equal(base, logits(obs))  # other hidden cards: the same logits
    net = network_from_state(module.get_state(), "relu", [40, 24])
    assert net.layers == [[OBS_SIZE, 40], [40, 24], [24, 34]]
    np.testing.assert_allclose(net.logits(obs), base, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="net_arch"):
        network_from_state(module.get_state(), "relu")


@pytest.mark.parametrize(
    "options, kind",
    [
        ({}, "LearnerModule"),
        ({"privileged_critic": True}, "PrivilegedLearnerModule"),
        ({"privileged_critic": True, "actor_symmetry": "suits"}, "SuitSymmetricLearnerModule"),
    ],
)
def test_critic_arch_sizes_the_learner_modules_value_network_alone(options, kind):
    """``critic_arch`` on this backend: the critic's encoder and value head take its sizes
    (in the learner and in an env runner's inference-only copy), the actor and so the
    export keep net_arch's; null builds RLlib's own module as before."""
    _ray()
    import torch
    from ray.rllib.core.columns import Columns

    from sixtysix_env.policy.observation import OBS_SIZE
    from sixtysix_training.common.learning import PRIV_SIZE
    from sixtysix_training.rllib import modules
    from sixtysix_training.rllib.train import learner_spec
    from sixtysix_training.rllib.weights import network_from_state

    def widths(net):
        return [m.out_features for m in net.modules() if isinstance(m, torch.nn.Linear)]

    cfg = config_from_dict({"net_arch": [40, 24], "critic_arch": [16, 8, 8], **options})
    spec = learner_spec(cfg, standalone=True)
    module = spec.build()
    assert type(module) is getattr(modules, kind)
    assert widths(module.encoder.critic_encoder) == [16, 8, 8]
    assert module.vf.config.input_dims == [8] and widths(module.vf) == [1]
    n_priv = PRIV_SIZE if options.get("privileged_critic") else 0
    obs, masks = _some_observations(20)
    x = np.concatenate([obs, np.zeros((len(obs), n_priv), np.float32)], 1)
    batch = {Columns.OBS: {OBS_KEY: torch.from_numpy(x), MASK_KEY: torch.from_numpy(masks)}}
    with torch.no_grad():
        assert module.compute_values(batch).shape == (len(obs),)
        logits = module.forward_train(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    hidden = [40, 24] if options.get("actor_symmetry") else None
    net = network_from_state(module.get_state(), "relu", hidden)
    assert net.layers == [[OBS_SIZE, 40], [40, 24], [24, 34]]
    legal = masks > 0
    np.testing.assert_allclose(net.logits(obs)[legal], logits[legal], rtol=1e-5, atol=1e-5)
    # an env runner's copy (no critic at all) takes the learner's weights and plays its actor
    spec.inference_only = True
    runner = spec.build()
    assert runner.encoder.critic_encoder is None and not hasattr(runner, "vf")
    runner.set_state(module.get_state(inference_only=True))
    with torch.no_grad():
        out = runner.forward_inference(
            {Columns.OBS: {OBS_KEY: torch.from_numpy(x), MASK_KEY: torch.from_numpy(masks)}}
        )[Columns.ACTION_DIST_INPUTS].numpy()
    np.testing.assert_allclose(out[legal], logits[legal], rtol=1e-5, atol=1e-5)
    plain = learner_spec(config_from_dict({"net_arch": [40, 24], **options}), standalone=True)
    built = plain.build()
    assert widths(built.encoder.critic_encoder) == [40, 24]
    if not options:
        assert type(built).__name__ == "ActionMaskingTorchRLModule"


def test_env_runners_keep_numpys_blas_on_one_thread(two_blas_threads):
    """league.make_env (called in every env runner's process) limits numpy's BLAS to one
    thread, as the SB3 path does while it learns (sixtysix_env/evaluation/blas.py)."""
    _ray()
    from sixtysix_training.rllib.league import make_env

    make_env({"rules": "altmisalti"})
    assert [lib.num_threads for lib in two_blas_threads] == [1] * len(two_blas_threads)


def _train_short_and_export(tmp_path, export_args=(), **options) -> tuple[str, str]:
    """A short run of the tiny config (4,000 steps after cloning 40 heuristic hands, one
    50-deal evaluation at the end) with ``options`` on, then ``sixtysix export`` of it;
    (run folder, exported file)."""
    r = _train_tiny(
        str(tmp_path),
        total_timesteps=4000,
        eval_every=0,
        snapshot_every=4000,
        num_cpus=2,
        bc_teacher="heuristic",
        bc_hands=40,
        eval_deals=50,
        **options,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    run_dir = tmp_path / "runs" / "rllib-tiny"
    saved = (run_dir / "config.yaml").read_text()
    for key, value in options.items():
        assert f"{key}: {value}" in saved
    out = tmp_path / "p.npz"
    r = _cli(["export", str(run_dir), "-o", str(out), *export_args], str(tmp_path))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return str(run_dir), str(out)


@pytest.mark.slow
def test_a_run_with_a_suit_symmetric_actor_trains_and_exports(tmp_path):
    _ray()
    from _processes import check_exported_as_evaluated, check_renames_with_the_suits

    from sixtysix_env.policy import load_policy

    run_dir, out = _train_short_and_export(
        tmp_path, ["--eval-deals", "0"], privileged_critic="true", actor_symmetry="suits"
    )
    net = load_policy(out).network
    assert net.symmetry is None
    check_renames_with_the_suits(net.logits, _some_observations(30)[0])
    # the run's evaluation played this actor: the file scores its best evaluation exactly
    # (averaging it over the renamings would play the same policy, so that is not compared)
    check_exported_as_evaluated(run_dir, out, None, other_differs=False)


@pytest.mark.slow
def test_a_run_with_its_own_critic_sizes_trains_and_exports(tmp_path):
    """critic_arch through a whole run of this backend: the learner trains with the
    narrower critic, the file is its actor at net_arch's sizes, and a resume cannot
    change the critic's sizes."""
    _ray()
    from _processes import check_exported_as_evaluated

    from sixtysix_env.policy import load_policy
    from sixtysix_env.policy.observation import OBS_SIZE

    run_dir, out = _train_short_and_export(tmp_path, critic_arch="[16, 8]")
    assert load_policy(out).network.layers == [[OBS_SIZE, 64], [64, 64], [64, 34]]
    check_exported_as_evaluated(run_dir, out, None)
    r = _cli(["train", "--resume", run_dir, "--set", "critic_arch=[8]"], str(tmp_path))
    assert r.returncode == 2 and "cannot change 'critic_arch' when resuming" in r.stderr


@pytest.mark.slow
def test_a_run_with_both_learning_options_trains_and_exports(tmp_path):
    _ray()
    from _processes import check_exported_as_evaluated

    from sixtysix_env.policy import load_policy
    from sixtysix_env.policy.observation import OBS_SIZE

    run_dir, out = _train_short_and_export(
        tmp_path, suit_augment="true", privileged_critic="true", play_symmetry="suits"
    )
    assert load_policy(out).network.layers[0][0] == OBS_SIZE
    # play_symmetry: the run evaluated the actor averaged over the renamings; so is the file
    check_exported_as_evaluated(run_dir, out, "suits")
    plain = tmp_path / "plain.npz"
    args = ["export", run_dir, "-o", str(plain), "--plain", "--eval-deals", "0"]
    r = _cli(args, str(tmp_path))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    a, b = load_policy(str(plain)).network, load_policy(out).network
    assert a.symmetry is None and all(np.array_equal(x, y) for x, y in zip(a.weights, b.weights))


@pytest.mark.slow
def test_a_run_plays_the_final_baselines_at_the_end(tmp_path):
    """final_baseline_weights on this backend: the heuristic alone, then random alone for
    the last 4,000 steps; the league hands its runners the new table (the per-opponent
    returns show random only after the switch)."""
    _ray()
    import csv

    r = _train_tiny(
        str(tmp_path),
        total_timesteps=8000,
        eval_every=0,
        snapshot_every=0,
        num_cpus=2,
        eval_deals=20,
        baseline_weights="{heuristic: 1.0}",
        recent_weight=0.0,
        final_baseline_weights="{random: 1.0}",
        final_steps=4000,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "the last 4,000 steps play the baselines at final_baseline_weights: random 1" in (
        r.stdout
    )
    run_dir = tmp_path / "runs" / "rllib-tiny"
    with open(run_dir / "progress.csv", encoding="utf-8") as f:
        rows = [row for row in csv.DictReader(f) if row.get("charts/SPS")]
    # the switch comes after the first iteration past 4,000 steps (an iteration holds about
    # train_batch_size / 2 learner steps)
    switch = next(i for i, row in enumerate(rows) if int(row["steps"]) >= 4000)
    assert 0 < switch < len(rows) - 1, [row["steps"] for row in rows]
    for row in rows[: switch + 1]:
        assert row.get("charts/return_vs_heuristic") and not row.get("charts/return_vs_random")
    for row in rows[switch + 1 :]:
        assert row.get("charts/return_vs_random")


def test_sigterm_while_learning_saves_latest_and_exits_143(tmp_path):
    """On RLlib SIGTERM is handled like Ctrl-C (the latest checkpoint
    and state saved, exit 128 + 15), and the run resumes from it."""
    import signal

    from _processes import sigterm_after_evaluations

    _ray()
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-m", "sixtysix_env.cli", "train", "--backend", "rllib", "--config",
         TINY, "--set", "total_timesteps=10000000", "--set", "eval_every=4000",
         "--set", "save_every=10000000", "--set", "eval_deals=20", "--set", "num_cpus=2"],
        cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    run_dir = tmp_path / "runs" / "rllib-tiny"
    out = sigterm_after_evaluations(proc, 2, timeout=300)
    assert proc.returncode == 128 + signal.SIGTERM, out
    assert "SIGTERM: saving the latest model" in out
    state = json.loads((run_dir / "latest" / "state.json").read_text())
    assert state["steps"] >= 4000
    assert (run_dir / "latest" / "checkpoint").is_dir()
    assert not list((run_dir / "latest").glob("checkpoint.*"))  # no .tmp or .old left
    more = state["steps"] + 4000
    r = _cli(["train", "--resume", str(run_dir), "--set", f"total_timesteps={more}"], str(tmp_path))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert json.loads((run_dir / "latest" / "state.json").read_text())["steps"] >= more


def test_the_rllib_path_imports_nothing_of_sb3():
    """``sixtysix train`` picks the backend in training/commands.py; an RLlib session (here its
    options listing) goes there without importing the SB3 backend."""
    code = (
        "import sys\n"
        "from sixtysix_env.cli import main\n"
        "assert main(['train', '--config', 'rllib-tiny', '--list-options']) == 0\n"
        "bad = [m for m in sys.modules if m.startswith(('stable_baselines3', 'sb3_contrib'))\n"
        "       or m in ('sixtysix_training.sb3.train', 'sixtysix_training.sb3.callbacks')]\n"
        "assert not bad, bad\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "num_env_runners: integer = 0" in out.stdout and "n_envs" not in out.stdout
