"""Training: config checking, a smoke run of the script, export equality with torch."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

# Skipped without the [train] extra; found, not imported: collecting the tests
# imports no torch (the tests import it when they run).
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra is not installed"
)
pytest.importorskip("yaml")

from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import player_view
from sixtysix_env.policy.observation import encode_view
from sixtysix_training.config.loader import ConfigError, TrainConfig, field_docs, load_config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

with open(os.path.join(ROOT, "configs", "tiny.yaml"), encoding="utf-8") as _f:
    TINY = _f.read()


def _env() -> dict[str, str]:
    """The environment of a training subprocess: this checkout importable."""
    return dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _run(args: list[str], cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


# -- config --------------------------------------------------------------------------


def test_every_option_has_a_docstring():
    import dataclasses

    from sixtysix_training.config.options import RLlibOptions, SB3Options, SharedOptions

    docs = field_docs()
    sections = (SharedOptions, SB3Options, RLlibOptions)
    missing = [f.name for s in sections for f in dataclasses.fields(s) if not docs.get(f.name)]
    assert not missing


# rllib-*.yaml are the RLlib backend's (tests/training/test_rllib.py loads them).
SHIPPED_CONFIGS = sorted(
    f
    for f in os.listdir(os.path.join(ROOT, "configs"))
    if f.endswith(".yaml") and not f.startswith("rllib-")
)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_shipped_configs_load(name):
    cfg = load_config(os.path.join(ROOT, "configs", name))
    assert cfg.shared.total_timesteps > 0
    # ... and by name, from any folder, as the installed package data.
    assert load_config(name.removesuffix(".yaml")) == cfg


def test_config_by_name_errors_list_the_shipped_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="neither a file nor a shipped config.*quickstart"):
        load_config("quickstar")
    with pytest.raises(ConfigError, match="'elsewhere/x.yaml' does not exist.*quickstart"):
        load_config("elsewhere/x.yaml")
    # The README's clone path also names the shipped config from outside a clone.
    assert load_config("configs/quickstart.yaml").shared.name == "quickstart"


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "totl_timesteps: 5\n",
            "unknown option 'totl_timesteps' \\(did you mean 'total_timesteps'\\?\\)",
        ),
        ("n_envs: four\n", "option 'n_envs' must be integer, got 'four'"),
        ("n_envs: 2.5\n", "option 'n_envs' must be integer"),
        ("progress_bar: 1\n", "option 'progress_bar' must be true/false"),
        ("net_arch: 64\n", "option 'net_arch' must be list of integer"),
        ("baseline_weights: {random: lots}\n", "option 'baseline_weights' must be mapping"),
        ("activation: gelu\n", "option 'activation' got 'gelu'; allowed values: 'relu', 'tanh'"),
        ("rules: poker\n", "option 'rules' got 'poker'; allowed values"),
        ("n_envs: 0\n", "option 'n_envs' got 0; it must be at least 1"),
        ("best_metric: expert\n", "option 'best_metric' got 'expert'"),
        ("- a list\n", "expected a mapping"),
    ],
)
def test_config_errors_name_the_option(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(str(path))


def test_overrides_and_numbers():
    cfg = load_config(
        None, ["learning_rate=3e-4", "n_envs=8", "net_arch=[64, 64]", "target_kl=0.02"]
    )
    assert cfg.shared.learning_rate == 3e-4 and cfg.shared.net_arch == [64, 64]
    assert cfg.sb3.n_envs == 8
    assert cfg.sb3.target_kl == 0.02
    with pytest.raises(ConfigError, match="key=value"):
        load_config(None, ["n_envs"])


def test_train_command_reports_config_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("n_env: 4\n")
    r = _run(
        ["-m", "sixtysix_env", "train", "--config", str(bad), "--run-dir", str(tmp_path / "r")],
        ROOT,
    )
    assert r.returncode == 2
    assert "unknown option 'n_env'" in r.stderr


def test_existing_run_folder_is_not_overwritten(tmp_path, capsys):
    from sixtysix_env.cli import main as _cli_main

    def main(argv):
        return _cli_main(["train", *argv])


    run_dir = tmp_path / "taken"
    run_dir.mkdir()
    (run_dir / "something").write_text("")
    assert main(["--run-dir", str(run_dir)]) == 2
    assert "exists; use --resume" in capsys.readouterr().err
    assert main(["--run-dir", str(run_dir), "--reset-best"]) == 2


# -- smoke run: train, export, load, play -------------------------------------------------


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("train")
    cfg = tmp / "tiny.yaml"
    cfg.write_text(TINY)
    run_dir = tmp / "runs" / "tiny"
    r = _run(
        ["-m", "sixtysix_env", "train", "--config", str(cfg), "--run-dir", str(run_dir)],
        str(tmp),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return run_dir, r.stdout


@pytest.mark.slow
def test_smoke_run_writes_its_run_folder(smoke_run):
    from _processes import RUN_FOLDER

    run_dir, _ = smoke_run
    for rel in (*RUN_FOLDER, "best/model.zip", "latest/model.zip"):
        assert (run_dir / rel).exists(), rel
    assert list((run_dir / "tb").iterdir())
    assert len(list((run_dir / "snapshots").glob("*.npz"))) >= 1
    evals = [json.loads(x) for x in (run_dir / "eval.jsonl").read_text().splitlines()]
    assert [e["steps"] for e in evals] == [0, 256, 512]
    assert set(evals[0]["against"]) == {"random", "heuristic"}
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["steps"] == 512 and summary["bc"]["decisions"] > 0
    assert summary["backend"] == "sb3" and summary["steps_this_session"] == 512
    # the lifecycle's summary (the same keys as the RLlib backend's), then SB3's own
    from sixtysix_training.common.lifecycle import Session, run_summary

    shared = run_summary(TrainConfig(), {}, Session(0, 0, 0.0, 0.0, 0.0), {})
    assert set(summary) - set(shared) == {"init", "critic_precision", "pool_precision"}
    assert summary["critic_precision"] == summary["pool_precision"] == "float32"
    header = (run_dir / "progress.csv").read_text().splitlines()[0]
    assert "charts/return_vs_heuristic" in header or "charts/return_vs_random" in header
    assert "train/value_loss" in header


@pytest.mark.slow
def test_tensorboard_charts_are_grouped(smoke_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir, _ = smoke_run
    acc = EventAccumulator(str(run_dir / "tb"))
    acc.Reload()
    tags = acc.Tags()["scalars"]
    assert tags and all(t.startswith(("charts/", "losses/")) for t in tags), tags
    assert "charts/eval_gp_vs_heuristic" in tags and "losses/value_loss" in tags


@pytest.mark.slow
def test_export_loads_and_plays_a_hand(smoke_run, tmp_path):
    from sixtysix_env.evaluation import play_hand
    from sixtysix_env.policy import load_policy

    run_dir, _ = smoke_run
    out = tmp_path / "exported.npz"
    r = _run(
        ["-m", "sixtysix_env", "export", str(run_dir), "-o", str(out), "--eval-deals", "5"], ROOT
    )
    assert r.returncode == 0, r.stdout + r.stderr
    agent = load_policy(str(out))
    meta = agent.metadata
    assert meta["training"]["config"]["name"] == "tiny"
    # flat, as a policy file's training record always held it (both sections' options)
    config = meta["training"]["config"]
    assert {"seed", "n_envs"} <= set(config) and "shared" not in config
    assert meta["architecture"]["hidden"] == [32, 16]
    assert meta["evaluation"]["at_export"]["against"]["heuristic"]["paired_deals"] == 5
    rng = random.Random(0)
    state = new_hand(rng, 0)
    end = play_hand(
        [agent, load_policy(str(out), deterministic=False)],
        state,
        [random.Random(1), random.Random(2)],
    )
    assert end.is_terminal()
    # The run's evaluation log travels beside the policy, and the curve draws from it.
    log = tmp_path / "exported.eval.jsonl"
    assert log.read_text() == (run_dir / "eval.jsonl").read_text()
    pytest.importorskip("matplotlib")
    from sixtysix_env.cli import main as _cli_main

    def plot_main(argv):
        return _cli_main(["plot-curve", *argv])


    assert plot_main([str(out)]) == 0
    png = (tmp_path / "exported.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


@pytest.mark.slow
def test_resume_continues_the_run(smoke_run, tmp_path):
    import shutil

    run_dir, _ = smoke_run
    copy = tmp_path / "tiny"
    shutil.copytree(run_dir, copy)
    r = _run(
        [
            "-m",
            "sixtysix_env",
            "train",
            "--resume",
            str(copy),
            "--set",
            "total_timesteps=768",
            "--set",
            "learning_rate=0.000123",
            "--set",
            "ent_coef=0.0321",
            "--reset-best",
        ],
        ROOT,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "resuming" in r.stdout and "forgetting the best score" in r.stdout
    assert (copy / "config.until-512.yaml").exists()
    state = json.loads((copy / "latest" / "state.json").read_text())
    assert state["steps"] == 768
    assert len(state["pool"]["snapshots"]) >= 2
    # The changed PPO settings took effect in the resumed model.
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(copy / "latest" / "model.zip"), device="cpu")
    assert model.ent_coef == pytest.approx(0.0321)
    assert model.lr_schedule(0.5) == pytest.approx(0.000123)


@pytest.mark.slow
@pytest.mark.parametrize("key", ["net_arch", "critic_arch"])
def test_resume_refuses_a_new_network(smoke_run, key):
    run_dir, _ = smoke_run
    r = _run(
        ["-m", "sixtysix_env", "train", "--resume", str(run_dir), "--set", f"{key}=[8]"],
        ROOT,
    )
    assert r.returncode == 2
    assert f"cannot change {key!r} when resuming" in r.stderr
    assert not any(p.startswith("config.until-") for p in os.listdir(run_dir))


@pytest.mark.slow
def test_numpy_policy_matches_torch(smoke_run):
    import torch
    from sb3_contrib import MaskablePPO

    from sixtysix_training.common.numpy_policy import network_from_policy

    run_dir, _ = smoke_run
    model = MaskablePPO.load(str(run_dir / "latest" / "model.zip"), device="cpu")
    net = network_from_policy(model.policy)
    rng = random.Random(3)
    obs, masks = [], []
    for _ in range(60):
        s = new_hand(rng, rng.randrange(2))
        while not s.is_terminal():
            v = player_view(s, s.current_player())
            obs.append(encode_view(v))
            masks.append([(v.legal_mask >> a) & 1 for a in range(34)])
            legal = s.legal_actions()
            s = s.apply(legal[rng.randrange(len(legal))])
    obs = np.stack(obs)
    masks = np.array(masks, dtype=bool)
    assert len(obs) > 500
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
        torch_p = dist.distribution.probs.numpy()
    numpy_p = net.probabilities(obs, masks)
    np.testing.assert_allclose(numpy_p, torch_p, atol=1e-5)
    assert (numpy_p[~masks] == 0).all()


# bfloat16 for the critic and the pool's networks (a snapshot at 128 steps plays in the pool)
BFLOAT16 = ("\nbatched_games: true\nprivileged_critic: true\ncritic_precision: bfloat16"
            "\npool_precision: bfloat16\nsnapshot_every: 128\n")


@pytest.mark.slow
@pytest.mark.parametrize("extra", ["", BFLOAT16], ids=["float32", "bfloat16"])
def test_same_seed_same_weights(tmp_path, extra):
    """Two runs with one config and seed end with identical weights (no cloning, no evaluation)."""
    from sixtysix_env.cli import main as _cli_main
    from sixtysix_env.policy import read_policy

    def main(argv):
        return _cli_main(["train", *argv])


    cfg = tmp_path / "r.yaml"
    cfg.write_text(
        TINY.replace("bc_teacher: heuristic", "bc_teacher: null")
        .replace("eval_every: 256", "eval_every: 0")
        .replace("total_timesteps: 512", "total_timesteps: 256")
        .replace("snapshot_every: 256\n", "")
        + (extra or "\nsnapshot_every: 256\n")
    )
    nets = []
    for k in (1, 2):
        assert main(["--config", str(cfg), "--run-dir", str(tmp_path / f"run{k}")]) == 0
        nets.append(read_policy(str(tmp_path / f"run{k}" / "policy.npz"))[0])
    for a, b in zip(nets[0].weights + nets[0].biases, nets[1].weights + nets[1].biases):
        np.testing.assert_array_equal(a, b)
    summary = json.loads((tmp_path / "run1" / "summary.json").read_text())
    expected = "bfloat16" if extra else "float32"
    assert summary["critic_precision"] == summary["pool_precision"] == expected


# -- warm start from a policy file --------------------------------------------------------


def _small_policy_file(path, symmetry=None) -> str:
    """A policy file with a random 349 -> 32 -> 16 -> 34 network (no training needed)."""
    from sixtysix_env.policy import PolicyNetwork, save_policy

    rng = np.random.default_rng(0)
    sizes = [349, 32, 16, 34]
    net = PolicyNetwork(
        [rng.normal(0, 0.1, (a, b)) for a, b in itertools.pairwise(sizes)],
        [np.zeros(b) for b in sizes[1:]],
        "relu",
        symmetry,
    )
    save_policy(path, net)
    return str(path)


def test_init_policy_errors_name_the_problem(tmp_path):
    from sixtysix_training.sb3.train import init_network

    policy = _small_policy_file(tmp_path / "small.npz")
    averaged = _small_policy_file(tmp_path / "averaged.npz", symmetry="suits")
    ok = load_config(None, ["net_arch=[32, 16]", "bc_teacher=null", f"init_policy={policy}"])
    assert init_network(ok).layers == [[349, 32], [32, 16], [16, 34]]
    cases = [
        (
            ["net_arch=[64, 64]", f"init_policy={policy}"],
            r"hidden layers \[32, 16\] relu; the config asks for net_arch \[64, 64\] relu",
        ),
        (["init_policy=heuristic"], "'heuristic', which is not a policy"),
        (
            ["net_arch=[32, 16]", f"init_policy={averaged}"],
            "averages its network over a symmetry \\('suits'\\).*plain policy it was made from",
        ),
        (["init_policy=nowhere.npz"], "option 'init_policy' got 'nowhere.npz'.*does not exist"),
    ]
    for sets, message in cases:
        cfg = load_config(None, ["bc_teacher=null", *sets])
        with pytest.raises(ConfigError, match=message):
            init_network(cfg)
    with pytest.raises(ConfigError, match="'init_policy'.*and 'bc_teacher'.*give one of them"):
        load_config(None, ["bc_teacher=heuristic", "init_policy=sixtysix-ppo"])


@pytest.mark.slow
def test_init_policy_starts_the_actor_from_the_file_and_fits_the_critic(smoke_run, tmp_path):
    """The actor starts as the policy file (bit for bit, up to float32); only the critic is fitted."""
    import torch

    from sixtysix_env.policy import read_policy
    from sixtysix_training.common.numpy_policy import network_from_policy
    from sixtysix_training.common.pool import OpponentPool
    from sixtysix_training.sb3.train import new_model, start_from_policy
    from sixtysix_training.sb3.vec_env import SelfPlayVecEnv

    policy = str(smoke_run[0] / "policy.npz")
    cfg = load_config(
        None,
        [
            "net_arch=[32, 16]",
            "bc_teacher=null",
            f"init_policy={policy}",
            "bc_hands=20",
            "n_envs=2",
            "n_steps=64",
            "batch_size=64",
        ],
    )
    net, _ = read_policy(policy)
    model = new_model(cfg, SelfPlayVecEnv.from_config(cfg, OpponentPool.from_config(cfg.shared)))
    critic = [p.detach().clone() for p in model.policy.value_net.parameters()]
    lines = []
    stats = start_from_policy(cfg, model, None, lines.append)
    copied = network_from_policy(model.policy)
    for a, b in zip(copied.weights + copied.biases, net.weights + net.biases):
        np.testing.assert_allclose(a, b, atol=1e-6)
    assert stats["epochs"][-1]["accuracy"] == 1.0  # its own argmax moves
    assert any(not torch.equal(a, b) for a, b in zip(critic, model.policy.value_net.parameters()))
    assert "starting from" in lines[0] and "value fit" in lines[1]

    # The command: a short run from the file (PPO then moves the actor, as it should).
    from sixtysix_env.cli import main as _cli_main

    def main(argv):
        return _cli_main(["train", *argv])


    assert (
        main(
            [
                "--run-dir",
                str(tmp_path / "warm"),
                "--set",
                "bc_teacher=null",
                "--set",
                f"init_policy={policy}",
                "--set",
                "net_arch=[32, 16]",
                "--set",
                "bc_hands=10",
                "--set",
                "total_timesteps=128",
                "--set",
                "n_envs=2",
                "--set",
                "n_steps=64",
                "--set",
                "batch_size=64",
                "--set",
                "eval_every=0",
                "--set",
                "eval_deals=4",
                "--set",
                "progress_bar=false",
            ]
        )
        == 0
    )
    summary = json.loads((tmp_path / "warm" / "summary.json").read_text())
    assert summary["steps"] >= 128 and summary["init"]["init_policy"] == policy


# -- distillation (DAgger) ---------------------------------------------------------------


@pytest.mark.slow
def test_distill_collect_is_seeded_and_worker_independent(smoke_run):
    from research.distill import collect

    run_dir, _ = smoke_run
    learner = str(run_dir / "policy.npz")
    one = collect(learner, "heuristic", "random", 120, seed=5, workers=1, progress=False)
    two = collect(learner, "heuristic", "random", 120, seed=5, workers=2, progress=False)
    other = collect(learner, "heuristic", "random", 120, seed=6, workers=1, progress=False)
    for k in ("obs", "masks", "actions"):
        np.testing.assert_array_equal(one["data"][k], two["data"][k])
    assert one["meta"]["decisions"] == len(one["data"]["actions"]) > 500
    assert not np.array_equal(one["data"]["actions"], other["data"]["actions"])
    d = one["data"]
    assert d["masks"][np.arange(len(d["actions"])), d["actions"]].all()  # labels are legal
    assert (d["masks"].sum(1) > 1).all()  # forced moves are not recorded


@pytest.mark.slow
def test_distill_fit_moves_the_policy_towards_the_teacher(smoke_run, tmp_path):
    from sb3_contrib import MaskablePPO

    from research.distill import collect, fit, load_data, save_data

    run_dir, _ = smoke_run
    res = collect(
        str(run_dir / "policy.npz"), "heuristic", "heuristic", 100, seed=1, progress=False
    )
    path = str(tmp_path / "d.npz")
    save_data(res, path)
    out = tmp_path / "distilled"
    rec = fit(str(run_dir), [path], str(out), epochs=3, learning_rate=3e-3, batch_size=64)
    assert rec["history"][-1]["accuracy"] > rec["history"][0]["accuracy"]
    assert json.loads((out / "distill.json").read_text())["decisions"] == rec["decisions"]
    model = MaskablePPO.load(str(out / "best" / "model.zip"), device="cpu")
    assert model.num_timesteps == rec["steps"]
    with pytest.raises(FileExistsError, match="exists"):
        fit(str(run_dir), [path], str(out), epochs=1)
    with pytest.raises(ValueError, match="not a distillation data file"):
        load_data([str(run_dir / "policy.npz")])


@pytest.mark.slow  # builds and loads an SB3 model (about 3 s): the full run, not the fast lane
def test_a_model_whose_schedule_module_is_gone_still_loads(tmp_path, monkeypatch):
    """Runs saved before `training` became `sixtysix_training` pickle its schedule by that name."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    from sixtysix_training.sb3.model_file import load_model

    (tmp_path / "old_training_mod.py").write_text(
        "class LinearSchedule:\n"
        "    def __init__(self, lr0):\n        self.lr0 = lr0\n"
        "    def __call__(self, p):\n        return self.lr0 * p\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import old_training_mod

    env = gymnasium.make("SixtySix-v0", opponent="random")
    model = MaskablePPO(
        "MultiInputPolicy", env, learning_rate=old_training_mod.LinearSchedule(1e-3),
        n_steps=16, batch_size=16, device="cpu",
    )  # fmt: skip
    model.save(tmp_path / "model.zip")
    monkeypatch.delitem(sys.modules, "old_training_mod")
    (tmp_path / "old_training_mod.py").unlink()
    with pytest.raises(ModuleNotFoundError):
        MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    loaded = load_model(str(tmp_path / "model.zip"))
    for a, b in zip(model.policy.parameters(), loaded.policy.parameters()):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())


