"""One run record (issue 68, goal 5): one config shape for both backends, one summary built by
the lifecycle, ``sixtysix exploit`` opening its run through the lifecycle."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import warnings

import pytest

pytest.importorskip("msgspec")
pytest.importorskip("yaml")

from sixtysix_training.common import lifecycle
from sixtysix_training.config.loader import (
    ConfigError,
    RLlibConfig,
    RunConfig,
    SharedOptions,
    TrainConfig,
    config_from_dict,
    load_config,
    save_config,
)
from sixtysix_training.config.options import SHARED_FIELDS

TRAINING = os.path.join(os.path.dirname(__file__), "..", "..", "training")


def test_both_configs_hold_the_shared_options_as_one_section_of_one_class():
    sb3 = config_from_dict({"seed": 3, "n_envs": 8})
    rllib = config_from_dict({"seed": 3, "num_env_runners": 2}, backend="rllib")
    for cfg in (sb3, rllib):
        assert isinstance(cfg, RunConfig) and type(cfg.shared) is SharedOptions
        assert [f.name for f in dataclasses.fields(cfg)] == ["shared", cfg.backend]
        assert cfg.section is getattr(cfg, cfg.backend)
    assert sb3.shared == rllib.shared  # the same options, spelled the same
    assert not isinstance(sb3, SharedOptions) and sb3.sb3.n_envs == 8


def test_the_backends_code_spells_a_shared_option_one_way():
    """In the backends and ``exploit`` a config's shared option is ``cfg.shared.x``: no
    ``cfg.train.x`` (RLlib's old name), no flat ``cfg.x`` (SB3's). (``training/common``'s
    helpers take the shared options themselves.)"""
    option = "|".join(SHARED_FIELDS)
    old = re.compile(rf"\bcfg\.train\b|\b(?:self\.)?cfg\.(?:{option})\b")
    paths = [os.path.join(TRAINING, "exploit.py")] + [
        os.path.join(TRAINING, backend, name)
        for backend in ("sb3", "rllib")
        for name in sorted(os.listdir(os.path.join(TRAINING, backend)))
        if name.endswith(".py")
    ]
    found = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            found += [f"{path}: {line.strip()}" for line in f if old.search(line)]
    assert not found


def test_the_old_spellings_still_work_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match=r"cfg\.seed is deprecated; use cfg\.shared\.seed"):
        assert TrainConfig(SharedOptions(seed=4)).seed == 4
    with pytest.warns(DeprecationWarning, match=r"TrainConfig\(option=value\) is deprecated"):
        assert TrainConfig(n_envs=8).sb3.n_envs == 8
    with pytest.warns(DeprecationWarning, match=r"use cfg\.shared"):
        assert RLlibConfig(train=SharedOptions(seed=5)).train.seed == 5
    with pytest.raises(TypeError, match="'nope'"):
        TrainConfig(nope=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cfg = TrainConfig()
        assert cfg.shared.seed == 0 and cfg.sb3.n_envs == 32


def test_a_nested_config_loads_to_the_values_of_the_flat_one(tmp_path):
    flat = tmp_path / "flat.yaml"
    flat.write_text("name: a\nseed: 4\nn_envs: 8\nbatch_size: 128\n")
    nested = tmp_path / "nested.yaml"
    nested.write_text("name: a\nshared: {seed: 4, batch_size: 128}\nsb3: {n_envs: 8}\n")
    assert load_config(str(nested)) == load_config(str(flat))
    rl = tmp_path / "rl.yaml"
    rl.write_text("backend: rllib\nshared: {seed: 4}\nrllib: {num_env_runners: 2}\n")
    assert load_config(str(rl), backend="rllib") == load_config(
        None, ["seed=4", "num_env_runners=2"], backend="rllib"
    )
    save_config(load_config(str(nested)), str(tmp_path / "saved.yaml"))  # saved flat
    assert "\nseed: 4\n" in (tmp_path / "saved.yaml").read_text()


@pytest.mark.parametrize(
    "values, message",
    [
        ({"rllib": {"num_env_runners": 2}}, "section 'rllib' holds the rllib backend's options"),
        ({"shared": [1]}, "section 'shared' must be a mapping"),
        ({"shared": {"n_envs": 2}}, "section 'shared' has no option 'n_envs'"),
        ({"seed": 1, "shared": {"seed": 2}}, "option 'seed' is given twice"),
    ],
)
def test_a_wrong_nested_config_is_refused_by_name(values, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        config_from_dict(values)


def _session() -> lifecycle.Session:
    return lifecycle.Session(steps=100, steps_this_session=60, wall_time_s=9.0,
                             learn_wall_time_s=6.0, learning_seconds=3.0)


def test_the_lifecycle_builds_the_same_summary_keys_for_both_backends():
    state = {"best_score": 0.5, "best_steps": 50}
    sb3 = lifecycle.run_summary(TrainConfig(), state, _session(), {"init": None})
    rllib = lifecycle.run_summary(RLlibConfig(), state, _session(), {"ray": "local"})
    assert set(sb3) - {"init"} == set(rllib) - {"ray"}
    assert (sb3["backend"], rllib["backend"]) == ("sb3", "rllib")
    assert sb3["steps_per_s"] == 20.0 and sb3["steps_per_s_with_eval"] == 10.0
    with pytest.raises(ValueError, match="redefine shared keys: steps"):
        lifecycle.run_summary(TrainConfig(), state, _session(), {"steps": 1})


@pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra")
def test_the_sb3_summary_is_the_lifecycles_with_its_extras(monkeypatch):
    from sixtysix_training.sb3 import train

    class Model:
        num_timesteps = 100

    formats = {"critic_precision": "float32", "pool_precision": "float32"}
    monkeypatch.setattr(train, "_precisions", lambda cfg, model: formats)
    cfg = TrainConfig()
    got = train._summary(cfg, Model(), {"best_score": 0.5}, 6.0, 3.0, 60)
    shared = lifecycle.run_summary(cfg, {"best_score": 0.5}, _session(), {})
    assert set(shared) <= set(got) and got["backend"] == "sb3"
    assert set(got) - set(shared) == {"init", "critic_precision", "pool_precision"}
    assert got["wall_time_s"] == 6.0 and got["steps"] == 100 and got["steps_per_s"] == 20.0


def test_the_rllib_summary_is_the_lifecycles_with_its_extras():
    with open(os.path.join(TRAINING, "rllib", "train.py"), encoding="utf-8") as f:
        src = f.read()
    assert "run_summary(cfg, run.state, run.session(speed)," in src
    assert '"backend": "rllib"' not in src  # no summary of its own


@pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra")
def test_exploit_opens_its_run_through_the_lifecycle(tmp_path, monkeypatch, capsys):
    from sixtysix_env import cli
    from sixtysix_training.sb3 import train

    opened = []
    start_run = lifecycle.start_run
    monkeypatch.setattr(lifecycle, "start_run", lambda *a: opened.append(a) or start_run(*a))

    def stopped(cfg, run_dir, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "train", stopped)
    run = tmp_path / "run"
    rc = cli.main(["exploit", "heuristic", "--steps", "64", "--run-dir", str(run),
                   "--no-progress"])
    assert rc == 130, capsys.readouterr().err
    assert len(opened) == 1 and opened[0][1] == str(run)
    assert sorted(os.listdir(run)) == [".sixtysix-run", "config.yaml"]
    assert load_config(str(run / "config.yaml")) == opened[0][0]
