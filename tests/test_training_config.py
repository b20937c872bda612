"""The training config's checks through msgspec, its YAML numbers, and docs without the source."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("msgspec")
pytest.importorskip("yaml")

from sixtysix_training.config import (
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
    assert cfg.learning_rate == 3e-4 and cfg.ent_coef == 1e-2
    assert cfg.baseline_weights == {"random": 0.1, "heuristic": 1.0}
    assert all(type(w) is float for w in cfg.baseline_weights.values())


@pytest.mark.parametrize(
    "override, message",
    [
        ("n_envs=true", "option 'n_envs' must be integer, got True"),
        ("learning_rate=true", "option 'learning_rate' must be number, got True"),
        ("name=5", "option 'name' must be string, got 5"),
        ("net_arch=[64, true]", "option 'net_arch' must be list of integer"),
        ("baseline_weights={1: 2}", "option 'baseline_weights' must be mapping of string to number"),
        ("target_kl=[1]", "option 'target_kl' must be number | null"),
    ],
)
def test_strict_types_no_bool_for_a_number(override, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("|", r"\|")):
        load_config(None, [override])


def test_integers_widen_to_floats_and_lists_are_fresh():
    cfg = load_config(None, ["gamma=1", "learning_rate=1"])
    assert type(cfg.gamma) is float and type(cfg.learning_rate) is float
    a, b = load_config(None), load_config(None)
    a.net_arch.append(8)
    a.baseline_weights["expert"] = 1.0
    assert b.net_arch == [256, 256] and "expert" not in b.baseline_weights
