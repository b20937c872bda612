"""RLCard: "sixtysix" registered with RLCard, checked against the engine; docs/ecosystem.md's
DQN and DMC recipes run with tiny sizes; DMC's network exported exactly as a policy file."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest
from _ecosystem import require

pytestmark = pytest.mark.ecosystem

rlcard = require("rlcard", "rlcard")

from rlcard.envs.registration import registry
from rlcard.utils import tournament

import sixtysix_env.env.rlcard  # the one import: registers "sixtysix"
from sixtysix_env.agents import make_agent
from sixtysix_env.env.rlcard import ProjectAgent
from sixtysix_env.game.actions import action_name
from sixtysix_env.game.view import player_view
from sixtysix_env.policy import read_policy
from sixtysix_env.policy.observation import OBS_SIZE, encode_view
from sixtysix_env.util.errors import IllegalActionError

ROOT = Path(__file__).resolve().parents[2]


def test_make_after_one_import():
    assert "sixtysix" in registry.env_specs
    env = rlcard.make("sixtysix")
    assert (env.num_players, env.num_actions) == (2, 34)
    assert env.state_shape == [[OBS_SIZE], [OBS_SIZE]]
    assert env.action_shape == [None, None]
    state, player = env.reset()
    assert set(state) == {"obs", "legal_actions", "raw_obs", "raw_legal_actions", "action_record"}
    assert state["obs"].dtype == np.float32 and state["obs"].shape == (OBS_SIZE,)
    assert isinstance(state["legal_actions"], OrderedDict)
    assert set(state["legal_actions"].values()) == {None}
    assert player == env.get_player_id() == state["raw_obs"]["player"]
    sixtysix_env.env.rlcard.register_env()  # a second registration is a no-op, not an error


def _play(env, rng: random.Random) -> list:
    """One hand of random legal moves, each state checked against the engine played beside."""
    state, player = env.reset()
    engine = env.game.state
    moves = []
    while not env.is_over():
        assert player == engine.current_player() == env.get_player_id()
        assert list(state["legal_actions"]) == engine.legal_actions()
        assert state["raw_legal_actions"] == [action_name(a) for a in engine.legal_actions()]
        for seat in (0, 1):
            seen = env.get_state(seat)
            assert np.array_equal(seen["obs"], encode_view(player_view(engine, seat)))
            assert bool(seen["legal_actions"]) == (seat == player)
        action = rng.choice(list(state["legal_actions"]))
        moves.append((player, action_name(action)))
        state, player = env.step(action)
        engine = engine.apply(action)
    assert state["action_record"] == moves
    payoffs = env.get_payoffs()
    assert list(payoffs) == [float(r) for r in engine.returns()]
    assert payoffs.sum() == 0
    return [moves, list(payoffs)]


def test_states_legal_actions_and_payoffs_are_the_engines():
    env = rlcard.make("sixtysix", config={"seed": 1})
    rng = random.Random(0)
    results = [_play(env, rng) for _ in range(20)]
    assert {p for _, payoffs in results for p in payoffs} - {0.0}  # hands were won and lost


def test_the_seed_gives_the_same_hands():
    def hands(seed):
        env = rlcard.make("sixtysix", config={"seed": seed})
        rng = random.Random(0)
        return [_play(env, rng) for _ in range(5)]

    assert hands(7) == hands(7)
    assert hands(7) != hands(8)
    env = rlcard.make("sixtysix", config={"seed": 8})
    env.seed(7)  # as DMC's actors do
    rng = random.Random(0)
    assert [_play(env, rng) for _ in range(5)] == hands(7)


def test_rules_from_the_config_and_bad_keys_refused():
    assert rlcard.make("sixtysix").game.rules.name == "altmisalti"
    assert rlcard.make("sixtysix", config={"game_rules": "santase"}).game.rules.name == "santase"
    env = rlcard.make("sixtysix", config={"game_rules": {"preset": "pagat66"}})
    assert env.game.rules.name == "pagat66"
    with pytest.raises(ValueError, match="'game_rule'.*'game_rules'"):
        rlcard.make("sixtysix", config={"game_rule": "santase"})
    with pytest.raises(ValueError, match="unknown rule preset 'nope'"):
        rlcard.make("sixtysix", config={"game_rules": "nope"})


def test_an_illegal_action_raises_and_changes_nothing():
    env = rlcard.make("sixtysix", config={"seed": 2})
    state, _ = env.reset()
    illegal = next(a for a in range(34) if a not in state["legal_actions"])
    before = env.game.state
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(illegal)
    assert env.game.state is before


def test_step_back_and_perfect_information():
    env = rlcard.make("sixtysix", config={"seed": 3, "allow_step_back": True})
    state, player = env.reset()
    env.step(next(iter(state["legal_actions"])))
    back, again = env.step_back()
    assert again == player and np.array_equal(back["obs"], state["obs"])
    assert env.step_back() is False  # at the deal
    info = env.get_perfect_information()
    assert sorted(len(h) for h in info["hands"]) == [6, 6]
    assert info["legal_actions"] == state["raw_legal_actions"]


def test_project_agents_in_rlcards_tournament():
    env = rlcard.make("sixtysix", config={"seed": 4})

    def score():
        env.seed(4)
        env.set_agents([ProjectAgent("heuristic"), ProjectAgent("random", seed=1)])
        return tournament(env, 60)

    first = score()
    assert first == score()  # the same deals and the same random moves
    assert first[0] > 0.5 and first[0] == -first[1]


def _block(index: int) -> str:
    """docs/ecosystem.md's python blocks under "RLCard" (0: DQN, 1: DMC)."""
    text = (ROOT / "docs" / "ecosystem.md").read_text(encoding="utf-8")
    body = text.split("\n## RLCard\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", body, re.DOTALL)
    assert len(blocks) == 2
    return blocks[index]


