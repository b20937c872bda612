"""One CLI: a usage error exits 2 in every command, said on stderr before anything
runs; ``--help`` names the kinds of agent, the benchmark's time and the allowed ports."""

from __future__ import annotations

import importlib.util

import pytest

from sixtysix_env.cli import main
from sixtysix_env.policy.shipped import shipped_names

#: Where each command takes an agent spec ("{}"), and the extra it needs.
AGENT_COMMANDS = {
    "eval": (["eval", "{}", "random", "--deals", "1", "--no-progress"], None),
    "benchmark": (["benchmark", "{}", "--quick", "--no-progress"], None),
    "play": (["play", "--opponent", "{}"], None),
    "serve": (["serve", "--opponent", "{}"], "flask"),
    "exploit": (["exploit", "{}"], "stable_baselines3"),
    "demo": (["demo", "--agents", "{}", "random"], None),
}

#: A bad agent spec and what the error must say.
BAD_AGENTS = {
    "unknown agent": ("nobody", "unknown agent 'nobody'"),
    "unknown option": ("heuristic:bogus=1", "no option 'bogus'"),
    "bad option value": ("expert:samples=many", "samples must be a whole number"),
    "malformed spec": ("heuristic:x", "malformed agent option 'x'"),
    "missing policy file": ("no/such/policy.npz", "does not exist"),
    "broken policy file": ("{broken}", "not a readable sixtysix-policy file"),
}


def _needs(module: str | None) -> None:
    if module is not None and importlib.util.find_spec(module) is None:
        pytest.skip(f"needs {module} (an extra)")


@pytest.fixture
def broken(tmp_path):
    path = tmp_path / "broken.npz"
    path.write_text("not a policy")
    return str(path)


@pytest.mark.parametrize("kind", list(BAD_AGENTS))
@pytest.mark.parametrize("command", list(AGENT_COMMANDS))
def test_a_bad_agent_is_a_usage_error_in_every_command(command, kind, broken, capsys,
                                                       tmp_path, monkeypatch):
    argv, extra = AGENT_COMMANDS[command]
    _needs(extra)
    monkeypatch.chdir(tmp_path)  # nothing is written: exploit's run folder would be here
    spec, said = BAD_AGENTS[kind]
    spec = spec.format(broken=broken)
    assert main([a.replace("{}", spec) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sixtysix {command}: ") and said in err
    assert list(tmp_path.iterdir()) == [tmp_path / "broken.npz"]


@pytest.mark.parametrize(
    "argv, said, extra",
    [
        (["eval", "random", "heuristic", "--bogus"], "unrecognized arguments: --bogus", None),
        (["eval", "random", "heuristic", "--deals", "0"], "must be >= 1", None),
        (["eval", "random"], "at least two agents", None),
        (["benchmark", "random", "--workers", "0"], "--workers must be >= 1", None),
        (["play", "--rules", "nope"], "invalid choice: 'nope'", None),
        (["demo", "--bogus"], "unrecognized arguments", None),
        (["serve", "--port", "99999"], "a port is a whole number from 1 to 65535, got 99999",
         "flask"),
        (["serve", "--port", "0"], "from 1 to 65535, got 0", "flask"),
        (["serve", "--port", "http"], "from 1 to 65535, got 'http'", "flask"),
        (["export", "no/such/model.zip", "-o", "out.npz"], "neither a run folder nor a model",
         "stable_baselines3"),
        (["exploit", "heuristic", "--steps", "0"], "--steps must be >= 1", "stable_baselines3"),
        (["leaderboard", "no/such/folder"], "is not a folder", None),
    ],
)
def test_bad_options_are_usage_errors(argv, said, extra, capsys, tmp_path, monkeypatch):
    _needs(extra)
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert said in capsys.readouterr().err


def test_eval_help_lists_each_kind_of_agent_name(capsys):
    assert main(["eval", "--help"]) == 0
    text = capsys.readouterr().out
    for needle in ("random", "heuristic", "expert", "guided", "expert:samples=16",
                   "policy.npz", "model.zip", "model.save", "[train]",
                   "package.module:ClassName", "heuristic = 1500"):
        assert needle in text, needle
    for name in shipped_names():
        assert name in text, name


def test_benchmark_help_says_how_long_it_takes(capsys):
    assert main(["benchmark", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "A full run of a fast agent takes a few minutes with one worker" in text
    assert "--quick seconds" in text and "Without numba" in text
    assert "expert and guided" in text and "package.module:ClassName" in text


def test_serve_help_names_the_ports(capsys):
    _needs("flask")
    assert main(["serve", "--help"]) == 0
    assert "1-65535" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "extra", "said"),
    [
        (["ensemble", "no/a.npz", "no/b.npz", "-o", "out.npz"], "stable_baselines3",
         "no policy file 'no/a.npz', 'no/b.npz'"),
        (["plot-curve", "no/such.npz"], "stable_baselines3", "'no/such.npz' does not exist"),
        (["export", "no/such.zip", "-o", "out.npz"], "stable_baselines3",
         "neither a run folder nor a model file"),
    ],
)
def test_a_missing_input_file_is_a_usage_error_in_the_training_commands(argv, extra, said,
                                                                       capsys, tmp_path,
                                                                       monkeypatch):
    _needs(extra)
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sixtysix {argv[0]}: ") and said in err
    assert list(tmp_path.iterdir()) == []
