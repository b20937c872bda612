"""The learning options: suit renaming per episode and a privileged critic.

The renaming is checked against the game itself (a renamed deal is played
with renamed moves); the privileged critic by showing that the exported
actor cannot read a hidden card (re-dealt hidden cards give identical
logits) while the critic does.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import random
import zipfile

import numpy as np
import pytest

# Skipped without the [train] extra; found, not imported: collecting the tests
# imports no torch (the tests import it when they run).
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra is not installed"
)

from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.cards import NUM_CARDS, NUM_RANKS
from sixtysix_env.game.engine import deal_from_deck, random_deck
from sixtysix_env.game.view import determinize, player_view
from sixtysix_env.policy.observation import OBS_SIZE, action_mask, encode_view
from sixtysix_training.common.learning import (
    PERMUTATIONS,
    PRIV_SIZE,
    SuitRenamer,
    privileged_features,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _rename(card: int, perm) -> int:
    return perm[card // NUM_RANKS] * NUM_RANKS + card % NUM_RANKS


def _positions(n_hands: int, seed: int):
    """(state, seat to act) along random hands."""
    rng = random.Random(seed)
    for _ in range(n_hands):
        s = deal_from_deck(random_deck(rng.randrange(10**9)), rng.randrange(2))
        while not s.is_terminal():
            yield s, s.current_player()
            s = s.apply(rng.choice(s.legal_actions()))


# -- the renamer -----------------------------------------------------------------------


def test_the_renamer_is_the_game_renamed_hidden_cards_included():
    """Renaming k of a position's features = the features of the renamed deal's position."""
    r = SuitRenamer(True)
    rng = random.Random(5)
    checked = 0
    for hand in range(24):
        k = hand  # every renaming once
        perm = PERMUTATIONS[k]
        deck = random_deck(rng.randrange(10**9))
        a = deal_from_deck(deck, hand % 2)
        b = deal_from_deck([_rename(c, perm) for c in deck], hand % 2)
        while not a.is_terminal():
            seat = a.current_player()
            va, vb = player_view(a, seat), player_view(b, seat)
            xa = np.concatenate([encode_view(va), privileged_features(a, seat)])
            xb = np.concatenate([encode_view(vb), privileged_features(b, seat)])
            np.testing.assert_array_equal(r.obs(xa, k), xb)
            np.testing.assert_array_equal(r.obs(xa[:OBS_SIZE], k), xb[:OBS_SIZE])
            np.testing.assert_array_equal(r.mask(action_mask(va), k), action_mask(vb))
            move = rng.choice(a.legal_actions())
            renamed_move = int(r.renamed[k][move])
            assert r.original_action(renamed_move, k) == move
            a, b = a.apply(move), b.apply(renamed_move)
            checked += 1
        assert a.returns() == b.returns()
    assert checked > 300


def test_renaming_zero_is_the_identity_and_off_means_always_zero():
    assert PERMUTATIONS[0] == (0, 1, 2, 3) and len(set(PERMUTATIONS)) == 24
    off = SuitRenamer(False, seed=3)
    assert {off.draw() for _ in range(100)} == {0}
    x = np.arange(OBS_SIZE, dtype=np.float32)
    assert off.obs(x, 0) is x
    on = SuitRenamer(True, seed=3)
    draws = [on.draw() for _ in range(500)]
    assert set(draws) == set(range(24))
    again = SuitRenamer(True, seed=3)
    assert [again.draw() for _ in range(500)] == draws  # seeded
    for k in range(24):
        assert sorted(on.inverse[k]) == list(range(NUM_ACTIONS))
        assert [on.original_action(on.renamed[k][a], k) for a in range(NUM_ACTIONS)] == list(
            range(NUM_ACTIONS)
        )


def test_privileged_features_are_the_hidden_cards():
    for s, seat in itertools.islice(_positions(30, 1), 400):
        f = privileged_features(s, seat)
        assert f.shape == (PRIV_SIZE,) and f.dtype == np.float32
        opp = {c for c in range(NUM_CARDS) if s.hand(1 - seat) >> c & 1}
        assert set(np.flatnonzero(f[:NUM_CARDS])) == opp
        stock = s.stock_cards
        assert set(np.flatnonzero(f[NUM_CARDS : 2 * NUM_CARDS])) == set(stock)
        nxt = np.flatnonzero(f[2 * NUM_CARDS : 3 * NUM_CARDS])
        second = np.flatnonzero(f[3 * NUM_CARDS :])
        assert list(nxt) == list(stock[:1]) and list(second) == list(stock[1:2])


# -- the training games ----------------------------------------------------------------------


def _vec_env(**kw):
    from sixtysix_training.common.pool import OpponentPool
    from sixtysix_training.sb3.vec_env import SelfPlayVecEnv

    pool = OpponentPool({"random": 1.0, "heuristic": 1.0}, seed=0)
    return SelfPlayVecEnv(8, pool, **kw)


@pytest.mark.slow  # over a second: the full run, not the fast lane
@pytest.mark.parametrize("privileged", [False, True])
def test_augmented_games_play_legal_moves_under_many_renamings(privileged):
    """Random legal moves in the renamed space are legal in the game (the games raise if not)."""
    env = _vec_env(suit_augment=True, privileged_critic=privileged, seed=4)
    env.seed(4)
    obs = env.reset()
    size = OBS_SIZE + (PRIV_SIZE if privileged else 0)
    assert obs.shape == (8, size) and env.observation_space.shape == (size,)
    rng = np.random.default_rng(0)
    seen, episodes = set(), 0
    for _ in range(600):
        masks = env.action_masks()
        seen.update(int(k) for k in env.renaming)
        for i in range(env.num_envs):
            # the buffer is the game's own observation under this episode's renaming
            game = env.envs[i]
            x = encode_view(player_view(game.state, game.seat))
            if privileged:
                x = np.concatenate([x, privileged_features(game.state, game.seat)])
            np.testing.assert_array_equal(obs[i], env.renamer.obs(x, env.renaming[i]))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, _, dones, infos = env.step(actions)
        episodes += int(dones.sum())
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (size,)
    assert episodes > 50 and len(seen) >= 20


def test_without_the_options_the_games_are_as_before():
    env = _vec_env(seed=4)
    env.seed(4)
    obs = env.reset()
    assert obs.shape == (8, OBS_SIZE) and not env.renaming.any()
    for i, game in enumerate(env.envs):
        np.testing.assert_array_equal(obs[i], encode_view(player_view(game.state, game.seat)))


# -- the privileged critic -------------------------------------------------------------------


def _model(privileged: bool, suit_augment: bool = False, **options):
    from sixtysix_training.common.pool import OpponentPool
    from sixtysix_training.config.loader import config_from_dict
    from sixtysix_training.sb3.train import new_model
    from sixtysix_training.sb3.vec_env import SelfPlayVecEnv

    cfg = config_from_dict(
        {
            "n_envs": 4,
            "n_steps": 32,
            "batch_size": 64,
            "net_arch": [32, 16],
            "privileged_critic": privileged,
            "suit_augment": suit_augment,
            **options,
        }
    )
    env = SelfPlayVecEnv.from_config(cfg, OpponentPool({"random": 1.0}))
    return new_model(cfg, env), env


def test_gae_lambda_reaches_the_learner():
    """configs/fast.yaml's GAE lambda (research/notes/learning.md) is the one MaskablePPO's buffer uses."""
    from sixtysix_training.config.loader import config_from_dict, load_config

    fast = load_config(os.path.join(ROOT, "configs", "fast.yaml"))
    assert fast.shared.gae_lambda == 0.5 and fast.shared.privileged_critic
    model, _ = _model(True, gae_lambda=0.5)
    assert model.gae_lambda == 0.5 and model.rollout_buffer.gae_lambda == 0.5
    assert config_from_dict({}).shared.gae_lambda == 0.95  # every other config keeps the default


def test_the_exported_actor_cannot_read_a_hidden_card_but_the_critic_does():
    import torch

    from sixtysix_training.common.numpy_policy import network_from_policy

    model, _ = _model(privileged=True)
    net = network_from_policy(model.policy)
    assert net.layers[0][0] == OBS_SIZE  # the exported actor's input is the information set
    rng = random.Random(9)
    rows, twins = [], []
    for s, seat in itertools.islice(_positions(20, 2), 200):
        view = player_view(s, seat)
        other = determinize(view, rng=rng.randrange(10**9))  # the hidden cards re-dealt
        assert encode_view(player_view(other, seat)).tolist() == encode_view(view).tolist()
        x = encode_view(view)
        rows.append(np.concatenate([x, privileged_features(s, seat)]))
        twins.append(np.concatenate([x, privileged_features(other, seat)]))
    a, b = torch.as_tensor(np.stack(rows)), torch.as_tensor(np.stack(twins))
    with torch.no_grad():
        la = model.policy.get_distribution(a).distribution.logits
        lb = model.policy.get_distribution(b).distribution.logits
        va, vb = model.policy.predict_values(a), model.policy.predict_values(b)
    assert torch.equal(la, lb)  # identical logits whatever the hidden cards
    exported = torch.log_softmax(torch.as_tensor(net.logits(np.stack(rows)[:, :OBS_SIZE])), -1)
    np.testing.assert_allclose(exported.numpy(), la.numpy(), atol=1e-5)
    differ = (np.stack(rows) != np.stack(twins)).any(axis=1)
    assert differ.sum() > 100
    assert not torch.allclose(va[differ], vb[differ])  # the critic reads them


@pytest.mark.slow  # learns; test_critic_arch_sizes_the_value_network_alone[True-suits] saves and loads one
def test_a_privileged_model_learns_saves_and_loads(tmp_path):
    from sixtysix_training.sb3.model_file import load_model
    from sixtysix_training.sb3.policy import PrivilegedCriticPolicy

    model, env = _model(privileged=True, suit_augment=True)
    model.learn(256)
    path = str(tmp_path / "m.zip")
    model.save(path)
    loaded = load_model(path)
    assert isinstance(loaded.policy, PrivilegedCriticPolicy)
    assert loaded.policy.actor_dim == OBS_SIZE
    x = env.reset()
    for p, q in zip(model.policy.state_dict().values(), loaded.policy.state_dict().values()):
        assert np.array_equal(p.numpy(), q.numpy())
    assert loaded.observation_space.shape == (OBS_SIZE + PRIV_SIZE,) and x.shape[1] == OBS_SIZE + PRIV_SIZE


@pytest.mark.parametrize("privileged, symmetry", [  # each builds, saves and loads a model
    pytest.param(False, None, marks=pytest.mark.slow), pytest.param(True, None, marks=pytest.mark.slow),
    (True, "suits"),  # the fast lane's: privileged and symmetric at once
])
def test_critic_arch_sizes_the_value_network_alone(tmp_path, privileged, symmetry):
    """``critic_arch``: the value network gets its own hidden sizes, the actor keeps
    net_arch's (and so does the export); the model saves and loads with both."""
    import torch as th

    from sixtysix_training.common.numpy_policy import network_from_policy
    from sixtysix_training.sb3.model_file import load_model

    def widths(seq):
        return [m.out_features for m in seq if isinstance(m, th.nn.Linear)]

    model, env = _model(privileged, actor_symmetry=symmetry, critic_arch=[24, 8, 8])
    ex = model.policy.mlp_extractor
    assert widths(ex.value_net) == [24, 8, 8] and ex.latent_dim_vf == 8
    assert model.policy.value_net.in_features == 8
    net = network_from_policy(model.policy)
    assert [n for _, n in net.layers] == [32, 16, 34]
    model.learn(128)
    path = str(tmp_path / "m.zip")
    model.save(path)
    loaded = load_model(path)
    assert widths(loaded.policy.mlp_extractor.value_net) == [24, 8, 8]
    x = env.reset()
    with th.no_grad():
        t = th.as_tensor(x)
        np.testing.assert_array_equal(
            loaded.policy.predict_values(t).numpy(), model.policy.predict_values(t).numpy()
        )
    same, _ = _model(privileged, actor_symmetry=symmetry)  # null: the same sizes as net_arch
    assert widths(same.policy.mlp_extractor.value_net) == [32, 16]