def _tiny(code: str, replacements: dict[str, str]) -> str:
    for old, new in replacements.items():
        assert old in code, old
        code = code.replace(old, new)
    return code


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", code], check=False, cwd=cwd,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def test_the_dqn_recipe_trains_and_plays_the_heuristic(tmp_path):
    code = _tiny(_block(0), {"range(300)": "range(30)", "tournament(env, 100)": "tournament(env, 5)"})
    done = _run(code, tmp_path)
    assert re.search(r"DQN against the heuristic: -?\d", done.stdout)
    assert "rl-loss" in done.stdout + done.stderr  # DQN's own training steps ran


def test_the_dmc_recipe_ends_and_its_export_is_dmcs_network(tmp_path):
    import torch
    from rlcard.agents.dmc_agent.model import DMCAgent

    code = _tiny(_block(1), {"total_frames=12_800": "total_frames=64, unroll_length=8, "
                             "batch_size=2, num_buffers=4"})
    done = _run(code, tmp_path)  # the process ends: the actor processes were ended
    frames = int(re.search(r"'frames': (\d+)", done.stdout).group(1))
    assert frames >= 64 and frames % 16 == 0  # whole batches of 8 steps x 2
    saved = torch.load(tmp_path / "runs/rlcard-dmc/sixtysix/model.tar", weights_only=True)
    dmc = DMCAgent([OBS_SIZE], [34], mlp_layers=[64, 64], device="cpu")
    dmc.load_state_dict(saved["model_state_dict"][0])
    policy = make_agent(str(tmp_path / "my_dmc.npz"))
    meta = read_policy(tmp_path / "my_dmc.npz")[1]
    assert meta["name"] == "my-dmc"
    assert meta["training"] == {"algorithm": "rlcard-dmc", "steps": frames}
    env = rlcard.make("sixtysix", config={"seed": 5})
    state, _ = env.reset()
    rng = random.Random(0)
    for _ in range(40):
        keys, values = dmc.predict(state)
        logits = policy.network.logits(state["obs"])
        np.testing.assert_allclose(logits[keys], values, rtol=1e-4, atol=1e-5)
        view = state["raw_obs"]["view"]
        assert policy.act(view, rng) == keys[int(np.argmax(values))]
        state, _ = env.step(int(rng.choice(list(keys))))
        if env.is_over():
            state, _ = env.reset()


def test_export_refuses_another_network():
    from sixtysix_training.rlcard_dmc import q_network

    other = {"fc_layers.0.weight": np.zeros((8, 100)), "fc_layers.0.bias": np.zeros(8),
             "fc_layers.2.weight": np.zeros((1, 8)), "fc_layers.2.bias": np.zeros(1)}
    with pytest.raises(ValueError, match="reads 100 values"):
        q_network(other)
