"""The training config's checks through msgspec, its YAML numbers, and docs without the source."""

from __future__ import annotations

import inspect
import re

import pytest

pytest.importorskip("msgspec")
pytest.importorskip("yaml")

from sixtysix_training.config.loader import (
    ConfigError,
    describe_options,
    field_docs,
    load_config,
    read_yaml,
)


def test_docs_do_not_need_the_source_code(monkeypatch):
    """An installation without .py files (or a frozen app) still lists every option's meaning."""

    def no_source(obj):
        raise OSError("could not get source code")

    monkeypatch.setattr(inspect, "getsource", no_source)
    docs = field_docs()
    assert docs["n_envs"].startswith("Games played side by side")
    assert "Games played side by side" in describe_options()


def test_yaml_numbers_without_a_dot_are_numbers_everywhere(tmp_path):
    assert read_yaml("a: 3e-4\nb: 1E5\nc: -2e+1\nd: 3.0\ne: 7\nf: '3e-4'\n") == {
        "a": 3e-4, "b": 1e5, "c": -20.0, "d": 3.0, "e": 7, "f": "3e-4",
    }
    path = tmp_path / "c.yaml"
    path.write_text("learning_rate: 3e-4\nbaseline_weights: {random: 1e-1, heuristic: 1}\n")
    cfg = load_config(str(path), ["ent_coef=1e-2"])
    assert cfg.shared.learning_rate == 3e-4 and cfg.shared.ent_coef == 1e-2
    assert cfg.shared.baseline_weights == {"random": 0.1, "heuristic": 1.0}
    assert all(type(w) is float for w in cfg.shared.baseline_weights.values())


@pytest.mark.parametrize(
    "override, message",
    [
        ("n_envs=true", "option 'n_envs' must be integer, got True"),
        ("learning_rate=true", "option 'learning_rate' must be number, got True"),
        ("name=5", "option 'name' must be string, got 5"),
        ("net_arch=[64, true]", "option 'net_arch' must be list of integer"),
        ("baseline_weights={1: 2}", "option 'baseline_weights' must be mapping of string to number"),
        ("target_kl=[1]", "option 'target_kl' must be number | null"),
        (
            "play_symmetry=mirror",
            "option 'play_symmetry' got 'mirror'; allowed values: null, 'suits'",
        ),
        (
            "actor_symmetry=ranks",
            "option 'actor_symmetry' got 'ranks'; allowed values: null, 'suits'",
        ),
    ],
)
def test_strict_types_no_bool_for_a_number(override, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("|", r"\|")):
        load_config(None, [override])


def test_integers_widen_to_floats_and_lists_are_fresh():
    cfg = load_config(None, ["gamma=1", "learning_rate=1"])
    assert type(cfg.shared.gamma) is float and type(cfg.shared.learning_rate) is float
    a, b = load_config(None), load_config(None)
    a.shared.net_arch.append(8)
    a.shared.baseline_weights["expert"] = 1.0
    assert b.shared.net_arch == [256, 256] and "expert" not in b.shared.baseline_weights