class _Payload:
    """Unpickling it creates a file: the proof that a loader ran a file's code."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _with_data_entry(src, dst, key: str, value) -> None:
    """Copy a model zip, replacing one entry of its ``data`` record by a pickle of ``value``."""
    import base64
    import pickle
    import zipfile

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            raw = zin.read(item)
            if item.filename == "data":
                data = json.loads(raw)
                blob = base64.b64encode(pickle.dumps(value)).decode()
                data[key] = {":type:": "<class 'object'>", ":serialized:": blob}
                raw = json.dumps(data).encode()
            zout.writestr(item, raw)


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_a_crafted_model_zip_runs_no_code_on_load_or_export(tmp_path):
    """The loader unpickles nothing from a run's model.zip."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    from sixtysix_training.sb3.model_file import ModelFileError, load_model

    env = gymnasium.make("SixtySix-v0", opponent="random")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=16, batch_size=16, device="cpu")
    model.save(tmp_path / "model.zip")
    marker = tmp_path / "code-ran"

    # A known entry carrying code: rebuilt, never unpickled.
    _with_data_entry(tmp_path / "model.zip", tmp_path / "known.zip", "_last_obs", _Payload(str(marker)))
    loaded = load_model(str(tmp_path / "known.zip"))
    assert not marker.exists()
    for a, b in zip(model.policy.parameters(), loaded.policy.parameters()):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    # (SB3's own loader runs it: the test would see a loader that unpickles.)
    MaskablePPO.load(tmp_path / "known.zip", device="cpu")
    assert marker.exists()
    marker.unlink()

    # An entry no training run writes: refused, named, not run.
    _with_data_entry(tmp_path / "model.zip", tmp_path / "extra.zip", "evil", _Payload(str(marker)))
    with pytest.raises(ModelFileError, match=r"refusing to load.*\['evil'\]"):
        load_model(str(tmp_path / "extra.zip"))
    out = subprocess.run(
        [sys.executable, "-m", "sixtysix_env", "export", str(tmp_path / "extra.zip"),
         "-o", str(tmp_path / "p.npz"), "--eval-deals", "0"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    # A model outside a run folder is any SB3 model to export: read without SB3's loader
    # (sixtysix_env/policy/sb3.py), the entry ignored, nothing unpickled.
    assert out.returncode == 0, out.stderr
    assert not marker.exists() and (tmp_path / "p.npz").exists()
    run_dir = tmp_path / "run"
    (run_dir / "latest").mkdir(parents=True)
    (run_dir / "config.yaml").write_text("name: run\ntotal_timesteps: 64\n")
    (run_dir / "latest" / "state.json").write_text('{"steps": 16}')
    os.replace(tmp_path / "extra.zip", run_dir / "latest" / "model.zip")
    out = subprocess.run(
        [sys.executable, "-m", "sixtysix_env", "train", "--resume", str(run_dir)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2 and "refusing to load" in out.stderr, out.stderr
    assert not marker.exists()

    # Readable parts this version never builds are refused too.
    import zipfile

    with zipfile.ZipFile(tmp_path / "model.zip") as z:
        data = json.loads(z.read("data"))
    data["policy_kwargs"] = {"activation_fn": "<class 'os.system'>"}
    with zipfile.ZipFile(tmp_path / "model.zip") as zin, zipfile.ZipFile(tmp_path / "act.zip", "w") as zout:
        for item in zin.infolist():
            zout.writestr(item, json.dumps(data) if item.filename == "data" else zin.read(item))
    with pytest.raises(ModelFileError, match="activation"):
        load_model(str(tmp_path / "act.zip"))


def test_an_interrupted_save_keeps_the_previous_model(tmp_path):
    """Saving the best and latest models is atomic."""
    from pathlib import Path

    from sixtysix_training.common.runs import save_model_atomically

    path = tmp_path / "model.zip"
    path.write_bytes(b"the previous model")

    class KilledWhileSaving:
        def save(self, p):
            Path(p).write_bytes(b"half a zip")
            raise KeyboardInterrupt

    class Saves:
        def save(self, p):
            Path(p).write_bytes(b"the new model")

    with pytest.raises(KeyboardInterrupt):
        save_model_atomically(KilledWhileSaving(), str(path))
    assert path.read_bytes() == b"the previous model"
    assert os.listdir(tmp_path) == ["model.zip"]  # no temporary file left
    save_model_atomically(Saves(), str(path))
    assert path.read_bytes() == b"the new model" and os.listdir(tmp_path) == ["model.zip"]


@pytest.mark.slow
def test_sigterm_while_learning_saves_latest_and_exits_143(tmp_path):
    """SIGTERM is handled like Ctrl-C: the latest model and state saved, exit 128 + 15."""
    import signal

    from _processes import sigterm_after_evaluations

    cfg = tmp_path / "long.yaml"
    cfg.write_text(
        TINY.replace("total_timesteps: 512", "total_timesteps: 10000000")
        .replace("save_every: 256", "save_every: 10000000")
        .replace("bc_teacher: heuristic", "bc_teacher: null")
    )
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sixtysix_env", "train", "--config", str(cfg),
         "--run-dir", str(run_dir)],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip

    def saved_before_the_signal():
        # the third evaluation line: 512 steps learnt (eval_every 256); the one periodic
        # save so far was the first rollout's (save_every is huge)
        assert json.loads((run_dir / "latest" / "state.json").read_text())["steps"] < 512

    out = sigterm_after_evaluations(proc, 3, timeout=120, before=saved_before_the_signal)
    assert proc.returncode == 128 + signal.SIGTERM, out
    assert "SIGTERM: saving the latest model" in out
    state = json.loads((run_dir / "latest" / "state.json").read_text())
    assert state["steps"] >= 512
    assert not list((run_dir / "latest").glob("*.tmp"))
    from sixtysix_training.sb3.model_file import load_model

    assert load_model(str(run_dir / "latest" / "model.zip")).num_timesteps == state["steps"]
    from sixtysix_env.cli import main as _cli_main

    def main(argv):
        return _cli_main(["train", *argv])


    more = state["steps"] + 256
    assert main(["--resume", str(run_dir), "--set", f"total_timesteps={more}"]) == 0
    assert json.loads((run_dir / "latest" / "state.json").read_text())["steps"] >= more