@pytest.mark.parametrize(
    "value, message",
    [([], "one or more positive sizes"), ([16, 0], "one or more positive sizes"),
     ([8] * 16, "at most 15 layers"), ("wide", "critic_arch")],
)
def test_bad_critic_arch_is_refused_by_name(value, message):
    from sixtysix_training.config.loader import ConfigError, config_from_dict

    with pytest.raises(ConfigError, match=message) as e:
        config_from_dict({"critic_arch": value})
    assert "option 'critic_arch'" in str(e.value)


def test_cloning_data_follows_the_options():
    from sixtysix_training.common import bc

    plain = bc.collect("heuristic", "teacher", 6, "altmisalti", seed=3)
    both = bc.collect(
        "heuristic", "teacher", 6, "altmisalti", seed=3, suit_augment=True, privileged=True
    )
    assert plain["obs"].shape[1] == OBS_SIZE and both["obs"].shape[1] == OBS_SIZE + PRIV_SIZE
    assert len(plain["actions"]) == len(both["actions"])
    # the same decisions, each hand under one renaming: the renamed action is legal under the
    # renamed mask, and undoing the renaming gives the plain record back
    renamer = SuitRenamer(True, seed=3)
    ks = []
    for i in range(len(plain["actions"])):
        assert both["masks"][i][both["actions"][i]]
        for k in range(24):
            if np.array_equal(renamer.obs(plain["obs"][i], k), both["obs"][i][:OBS_SIZE]) and (
                renamer.renamed[k][plain["actions"][i]] == both["actions"][i]
            ):
                ks.append(k)
                break
        else:
            raise AssertionError(f"decision {i} is no renaming of the plain record")
    assert len(set(ks)) > 1


