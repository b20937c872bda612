"""OpenSpiel: the game registered as a Python game, checked by OpenSpiel and against the engine."""

from __future__ import annotations

import random

import numpy as np
import pytest
from _ecosystem import require

pytestmark = pytest.mark.ecosystem

pyspiel = require("pyspiel", "openspiel")

from open_spiel.python.algorithms import ismcts, mcts

from sixtysix_env import PRESETS
from sixtysix_env.env.openspiel import GAME_NAME, MAX_MOVES, SixtySixState
from sixtysix_env.game.engine import deal_from_deck
from sixtysix_env.game.view import player_view
from sixtysix_env.policy.observation import encode_view


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_openspiel_random_sim_test(rules):
    game = pyspiel.load_game(GAME_NAME, {"rules": rules})
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_same_game_as_the_engine():
    game = pyspiel.load_game(GAME_NAME)
    assert game.num_distinct_actions() == 34
    assert game.observation_tensor_shape() == [349]
    assert game.information_state_tensor_shape() == [349 + MAX_MOVES * 36]
    rng = random.Random(0)
    for _ in range(20):
        state = game.new_initial_state()
        chance = []
        while state.is_chance_node():
            action = rng.choice([a for a, _p in state.chance_outcomes()])
            chance.append(action)
            state.apply_action(action)
        engine = deal_from_deck(chance[1:], chance[0], PRESETS["altmisalti"])
        while not state.is_terminal():
            assert state.current_player() == engine.current_player()
            assert state.legal_actions() == engine.legal_actions()
            for seat in (0, 1):
                expect = encode_view(player_view(engine, seat))
                assert np.array_equal(np.asarray(state.observation_tensor(seat)), expect)
                info = np.asarray(state.information_state_tensor(seat))
                assert np.array_equal(info[:349], expect)
            action = rng.choice(engine.legal_actions())
            state.apply_action(action)
            engine = engine.apply(action)
        assert engine.result is not None
        assert state.returns() == [float(r) for r in engine.result.returns()]


def _three_moves_in(game, seed: int):
    """A state of ``game`` three random moves into a hand (too early for it to end)."""
    state = game.new_initial_state()
    rng = random.Random(seed)
    while len(state.moves) < 3:
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _p in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_resample_keeps_the_information_state():
    state = _three_moves_in(pyspiel.load_game(GAME_NAME), 1)
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = set()
    for _ in range(10):
        sample = state.resample_from_infostate(player, sampler)
        assert isinstance(sample, SixtySixState)
        key = sample.information_state_string(player)
        assert key == state.information_state_string(player)
        assert sample.legal_actions() == state.legal_actions()
        worlds.add(sample.engine.hand(1 - player))
    assert len(worlds) > 1  # the opponent's hidden cards do change


def test_resampling_can_read_the_opponent_with_a_model():
    """With ``inference``, the resampled deals come from the belief (one per information
    state), and still agree with the player's information state."""
    from sixtysix_env.agents import beliefs

    game = pyspiel.load_game(GAME_NAME, {"inference": "heuristic"})
    state = _three_moves_in(game, 4)
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    allowed = {m for m, w in zip(game.belief(state, player).hidden,
                                 game.belief(state, player).weights) if w > 0}
    for _ in range(10):
        sample = state.resample_from_infostate(player, sampler)
        assert sample.information_state_string(player) == state.information_state_string(player)
        view = beliefs.player_view(sample.engine, player)
        assert sample.engine.hand(1 - player) & ~view.opponent_known in allowed
    assert len(game.beliefs) == 1  # computed once for the information state
    with pytest.raises(Exception, match="an opponent model is"):
        pyspiel.load_game(GAME_NAME, {"inference": "nobody"})


def test_ismcts_bot_plays_against_a_random_bot(monkeypatch):
    samples = []
    resample = SixtySixState.resample_from_infostate

    def counted(self, player, sampler):
        samples.append(player)
        return resample(self, player, sampler)

    monkeypatch.setattr(SixtySixState, "resample_from_infostate", counted)
    game = pyspiel.load_game(GAME_NAME)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    for seat in (0, 1):
        bot = ismcts.ISMCTSBot(
            game, evaluator, uct_c=2.0, max_simulations=25, random_state=np.random.RandomState(0)
        )
        random_bot = pyspiel.make_uniform_random_bot(1 - seat, 7)
        bots = [bot, random_bot] if seat == 0 else [random_bot, bot]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seat)
        assert returns[0] == -returns[1] and abs(returns[0]) <= 3
    # The bot searched: 25 sampled worlds per decision.
    assert len(samples) >= 2 * 25 * 6 and len(samples) % 25 == 0


@pytest.mark.slow
def test_pytorch_dqn_plays_and_learns_through_rl_environment():
    """OpenSpiel's PyTorch DQN (it imports dm-tree, which the [openspiel] extra brings)."""
    import torch
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import dqn

    torch.manual_seed(0)
    env = rl_environment.Environment(pyspiel.load_game(GAME_NAME))
    env.seed(0)
    size = env.observation_spec()["info_state"][0]
    n_actions = env.action_spec()["num_actions"]
    agents = [
        dqn.DQN(
            player_id=p,
            state_representation_size=size,
            num_actions=n_actions,
            hidden_layers_sizes=[32],
            replay_buffer_capacity=1_000,
            batch_size=16,
            min_buffer_size_to_learn=16,
            learn_every=4,
        )
        for p in (0, 1)
    ]
    for _ in range(8):
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            out = agents[p].step(ts)
            assert out.action in ts.observations["legal_actions"][p]
            ts = env.step([out.action])
        for agent in agents:
            agent.step(ts)
        assert sorted(ts.rewards) == sorted(-r for r in ts.rewards)
    assert all(a.loss is not None for a in agents)  # both learned on replayed batches
