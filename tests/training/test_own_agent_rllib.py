"""docs/own-agent.md's RLlib section, run as written: its code trains an RLlib Algorithm on
the adapter and saves a checkpoint, its commands evaluate the checkpoint and export it; the
agent then plays the trained module's own greedy moves.

Needs Ray RLlib (the ``[rllib]`` extra; CI runs this file in its own virtual environment,
``.venv-ci-rllib``, see ``.ci/run``) and is skipped without it. Nothing heavy is imported
at the top (the fast lane collects this file).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from _own_agent_page import PAGE, ROOT, Recorder, check_commands, page_section

SPEC = "examples.own_agents.rllib_agent:RLlibAgent:path={path}"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The section's code run in a fresh folder on a small local Ray: its namespace (the
    trained ``algo``), the folder (the checkpoint) and the section's commands."""
    pytest.importorskip("ray.rllib")
    import ray
    import torch

    threads = torch.get_num_threads()
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 2**20)
    code, commands = page_section("RLlib")
    folder = tmp_path_factory.mktemp("rllib")
    here = os.getcwd()
    os.chdir(folder)
    namespace: dict = {"__name__": "own_agent_page"}
    try:
        exec(compile(code, f"{PAGE} (RLlib)", "exec"), namespace)
        yield namespace, folder, commands
    finally:
        os.chdir(here)
        if "algo" in namespace:
            namespace["algo"].stop()
        ray.shutdown()
        torch.set_num_threads(threads)


def test_the_page_trains_saves_evaluates_and_exports(page):
    _, folder, commands = page
    assert (folder / "rllib_checkpoint" / "learner_group").is_dir()
    check_commands(commands, folder, "rllib.npz")


def test_the_agent_plays_the_trained_modules_own_moves(page, tmp_path):
    import torch
    from ray.rllib.core.columns import Columns

    from examples.own_agents.rllib_agent import to_policy_file
    from sixtysix_env.agents import make_agent
    from sixtysix_env.env.rllib import MASK_KEY, OBS_KEY
    from sixtysix_env.evaluation import evaluate

    namespace, folder, _ = page
    checkpoint = folder / "rllib_checkpoint"
    agent = Recorder(make_agent(SPEC.format(path=checkpoint)))
    result = evaluate([agent, "heuristic"], deals=4, seed=3)
    assert result.complete and len(agent.seen) > 30

    module = namespace["algo"].get_module("shared")  # the trained module, still in memory
    dist_class = module.get_inference_action_dist_cls()
    to_policy_file(str(checkpoint), str(tmp_path / "exported.npz"))
    exported = make_agent(str(tmp_path / "exported.npz"))
    rng = random.Random(0)
    not_first = 0
    for obs, view, action in agent.seen:
        mask = obs["action_mask"]
        assert mask[action] == 1, (action, view.legal_actions())
        batch = {Columns.OBS: {OBS_KEY: torch.from_numpy(obs["observation"])[None],
                               MASK_KEY: torch.from_numpy(mask.astype("float32"))[None]}}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        own = int(dist_class.from_logits(logits).to_deterministic().sample()[0])
        assert action == own
        assert exported.act(view, rng) == action
        not_first += action != view.legal_actions()[0]
    assert not_first > 0  # the network chose, not the order of the legal actions


def test_a_checkpoint_of_several_modules_needs_a_name(page, tmp_path):
    from examples.own_agents.rllib_agent import module_folder

    _, folder, _ = page
    checkpoint = folder / "rllib_checkpoint"
    assert module_folder(str(checkpoint)).endswith(os.path.join("rl_module", "shared"))
    fake = tmp_path / "two" / "learner_group" / "learner" / "rl_module"
    (fake / "a").mkdir(parents=True)
    (fake / "b").mkdir()
    with pytest.raises(ValueError, match="holds the modules a, b; name one with module=NAME"):
        module_folder(str(tmp_path / "two"))
    assert module_folder(str(tmp_path / "two"), "b") == str(fake / "b")
    with pytest.raises(ValueError, match="no checkpoint folder .*algo.save_to_path"):
        module_folder(str(tmp_path / "none"))


def test_the_cost_script_runs_on_the_pages_checkpoint(page):
    """A smoke run of speed/own_agents.py (the page's costs); it times, nothing here does."""
    _, folder, _ = page
    done = subprocess.run(
        [sys.executable, str(ROOT / "speed" / "own_agents.py"), "--hands", "3",
         "--rllib", str(folder / "rllib_checkpoint")],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for label in ("RLlib: RLlibAgent.act", "RLlib: forward_inference", "RLlib: exported .npz",
                  "machine: "):
        assert label in done.stdout, done.stdout