@pytest.mark.slow  # worker processes: the full suite, not the fast lane
def test_cloning_data_are_the_same_for_any_number_of_workers():
    from sixtysix_training.common import bc

    args = ("heuristic", "random", 230, "altmisalti")
    one = bc.collect(*args, seed=4, suit_augment=True, privileged=True)
    two = bc.collect(*args, seed=4, suit_augment=True, privileged=True, workers=2)
    other = bc.collect(*args, seed=5, suit_augment=True, privileged=True, workers=2)
    assert len(one["actions"]) > 1000
    for k in ("obs", "masks", "actions", "returns"):
        assert np.array_equal(one[k], two[k]), k
    assert not np.array_equal(one["actions"][:500], other["actions"][:500])
    with pytest.raises(ValueError, match="workers must be at least 1"):
        bc.collect(*args, seed=4, workers=0)


def test_cloning_workers_is_a_config_option_the_collector_gets(monkeypatch):
    from sixtysix_training.common import bc
    from sixtysix_training.config.loader import ConfigError, config_from_dict

    seen = {}
    monkeypatch.setattr(bc, "collect", lambda *a, **kw: seen.update(kw))
    bc.collect_for_run(config_from_dict({"bc_workers": 3}).shared, "heuristic")
    assert seen["workers"] == 3
    with pytest.raises(ConfigError, match="bc_workers"):
        config_from_dict({"bc_workers": 0})


