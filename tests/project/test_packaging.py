"""The package as installed: shipped policies and configs by name, import names, version, CLI.

The wheel itself is built and used outside the checkout by ``.ci/wheel_smoke.sh``;
these tests check the same promises on the (editable) installation the tests run in.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

import sixtysix_env
from sixtysix_env import cli, new_hand, player_view
from sixtysix_env.agents import AgentSpecError, agent_names, make_agent
from sixtysix_env.policy import load_policy, read_policy
from sixtysix_env.policy.shipped import policy_summary, shipped_policies

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIPPED_NPZ = sorted(f for f in os.listdir(os.path.join(ROOT, "checkpoints")) if f.endswith(".npz"))


def _python(code: str, cwd: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter from ``cwd`` (outside the checkout: no repo on sys.path)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _sixtysix(args: list[str], cwd: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sixtysix_env", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **kw,
    )


# -- layout ------------------------------------------------------------------------------


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def test_every_source_package_is_listed_for_installation():
    """An explicit package list must not forget a subpackage added later."""
    setuptools = _pyproject()["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    dirs = setuptools["package-dir"]
    found = set()
    for top, folder in (("sixtysix_env", "sixtysix_env"), ("sixtysix_training", "training")):
        for here, subdirs, files in os.walk(os.path.join(ROOT, folder)):
            subdirs[:] = [d for d in subdirs if d != "__pycache__"]
            if "__init__.py" in files:
                rel = os.path.relpath(here, os.path.join(ROOT, folder))
                found.add(top if rel == "." else top + "." + rel.replace(os.sep, "."))
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"
    assert dirs["sixtysix_training"] == "training"
    assert dirs["sixtysix_env.checkpoints"] == "checkpoints"
    assert dirs["sixtysix_training.configs"] == "configs"


def test_version_is_written_once():
    project = _pyproject()["project"]
    assert "version" not in project and "version" in project["dynamic"]
    from importlib.metadata import version

    assert version("sixtysix") == sixtysix_env.__version__


def test_no_generic_training_module_outside_the_checkout(tmp_path):
    r = _python(
        "import importlib.util as u, sixtysix_training.config.loader as c; "
        "print(u.find_spec('training'), c.__name__)",
        str(tmp_path),
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["None", "sixtysix_training.config.loader"]


# -- shipped policies by name ------------------------------------------------------------


def test_shipped_policies_are_the_checkpoints_folder():
    """One copy of each policy: the name finds checkpoints/NAME.npz, card and curve beside it."""
    shipped = shipped_policies()
    assert sorted(f"{n}.npz" for n in shipped) == SHIPPED_NPZ
    for name, sp in shipped.items():
        assert os.path.samefile(sp.path, os.path.join(ROOT, "checkpoints", f"{name}.npz"))
        assert sp.card is not None and sp.curve is not None, name
        assert f"({name}.png)" in sp.card.read_text(encoding="utf-8"), "the card shows its curve"


def test_make_agent_by_name_from_any_folder(tmp_path):
    r = _python(
        "from sixtysix_env.agents import make_agent; a = make_agent('sixtysix-ppo'); "
        "b = make_agent('sixtysix-ppo:deterministic=false'); print(a.name, a.deterministic, "
        "b.deterministic)",
        str(tmp_path),
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["sixtysix-ppo", "True", "False"]


def test_a_shipped_name_plays_like_its_file():
    by_name = make_agent("sixtysix-ppo")
    by_file = load_policy(os.path.join(ROOT, "checkpoints", "sixtysix-ppo.npz"))
    rng = random.Random(3)
    for i in range(20):
        state = new_hand(rng, i % 2)
        while not state.is_terminal():
            view = player_view(state, state.current_player())
            a = by_name.act(view, random.Random(0))
            assert a == by_file.act(view, random.Random(0))
            state = state.apply(a)


def test_shipped_names_are_offered_everywhere_a_name_is():
    import gymnasium

    assert "sixtysix-ppo" in agent_names()
    env = gymnasium.make("SixtySix-v0", opponent="sixtysix-ppo")
    assert env.unwrapped.opponent.name == "sixtysix-ppo"
    env.close()
    pytest.importorskip("flask")
    from sixtysix_env.play import web

    options = web.create_app().test_client().get("/api/options").get_json()
    assert "sixtysix-ppo" in options["opponents"]


@pytest.mark.parametrize(("spec", "says"), [
    ("sixtysix-pp", "shipped policies: sixtysix-ppo"),
    ("expert:foo=1", "no option 'foo'.*samples=64"),
    ("random:seed=1", "'random'.*no option 'seed'; it takes no options"),
    ("sixtysix-ppo:foo=1", "no option 'foo'.*deterministic=True"),
])
def test_agent_errors_name_what_is_allowed(spec, says):
    with pytest.raises(AgentSpecError, match=says):
        make_agent(spec)


def test_a_training_run_folder_is_refused_naming_the_export(tmp_path):
    run = tmp_path / "runs" / "quickstart"
    (run / "best").mkdir(parents=True)
    (run / "config.yaml").write_text("name: quickstart\n")
    with pytest.raises(
        AgentSpecError, match=r"training run folder.*sixtysix export .*quickstart -o"
    ):
        make_agent(str(run))


def test_eval_of_a_run_folder_says_to_export_it(tmp_path):
    run = tmp_path / "runs" / "quickstart"
    (run / "latest").mkdir(parents=True)
    (run / "latest" / "model.zip").write_bytes(b"")
    r = _sixtysix(["eval", "runs/quickstart", "random", "--deals", "2"], str(tmp_path))
    assert r.returncode != 0
    assert "sixtysix export runs/quickstart -o runs/quickstart.npz" in r.stderr


# -- the command -------------------------------------------------------------------------


def test_version_flag(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"sixtysix {sixtysix_env.__version__}"


def test_help_and_agents_list_the_shipped_policies_with_their_figures(capsys):
    assert cli.main(["--help"]) == 0
    assert "shipped opponents, by name: sixtysix-ppo" in capsys.readouterr().out
    assert cli.main(["agents"]) == 0
    out = capsys.readouterr().out
    _, meta = read_policy(os.path.join(ROOT, "checkpoints", "sixtysix-ppo.npz"))
    for opp, f in meta["evaluation"]["at_export"]["against"].items():
        lo, hi = f["gp_ci95"]
        line = (
            f"vs {opp:<10} {f['gp_per_hand']:+.3f} [{lo:+.3f}, {hi:+.3f}] "
            f"over {f['paired_deals']:,} paired deals"
        )
        assert line in out
    assert f"{meta['training']['steps']:,} training steps" in out
    summary = policy_summary(os.path.join(ROOT, "checkpoints", "sixtysix-ppo.npz"))
    assert summary["against"]["heuristic"]["gp_per_hand"] > 0.3


def test_a_missing_extra_is_named(monkeypatch, capsys):
    """No Flask: `sixtysix serve` says which extra to install instead of a traceback."""
    monkeypatch.setitem(sys.modules, "flask", None)  # `import flask` now fails
    monkeypatch.delitem(sys.modules, "sixtysix_env.play.web", raising=False)
    assert cli.main(["serve"]) == 2
    err = capsys.readouterr().err
    assert 'pip install "sixtysix[play]"' in err and "flask" in err


def test_a_missing_library_that_is_no_extra_is_not_hidden():
    assert cli._missing_extra("serve", ModuleNotFoundError("x", name="numpy")) is None
    assert cli._missing_extra("demo", ModuleNotFoundError("x", name="flask")) is None
    assert "sixtysix[train]" in cli._missing_extra("train", ModuleNotFoundError("x", name="yaml"))


# -- the learning curve's data ----------------------------------------------------------


def test_the_shipped_curve_data_names_its_sources():
    """The shipped run's log was reconstructed: every figure in it says where it came from."""
    path = os.path.join(ROOT, "checkpoints", "sixtysix-ppo.eval.jsonl")
    with open(path, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    figures = [r for r in records if "against" in r]
    assert figures and all(r.get("source") for r in figures)
    assert any("about" in r for r in records)
    _, meta = read_policy(os.path.join(ROOT, "checkpoints", "sixtysix-ppo.npz"))
    best = meta["evaluation"]["during_training"]
    assert any(
        r.get("steps") == best["steps"]
        and r["against"]["heuristic"]["gp_per_hand"] == best["against"]["heuristic"]["gp_per_hand"]
        for r in figures
    )
