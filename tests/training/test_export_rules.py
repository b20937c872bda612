"""``sixtysix export MODEL.zip --rules PRESET``: the preset a model saved outside a run was
trained for, recorded in the policy file (it was always ``altmisalti``, so a schnapsen-vu
model exported from SB3 played its own rules with a false rules warning), and refused where
a run's config or a policy file already names the rules."""

from __future__ import annotations

import warnings

import pytest

from sixtysix_env.cli import main


def _run_folder(tmp_path, rules: str):
    run = tmp_path / "run"
    (run / "best").mkdir(parents=True)
    (run / "config.yaml").write_text(f"name: run\nrules: {rules}\n", encoding="utf-8")
    (run / "best" / "model.zip").write_bytes(b"not read: refused before")
    return run


@pytest.mark.parametrize("model", ["folder", "zip"])
def test_a_run_s_model_under_other_rules_is_refused_before_any_work(tmp_path, capsys, model):
    run = _run_folder(tmp_path, "santase")
    path = run if model == "folder" else run / "best" / "model.zip"
    out = tmp_path / "p.npz"
    assert main(["export", str(path), "--rules", "schnapsen-vu", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--rules schnapsen-vu" in err and "trained for 'santase'" in err
    assert not out.exists()


def test_a_policy_file_records_its_own_rules(tmp_path, capsys):
    out = tmp_path / "v5.onnx"
    code = main(["export", "sixtysix-ppo-v5", "--format", "onnx", "--rules", "santase",
                 "-o", str(out)])
    assert code == 2
    assert "records its own rules" in capsys.readouterr().err
    assert not out.exists()


def test_an_unknown_preset_is_refused_naming_the_presets(capsys):
    assert main(["export", "m.zip", "--rules", "skat", "-o", "p.npz"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'skat'" in err and "schnapsen-vu" in err


@pytest.mark.slow  # trains a tiny SB3 model (seconds)
def test_an_sb3_model_exported_with_rules_plays_them_without_a_warning(tmp_path):
    pytest.importorskip("sb3_contrib", reason="the [train] extra")
    import gymnasium
    from sb3_contrib import MaskablePPO

    from sixtysix_env.agents import make_agent
    from sixtysix_env.env.sb3 import SB3VecEnv
    from sixtysix_env.evaluation.play import play_paired_deal
    from sixtysix_env.game.rules import make_rules

    env = SB3VecEnv(gymnasium.make_vec("SixtySix-v0", num_envs=4, rules="schnapsen-vu",
                                       vectorization_mode="vector_entry_point",
                                       autoreset_mode="SameStep"))
    model = MaskablePPO("MultiInputPolicy", env, n_steps=32, batch_size=64, seed=0,
                        policy_kwargs={"net_arch": [16]})
    model.learn(128)
    path = tmp_path / "mine.zip"
    model.save(path)
    out = tmp_path / "mine.npz"
    assert main(["export", str(path), "--rules", "schnapsen-vu", "-o", str(out),
                 "--eval-deals", "0"]) == 0
    agent = make_agent(str(out))
    assert agent.metadata["rule_preset"] == "schnapsen-vu"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RulesMismatchWarning would fail here
        play_paired_deal(agent, make_agent("random"), 1, 0, make_rules("schnapsen-vu"))
    default = tmp_path / "default.npz"
    assert main(["export", str(path), "-o", str(default), "--eval-deals", "0"]) == 0
    assert make_agent(str(default)).metadata["rule_preset"] == "altmisalti"