def test_play_symmetry_is_what_the_run_evaluates_keeps_and_exports(tmp_path):
    """``play_symmetry: suits``: the training evaluation plays the actor averaged over the
    24 renamings, and the exported file is that policy (a file with a symmetry)."""
    from _processes import check_exported_as_evaluated

    from sixtysix_env.cli import main

    run_dir = tmp_path / "run"
    sets = ["total_timesteps=256", "eval_every=0", "eval_deals=20", "bc_hands=20"]
    sets += ["play_symmetry=suits", "eval_opponents=[heuristic]"]
    argv = ["train", "--config", "tiny", "--run-dir", str(run_dir)]
    assert main(argv + [x for s in sets for x in ("--set", s)]) == 0
    check_exported_as_evaluated(str(run_dir), str(run_dir / "policy.npz"), "suits")
    # --plain: the same weights, one forward pass
    from sixtysix_env.policy import read_policy

    out = str(tmp_path / "plain.npz")
    assert main(["export", str(run_dir), "-o", out, "--plain", "--eval-deals", "0"]) == 0
    plain, sym = read_policy(out)[0], read_policy(str(run_dir / "policy.npz"))[0]
    assert plain.symmetry is None
    for a, b in zip(plain.weights + plain.biases, sym.weights + sym.biases):
        np.testing.assert_array_equal(a, b)


@pytest.mark.slow
def test_a_run_with_both_options_trains_exports_and_resumes(tmp_path):
    from sixtysix_env.cli import main as _cli_main
    from sixtysix_env.policy import load_policy

    def main(argv):
        return _cli_main(["train", *argv])


    with open(os.path.join(ROOT, "configs", "tiny.yaml"), encoding="utf-8") as f:
        tiny = f.read()
    cfg = tmp_path / "t.yaml"
    cfg.write_text(tiny + "suit_augment: true\nprivileged_critic: true\n")
    run = tmp_path / "run"
    assert main(["--config", str(cfg), "--run-dir", str(run)]) == 0
    agent = load_policy(str(run / "policy.npz"))
    assert agent.network.layers[0][0] == OBS_SIZE
    saved = (run / "config.yaml").read_text()
    assert "suit_augment: true" in saved and "privileged_critic: true" in saved
    assert main(["--resume", str(run), "--set", "privileged_critic=false"]) == 2
    assert main(["--resume", str(run), "--set", "total_timesteps=768"]) == 0
    assert json.loads((run / "latest" / "state.json").read_text())["steps"] == 768

    # A model saved before the training folders were laid out records its policy class's
    # module as sixtysix_training.sb3_policy: such a run still resumes and exports.
    model = run / "latest" / "model.zip"
    with zipfile.ZipFile(model) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    data = json.loads(members["data"])
    assert data["policy_class"]["__module__"] == "sixtysix_training.sb3.policy"
    data["policy_class"]["__module__"] = "sixtysix_training.sb3_policy"
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(model, "w") as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)
    assert main(["--resume", str(run), "--set", "total_timesteps=1024"]) == 0
    assert json.loads((run / "latest" / "state.json").read_text())["steps"] == 1024
    assert _cli_main(["export", str(run), "--which", "latest", "-o", str(tmp_path / "p.npz"),
                      "--eval-deals", "0"]) == 0
