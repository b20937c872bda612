"""SB3 model files (``model.save``) as agents and policy files: sixtysix_env/policy/sb3.py.

The slow tests train each kind of model the docs' recipes make (MaskablePPO, PPO, DQN;
``MultiInputPolicy`` on the Dict observation, ``MlpPolicy`` on ``MaskInInfo``'s flat one)
and check that the numpy network plays the move the SB3 model ranks first among the legal
ones on 100,000 observations from real games, and that ``sixtysix eval``, ``export`` and
``benchmark --quick`` take the file. The fast ones check the policy file of format version
3 (a network that reads the mask) and the refusals, with no training.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from sixtysix_env.agents import make_agent
from sixtysix_env.agents.registry import AgentSpecError
from sixtysix_env.evaluation.play import play_paired_deal, play_paired_deals_batched
from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.rules import make_rules
from sixtysix_env.policy import (
    PolicyAgent,
    PolicyFileError,
    PolicyNetwork,
    read_policy,
    save_policy,
)
from sixtysix_env.policy.fileformat import INPUTS_FORMAT_VERSION
from sixtysix_env.policy.observation import OBS_SIZE


@pytest.fixture
def torch():
    """torch, for the tests that write SB3-like files (imported in the test, not when the
    fast lane is collected: tests/project/test_fast_lane.py)."""
    return pytest.importorskip("torch")


_DICT_SPACE = {
    ":type:": "<class 'gymnasium.spaces.dict.Dict'>",
    "spaces": "{'action_mask': Box(0, 1, (34,), int8), 'observation': Box(0.0, 1.0, (349,), "
    "float32)}",
}
_BOX_SPACE = {":type:": "<class 'gymnasium.spaces.box.Box'>", "_shape": "[349]"}
_MASKABLE = {":type:": "<class 'abc.ABCMeta'>",
             "__module__": "sb3_contrib.common.maskable.policies"}


def _mask_network(seed: int = 0, order=("action_mask", "observation")) -> PolicyNetwork:
    rng = np.random.default_rng(seed)
    sizes = [OBS_SIZE + NUM_ACTIONS, 32, NUM_ACTIONS]
    weights = [rng.normal(0, 0.3, (a, b)).astype(np.float32) for a, b in zip(sizes, sizes[1:])]
    biases = [rng.normal(0, 0.1, b).astype(np.float32) for b in sizes[1:]]
    return PolicyNetwork(weights, biases, "relu", inputs=order)


def _fake_model(path, data: dict, state: dict) -> str:
    """A zip laid out as SB3 saves a model: the JSON record and the weights."""
    import torch

    buf = io.BytesIO()
    torch.save(state, buf)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(data))
        zf.writestr("policy.pth", buf.getvalue())
        zf.writestr("_stable_baselines3_version", "2.9.2")
    return str(path)


def _actor_state(net: PolicyNetwork) -> dict:
    """An actor-critic state dict holding ``net`` as policy_net + action_net."""
    import torch

    state = {}
    *hidden, last = list(zip(net.weights, net.biases))
    for i, (w, b) in enumerate(hidden):
        state[f"mlp_extractor.policy_net.{2 * i}.weight"] = torch.tensor(w.T.copy())
        state[f"mlp_extractor.policy_net.{2 * i}.bias"] = torch.tensor(b)
    state["action_net.weight"] = torch.tensor(last[0].T.copy())
    state["action_net.bias"] = torch.tensor(last[1])
    state["value_net.weight"] = torch.zeros(1, 32)
    return state


# -- the policy file that reads the mask (format version 3), numpy alone ----------------


def test_a_network_reading_the_mask_round_trips_as_format_version_3(tmp_path):
    net = _mask_network()
    record = save_policy(tmp_path / "m.npz", net, {"name": "m"})
    assert record["format_version"] == INPUTS_FORMAT_VERSION
    assert record["architecture"]["inputs"] == ["action_mask", "observation"]
    back, meta = read_policy(tmp_path / "m.npz")
    assert back.inputs == ("action_mask", "observation") and back.reads_mask
    obs = np.random.default_rng(1).integers(0, 2, (5, OBS_SIZE)).astype(np.float32)
    mask = np.random.default_rng(2).integers(0, 2, (5, NUM_ACTIONS)).astype(bool)
    np.testing.assert_array_equal(back.logits(obs, mask), net.logits(obs, mask))
    # The mask changes the logits: it is read, not ignored.
    assert not np.array_equal(net.logits(obs, mask), net.logits(obs, ~mask))
    with pytest.raises(ValueError, match="reads the action mask"):
        net.logits(obs)


def test_a_plain_network_is_still_written_as_version_1(tmp_path):
    rng = np.random.default_rng(0)
    net = PolicyNetwork([rng.normal(size=(OBS_SIZE, NUM_ACTIONS)).astype(np.float32)],
                        [np.zeros(NUM_ACTIONS, np.float32)], "tanh")
    assert save_policy(tmp_path / "p.npz", net)["format_version"] == 1
    assert read_policy(tmp_path / "p.npz")[0].inputs == ("observation",)


@pytest.mark.parametrize(
    ("inputs", "message"),
    [(["observation"], "declares one of"), (["action_mask"], "declares one of"),
     ("observation", "declares one of")],
)
def test_a_version_3_file_with_bad_inputs_is_refused(tmp_path, inputs, message):
    path = tmp_path / "m.npz"
    save_policy(path, _mask_network())
    with np.load(path) as z:
        arrays = dict(z)
    meta = json.loads(arrays["metadata"].tobytes())
    meta["architecture"]["inputs"] = inputs
    arrays["metadata"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez(path, **arrays)
    with pytest.raises(PolicyFileError, match=message):
        read_policy(path)


def test_a_version_1_file_that_declares_inputs_is_refused(tmp_path):
    path = tmp_path / "m.npz"
    save_policy(path, _mask_network())
    with np.load(path) as z:
        arrays = dict(z)
    meta = json.loads(arrays["metadata"].tobytes())
    meta["format_version"] = 1
    arrays["metadata"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez(path, **arrays)
    with pytest.raises(PolicyFileError, match="declares its inputs"):
        read_policy(path)


def test_a_symmetry_with_the_mask_as_input_is_refused():
    net = _mask_network()
    with pytest.raises(ValueError, match="reads the observation alone"):
        net.with_symmetry("suits")


def test_lock_step_play_of_a_network_reading_the_mask_is_the_per_hand_play():
    pytest.importorskip("numba")
    from sixtysix_env.agents.batch import batched

    agent = PolicyAgent(_mask_network(3), name="m")
    rules = make_rules("altmisalti")
    heur = make_agent("heuristic")
    lock = play_paired_deals_batched(batched(agent), batched(heur), 11, 0, 40, rules)
    one = [play_paired_deal(agent, heur, 11, i, rules) for i in range(40)]
    assert [r.gp for r in lock] == [r.gp for r in one]


# -- SB3 files without training: what is read and what is refused -----------------------


@pytest.mark.slow  # imports torch (about 2 s): the full run, not the fast lane
def test_a_model_file_is_read_as_its_actor(tmp_path, torch):
    net = _mask_network(5)
    data = {"policy_class": _MASKABLE, "observation_space": _DICT_SPACE, "num_timesteps": 640,
            "policy_kwargs": {"activation_fn": "<class 'torch.nn.modules.activation.ReLU'>"}}
    path = _fake_model(tmp_path / "m.zip", data, _actor_state(net))
    agent = make_agent(path)
    assert agent.network.inputs == net.inputs
    for mine, theirs in zip(agent.network.weights, net.weights):
        np.testing.assert_array_equal(mine, theirs)
    assert agent.metadata["sb3"]["algorithm"] == "MaskablePPO"
    assert agent.metadata["sb3"]["steps"] == 640


@pytest.mark.slow  # imports torch (about 2 s): the full run, not the fast lane
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"policy_class": {"__module__": "sixtysix_training.sb3.policy"}}, "sixtysix export RUN"),
        # A run's model saved before the training folders were laid out records the old path.
        ({"policy_class": {"__module__": "sixtysix_training.sb3_policy"}}, "sixtysix export RUN"),
        ({"policy_class": {"__module__": "sb3_contrib.qrdqn.policies"}}, "sb3_contrib.qrdqn"),
        ({"observation_space": {":type:": "<class 'gymnasium.spaces.discrete.Discrete'>"}},
         "observation space of type"),
        ({"policy_kwargs": {"activation_fn": "<class 'torch.nn.modules.activation.ELU'>"}},
         "ReLU or Tanh"),
        ({"policy_kwargs": {"features_extractor_class": "<class 'x.Mine'>"}},
         "features_extractor_class"),
        ({"observation_space": _BOX_SPACE}, "observation .349 inputs"),
    ],
)
def test_models_this_reader_cannot_play_are_refused_naming_why(tmp_path, change, message,
                                                               torch):
    data = {"policy_class": _MASKABLE, "observation_space": _DICT_SPACE,
            "policy_kwargs": {"activation_fn": "<class 'torch.nn.modules.activation.ReLU'>"}}
    data.update(change)
    path = _fake_model(tmp_path / "m.zip", data, _actor_state(_mask_network()))
    with pytest.raises(PolicyFileError, match=message):
        make_agent(path)


@pytest.mark.slow  # imports torch (about 2 s): the full run, not the fast lane
def test_bad_files_and_options_are_refused(tmp_path, torch):
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent(str(tmp_path / "none.zip"))
    (tmp_path / "x.zip").write_text("not a zip")
    with pytest.raises(PolicyFileError, match="not a readable zip file"):
        make_agent(str(tmp_path / "x.zip"))
    with zipfile.ZipFile(tmp_path / "y.zip", "w") as zf:
        zf.writestr("other", "x")
    with pytest.raises(PolicyFileError, match="no 'data' record"):
        make_agent(str(tmp_path / "y.zip"))
    net = _mask_network()
    data = {"policy_class": _MASKABLE, "observation_space": _DICT_SPACE}
    path = _fake_model(tmp_path / "m.zip", data, _actor_state(net))
    with pytest.raises(AgentSpecError, match="no option 'samples'"):
        make_agent(f"{path}:samples=3")
    dqn = {"policy_class": {"__module__": "stable_baselines3.dqn.policies"},
           "observation_space": _DICT_SPACE}
    state = {"q_net.q_net.0.weight": torch.tensor(net.weights[0].T.copy()),
             "q_net.q_net.0.bias": torch.tensor(net.biases[0]),
             "q_net.q_net.2.weight": torch.tensor(net.weights[1].T.copy()),
             "q_net.q_net.2.bias": torch.tensor(net.biases[1])}
    path = _fake_model(tmp_path / "q.zip", dqn, state)
    assert make_agent(path).network.activation == "relu"  # DQN's default
    with pytest.raises(PolicyFileError, match="is a DQN"):
        make_agent(path, deterministic=False)


# -- real SB3 models, trained briefly (slow) --------------------------------------------


def _observations(n: int, seed: int = 0, width: int = 2000):
    """``n`` observations and masks of the seat to move, from hands played on the batched
    engine by the heuristic and random legal moves (half each)."""
    from sixtysix_env.agents.batch import BatchedHeuristic
    from sixtysix_env.batched.engine import BatchedHands

    rng = np.random.default_rng(seed)
    hands, heur = BatchedHands(width), BatchedHeuristic()
    lanes = np.arange(width)
    obs, masks = [], []
    while sum(map(len, obs)) < n:
        done = lanes[hands.over(lanes)]
        if len(done):
            decks = np.argsort(rng.random((len(done), 24)), axis=1)
            hands.deal(done, decks, rng.integers(0, 2, len(done)))
        seats = hands.to_move(lanes)
        o, m = hands.observe(lanes, seats)
        obs.append(o.copy())
        masks.append(m.copy())
        acts = heur.act_batch(hands, lanes, seats)
        legal = m.astype(bool)
        pick = (rng.random(legal.shape) * legal).argmax(1)  # a random legal action
        hands.apply(lanes, np.where(rng.random(width) < 0.5, pick, acts))
    return np.concatenate(obs)[:n], np.concatenate(masks)[:n]


KINDS = [("MaskablePPO", "MultiInputPolicy"), ("MaskablePPO", "MlpPolicy"),
         ("PPO", "MultiInputPolicy"), ("PPO", "MlpPolicy"),
         ("DQN", "MultiInputPolicy"), ("DQN", "MlpPolicy")]


def _train(kind: tuple[str, str], path) -> str:
    """A model of ``kind`` made as docs/ecosystem.md makes it, trained a few hundred steps."""
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.env_util import make_vec_env

    from sixtysix_env.env.wrappers import MaskInInfo

    algo, policy = kind
    if policy == "MultiInputPolicy":
        env = make_vec_env("SixtySix-v0", n_envs=2, seed=0)
    else:
        env = make_vec_env(lambda: MaskInInfo(gymnasium.make("SixtySix-v0")), n_envs=2, seed=0)
    if algo == "DQN":
        model = DQN(policy, env, learning_starts=50, seed=0,
                    policy_kwargs={"net_arch": [48, 24]})
    else:
        cls = MaskablePPO if algo == "MaskablePPO" else PPO
        # PPO's default Tanh, and a ReLU for the maskable one: both activations are read.
        kwargs = {} if algo == "PPO" else {"activation_fn": torch.nn.ReLU}
        model = cls(policy, env, n_steps=64, batch_size=64, seed=0, policy_kwargs=kwargs)
    model.learn(256)
    model.save(path)
    return str(path)


@pytest.fixture(scope="module")
def sb3_models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sb3")
    return {kind: _train(kind, folder / f"{kind[0]}-{kind[1]}.zip") for kind in KINDS}


@pytest.mark.slow
def test_every_kind_plays_the_move_sb3_ranks_first_on_100k_observations(sb3_models, torch):
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import DQN, PPO

    obs, masks = _observations(100_000)
    legal = masks.astype(bool)
    for kind, path in sb3_models.items():
        algo, policy = kind
        model = {"MaskablePPO": MaskablePPO, "PPO": PPO, "DQN": DQN}[algo].load(path, device="cpu")
        x = {"observation": obs, "action_mask": masks} if policy == "MultiInputPolicy" else obs
        with torch.no_grad():
            tensor = model.policy.obs_to_tensor(x)[0]
            if algo == "DQN":
                scores = model.policy.q_net(tensor).numpy()
            else:
                scores = model.policy.get_distribution(tensor).distribution.logits.numpy()
        theirs = np.where(legal, scores, -np.inf).argmax(1)
        if algo == "MaskablePPO":  # its own masked predict says the same
            predicted, _ = model.predict(x, action_masks=legal, deterministic=True)
            np.testing.assert_array_equal(predicted, theirs)
        agent = make_agent(path)
        net = agent.network
        assert net.reads_mask == (policy == "MultiInputPolicy")
        ours = np.where(legal, net.logits(obs, legal if net.reads_mask else None), -np.inf)
        assert (ours.argmax(1) == theirs).all(), (kind, int((ours.argmax(1) != theirs).sum()))
        # and the agent, one view at a time, on a sample of them (the same network)
        assert agent.metadata["sb3"]["algorithm"] == algo


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["MultiInputPolicy", "MlpPolicy"])
def test_the_docs_recipe_runs_through_eval_export_and_benchmark(sb3_models, tmp_path, policy,
                                                                capsys):
    from sixtysix_env.cli import main

    path = sb3_models[("MaskablePPO", policy)]
    assert main(["eval", path, "heuristic", "--deals", "20", "--seed", "3"]) == 0
    out = tmp_path / "mine.npz"
    assert main(["export", path, "-o", str(out), "--eval-deals", "20"]) == 0
    exported = make_agent(str(out))
    direct = make_agent(path)
    rules = make_rules("altmisalti")
    heur = make_agent("heuristic")
    assert [play_paired_deal(exported, heur, 5, i, rules).gp for i in range(20)] == [
        play_paired_deal(direct, heur, 5, i, rules).gp for i in range(20)]
    capsys.readouterr()
    bench = tmp_path / "bench"
    assert main(["benchmark", path, "--quick", "--out-dir", str(bench), "--workers", "2"]) == 0
    assert "Elo" in capsys.readouterr().out
    result = json.loads((bench / f"MaskablePPO-{policy}-quick.json").read_text())
    assert result["agent_file"]["sha256"] and result["quick"] is True