# -- hostile configs --------------------------------------------------------------------

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
name: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_a_billion_laughs_config_is_refused_at_once(tmp_path):
    """A 300-byte YAML expanded into a 140 MB error message after 26 s."""
    import time

    path = tmp_path / "laughs.yaml"
    path.write_text(BILLION_LAUGHS)
    t0 = time.perf_counter()
    with pytest.raises(ConfigError, match="more than 100000 values once its aliases") as e:
        load_config(str(path))
    assert time.perf_counter() - t0 < 2.0 and len(str(e.value)) < 500
    # The same as one --set value, in YAML's flow style.
    levels = ["&l0 [" + ",".join(["1"] * 9) + "]"]
    levels += [f"&l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)]
    with pytest.raises(ConfigError, match="more than 100000 values") as e:
        load_config(None, ["net_arch=[" + ", ".join(levels) + "]"])
    assert len(str(e.value)) < 500
    # A few anchors, as a person might use them, still load.
    path.write_text("net_arch: &w [64, 64]\neval_opponents: [heuristic]\n")
    assert load_config(str(path)).shared.net_arch == [64, 64]


def test_deep_nesting_is_a_config_error_not_a_recursion_error(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("net_arch: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError, match="nests deeper than 32 levels"):
        load_config(str(path))
    with pytest.raises(ConfigError, match="nests deeper than 32 levels"):
        load_config(None, ["net_arch=" + "[" * 5000 + "]" * 5000])


@pytest.mark.parametrize(
    "override, message",
    [
        ("ent_coef=.inf", "'ent_coef' got inf; it must be a finite number"),
        ("vf_coef=.nan", "'vf_coef' got nan; it must be a finite number"),
        ("target_kl=.inf", "'target_kl' got inf; it must be a finite number"),
        ("recent_weight=.inf", "'recent_weight' got inf"),
        ("baseline_weights={heuristic: .inf}", "weights must be finite"),
        ("n_envs=100000", "'n_envs' got 100000; at most 1024"),
        ("eval_workers=5000", "'eval_workers' got 5000; at most 256"),
        ("total_timesteps=1000000000000000", "at most 1000000000000"),
        ("net_arch=[100000]", "at most 15 layers of at most 65536 units"),
        ("torch_threads=100000", "'torch_threads' got 100000; at most 256"),
    ],
)
def test_non_finite_and_huge_values_are_refused_by_name(override, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(None, [override])


def test_an_oversized_config_file_is_refused_unread(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("# " + "x" * (2 << 20) + "\nname: big\n")
    with pytest.raises(ConfigError, match="is 2097165 bytes; a config is read up to 1048576"):
        load_config(str(path))


def test_force_empties_only_a_run_folder(tmp_path, monkeypatch):
    """`--force` emptied whatever folder the config named (runs_dir: /, name: ..)."""
    from sixtysix_training.common.runs import RUN_MARKER, clear_new_run_dir, make_run_dir

    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(ConfigError, match="--force empties only a training run folder"):
        clear_new_run_dir(str(precious), force=True)
    assert (precious / "thesis.tex").read_text() == "years of work"
    # ... even with a config.yaml among other things
    (precious / "config.yaml").write_text("name: x\n")
    with pytest.raises(ConfigError, match="not one"):
        clear_new_run_dir(str(precious), force=True)
    assert (precious / "thesis.tex").exists()

    run = tmp_path / "run"
    make_run_dir(str(run))
    (run / "config.yaml").write_text("name: run\n")
    (run / "latest").mkdir()
    assert (run / RUN_MARKER).is_file()
    clear_new_run_dir(str(run), force=True)
    assert not run.exists()
    # A run folder made before the marker: only what a run writes.
    old = tmp_path / "old"
    (old / "best").mkdir(parents=True)
    (old / "config.yaml").write_text("name: old\n")
    (old / "config.until-5000.yaml").write_text("name: old\n")
    clear_new_run_dir(str(old), force=True)
    assert not old.exists()


# -- one loader, one saver, sections ---------------------------------------------------


def test_the_loader_files_each_key_into_its_section(tmp_path):
    from sixtysix_training.config.loader import (
        RLlibConfig,
        SharedOptions,
        TrainConfig,
        config_from_dict,
        save_config,
    )

    sb3 = config_from_dict({"n_envs": 8, "seed": 3})
    assert isinstance(sb3, TrainConfig) and sb3.sb3.n_envs == 8 and sb3.shared.seed == 3
    assert type(sb3.shared) is SharedOptions
    rl = config_from_dict({"num_env_runners": 2, "seed": 3}, backend="rllib")
    assert isinstance(rl, RLlibConfig) and rl.rllib.num_env_runners == 2 and rl.shared.seed == 3
    assert not hasattr(rl.shared, "n_envs")  # the SB3 section is no part of an RLlib config
    with pytest.raises(ConfigError, match="'num_env_runners' is an option of the rllib backend"):
        config_from_dict({"num_env_runners": 2})
    with pytest.raises(ConfigError, match="'n_envs' is not supported by the rllib backend"):
        config_from_dict({"n_envs": 2}, backend="rllib")
    for cfg, backend in ((sb3, "sb3"), (rl, "rllib")):
        path = str(tmp_path / f"{backend}.yaml")
        save_config(cfg, path)
        assert load_config(path, backend=backend) == cfg
        assert f"backend: {backend}\n" in open(path).read()


def test_a_flat_config_without_backend_key_loads_as_before(tmp_path):
    """Run folders written before the sections (no backend key, SB3 options among the shared)."""
    path = tmp_path / "config.yaml"
    path.write_text("name: old\nn_envs: 4\nn_steps: 64\nbatch_size: 128\nnet_arch: [32]\n")
    cfg = load_config(str(path))
    assert (cfg.shared.name, cfg.shared.net_arch) == ("old", [32])
    assert (cfg.sb3.n_envs, cfg.sb3.n_steps) == (4, 64)


def test_each_backend_lists_the_shared_options_and_its_own():
    sb3, rllib = describe_options(), describe_options("rllib")
    assert "# shared by both backends:" in sb3 and "n_envs: integer = 32" in sb3
    assert "num_env_runners" not in sb3 and "num_env_runners: integer = 0" in rllib
    assert "n_envs" not in rllib and "bc_teacher" in sb3 and "bc_teacher" in rllib
