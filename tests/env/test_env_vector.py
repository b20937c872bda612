"""The native vector environment: the same games as N copies of ``SixtySix-v0``.

Equivalence: the same deals (``reset(options=...)`` on both), the same learner
moves, a deterministic opponent; every observation, mask, reward, termination
and info entry is compared step by step with N single environments.
"""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest

pytest.importorskip("numba", reason="numba (the [fast] extra) is not installed")

import sixtysix_env  # noqa: E402,F401  (registers SixtySix-v0)
from sixtysix_env import IllegalActionError, make_rules, random_deck  # noqa: E402
from sixtysix_env.agents import make_agent  # noqa: E402
from sixtysix_env.env.single_agent import SixtySixEnv  # noqa: E402
from sixtysix_env.env.vector import SixtySixSelfPlayVectorEnv, SixtySixVectorEnv  # noqa: E402
from sixtysix_env.game.view import player_view  # noqa: E402
from sixtysix_env.policy.agent import PolicyAgent  # noqa: E402
from sixtysix_env.policy.network import PolicyNetwork  # noqa: E402

N = 24


def tiny_policy(seed: int = 0, symmetry=None) -> PolicyAgent:
    rng = np.random.default_rng(seed)
    w = [rng.normal(0, 0.3, (349, 16)).astype(np.float32),
         rng.normal(0, 0.3, (16, 34)).astype(np.float32)]
    b = [np.zeros(16, np.float32), np.zeros(34, np.float32)]
    return PolicyAgent(PolicyNetwork(w, b, "relu", symmetry), name="tiny")


def given_deals(n: int, seed: int):
    r = random.Random(seed)
    return (np.array([random_deck(r) for _ in range(n)]),
            np.array([r.randrange(2) for _ in range(n)]),
            np.array([r.randrange(2) for _ in range(n)]))


def scalar_info(info: dict) -> dict:
    return {k: v for k, v in info.items() if k != "action_mask"}


def _compare_with_single_envs(vec, singles, vec_options, single_options, n, first=False):
    """Step both side by side (the learner random, or its first legal action) until every
    game has ended once; returns (steps, tied hands seen)."""
    obs, info = vec.reset(seed=3, options=vec_options)
    ref = [e.reset(seed=3, options=single_options(i)) for i, e in enumerate(singles)]
    live = np.ones(n, bool)
    rng = random.Random(0)
    steps = ties = 0
    while live.any():
        actions = np.zeros(n, np.int64)
        for i in np.flatnonzero(live):
            o, inf = ref[i]
            assert np.array_equal(obs["observation"][i], o["observation"]), (i, steps)
            assert np.array_equal(obs["action_mask"][i], o["action_mask"]), (i, steps)
            assert np.array_equal(info["action_mask"][i], inf["action_mask"])
            for k, v in scalar_info(inf).items():
                assert info[k][i] == v, (k, i, steps)
                assert info["_" + k][i]
            legal = np.flatnonzero(o["action_mask"])
            actions[i] = legal[0] if first else legal[rng.randrange(len(legal))]
        obs, reward, term, trunc, info = vec.step(actions)
        steps += 1
        ties += int((live & (info["hand_reason"] == 4)).sum())
        for i in np.flatnonzero(live):
            o, r, t, tr, inf = singles[i].step(int(actions[i]))
            assert reward[i] == r and term[i] == t and not trunc[i], (i, steps, reward[i], r)
            ref[i] = (o, inf)
            if t:  # compare the final step, then leave the lane (it deals anew)
                assert np.array_equal(obs["observation"][i], o["observation"])
                assert not obs["action_mask"][i].any()
                for k, v in scalar_info(inf).items():
                    assert info[k][i] == v, (k, i, steps)
                live[i] = False
    return steps, ties


@pytest.mark.parametrize("rules", ["altmisalti", "pagat66", "santase"])
@pytest.mark.parametrize("opponent", ["policy", "heuristic"])
def test_same_games_as_single_environments(rules, opponent):
    opp = tiny_policy(1) if opponent == "policy" else make_agent("heuristic")
    decks, dealers, seats = given_deals(N, 7)
    vec = gymnasium.make_vec("SixtySix-v0", num_envs=N, vectorization_mode="vector_entry_point",
                             opponent=opp, rules=rules)
    singles = [SixtySixEnv(opponent=opp, rules=rules) for _ in range(N)]
    steps, _ = _compare_with_single_envs(
        vec, singles, {"decks": decks, "dealers": dealers, "learner_seats": seats},
        lambda i: {"deck": decks[i].tolist(), "dealer": int(dealers[i]),
                   "learner_seat": int(seats[i])}, N)
    assert steps > 5


@pytest.mark.parametrize("rules", ["schnapsen", "schnapsen-vu"])
def test_twenty_card_presets_deal_their_decks_given_or_drawn(rules):
    # The vector env deals the rules' deck (20 cards here): given decks are played as the
    # single environment plays them, a seeded reset draws 20-card decks, the self-play form too.
    r = random.Random(3)
    n = 6
    decks = np.array([random_deck(r, rules=rules) for _ in range(n)])
    dealers, seats = np.arange(n) % 2, (np.arange(n) // 2) % 2
    vec = SixtySixVectorEnv(num_envs=n, opponent="heuristic", rules=rules)
    singles = [SixtySixEnv(opponent="heuristic", rules=rules) for _ in range(n)]
    steps, _ = _compare_with_single_envs(
        vec, singles, {"decks": decks, "dealers": dealers, "learner_seats": seats},
        lambda i: {"deck": decks[i].tolist(), "dealer": int(dealers[i]),
                   "learner_seat": int(seats[i])}, n)
    assert steps > 3
    obs, _ = vec.reset(seed=5)
    assert obs["action_mask"].any(axis=1).all()
    for env in (vec, SixtySixSelfPlayVectorEnv(num_envs=n, rules=rules)):
        obs, _ = env.reset(seed=1)
        for _ in range(30):
            obs = env.step(np.argmax(obs["action_mask"], axis=1))[0]
    with pytest.raises(sixtysix_env.DeckError, match="rules play a 20-card deck"):
        vec.reset(options={"decks": np.tile(np.arange(24), (n, 1)), "dealers": dealers,
                           "learner_seats": seats})


# Each opponent without hand rewards in the fast lane, and with them the one whose matches
# have ties carried over; the other two with hand rewards in the full suite.
@pytest.mark.parametrize("opponent, weight", [
    ("policy", 0.0), ("heuristic", 0.0), ("first-legal", 0.0), ("first-legal", 0.5),
    pytest.param("policy", 0.5, marks=pytest.mark.slow),
    pytest.param("heuristic", 0.5, marks=pytest.mark.slow),
])
def test_same_matches_as_single_environments(opponent, weight):
    # Short matches with tied hands carried over. With the first legal move on both sides
    # (an agent the vector env plays game by game) some of these 40 matches have a tie.
    rules = make_rules("altmisalti", match_target=3, tie_rule="carry-over")
    opp = {"policy": tiny_policy(2), "heuristic": make_agent("heuristic"),
           "first-legal": FirstLegal()}[opponent]
    n = 40
    seeds = np.arange(n)
    seats = np.array([i % 2 for i in range(n)])
    vec = SixtySixVectorEnv(num_envs=n, opponent=opp, rules=rules, mode="match",
                            hand_rewards=weight)
    singles = [SixtySixEnv(opponent=opp, rules=rules, mode="match", hand_rewards=weight)
               for _ in range(n)]
    steps, ties = _compare_with_single_envs(
        vec, singles, {"match_seeds": seeds, "learner_seats": seats},
        lambda i: {"match_seed": int(seeds[i]), "learner_seat": int(seats[i])}, n,
        first=opponent == "first-legal")
    assert steps > 20
    if opponent == "first-legal":
        assert ties > 0


class FirstLegal:
    """An agent the vector env plays game by game (no batched form)."""

    name = "first-legal"

    def act(self, view, rng):
        return view.legal_actions()[0]


def test_next_step_autoreset_and_repeatable_seeds():
    def run(seed):
        env = SixtySixVectorEnv(num_envs=8, opponent="random")
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(1)
        out = []
        ended = np.zeros(8, bool)
        for _ in range(40):
            acts = (rng.random((8, 34)) * obs["action_mask"]).argmax(1)
            obs, r, term, trunc, info = env.step(acts)
            # NEXT_STEP: a lane that ended last step starts anew with nothing scored.
            assert not (term & ended).any() and not r[ended].any()
            assert obs["action_mask"][ended].any(axis=1).all()
            ended = term
            out.append((obs["observation"].copy(), r.copy(), term.copy()))
        return out

    a, b, c = run(5), run(5), run(6)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))
    assert sum(x[2].sum() for x in a) > 8  # hands ended and were dealt anew


@pytest.mark.parametrize("mode", ["hand", "match"])
def test_same_step_autoreset_gives_the_final_observation(mode):
    env = SixtySixVectorEnv(num_envs=16, opponent=tiny_policy(), autoreset_mode="SameStep",
                            mode=mode, rules=make_rules("altmisalti", match_target=2))
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(60):
        acts = (rng.random((16, 34)) * obs["action_mask"]).argmax(1)
        obs, r, term, trunc, info = env.step(acts)
        assert obs["action_mask"].any(axis=1).all()  # every lane is playable at once
        assert not info["hand_over"][term].any() and (info["hands_played"][term] == 0).all()
        if term.any():
            seen += int(term.sum())
            assert (info["_final_obs"] == term).all()
            for i in np.flatnonzero(term):
                assert not info["final_obs"][i]["action_mask"].any()
                final = {k: v[i] for k, v in info["final_info"].items()}
                assert final["hand_over"]
                if mode == "hand":
                    assert final["hand_game_points"] == abs(r[i])
                else:
                    assert abs(r[i]) == 1 and max(final["score_0"], final["score_1"]) >= 2
                    assert r[i] == (1 if final["winner"] == final["learner_seat"] else -1)
    assert seen


def test_illegal_actions_lose_or_raise():
    env = SixtySixVectorEnv(num_envs=4, opponent="random")
    obs, _ = env.reset(seed=1)
    acts = obs["action_mask"].argmax(1)
    bad = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    acts[2] = bad
    obs, r, term, _, info = env.step(acts)
    assert term[2] and r[2] == -3.0 and info["illegal_action"][2] == bad
    assert not obs["action_mask"][2].any() and not info["hand_over"][2]
    strict = SixtySixVectorEnv(num_envs=4, opponent="random", illegal_action="raise")
    obs, _ = strict.reset(seed=1)
    before = strict.states.S.copy()
    acts = obs["action_mask"].argmax(1)
    acts[3] = 40
    with pytest.raises(IllegalActionError, match="by the learner in game 3"):
        strict.step(acts)
    assert np.array_equal(strict.states.S, before)
    with pytest.raises(IllegalActionError, match="integer action ids"):
        strict.step(np.zeros(4) + 0.5)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        strict.step(np.zeros(3, np.int64))


def test_options_are_checked():
    with pytest.raises(ValueError, match="in match mode must give exactly"):
        SixtySixVectorEnv(num_envs=2, mode="match").reset(options={"decks": 1})
    with pytest.raises(ValueError, match="'match_seeds' must be 2 integers"):
        SixtySixVectorEnv(num_envs=2, mode="match").reset(
            options={"match_seeds": [1.5, 2], "learner_seats": [0, 1]})
    with pytest.raises(ValueError, match="unknown rules"):
        SixtySixVectorEnv(num_envs=2, rules="skat")
    with pytest.raises(ValueError, match="autoreset_mode"):
        SixtySixVectorEnv(num_envs=2, autoreset_mode="sometimes")
    env = SixtySixVectorEnv(num_envs=2)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"deck": 1})
    with pytest.raises(ValueError, match=r"shape \(2, 24\)"):
        env.reset(options={"decks": np.zeros((3, 24)), "dealers": [0, 0],
                           "learner_seats": [0, 0]})
    with pytest.raises(ValueError, match="'dealers' must be 2 seats"):
        env.reset(options={"decks": [list(range(24))] * 2, "dealers": [0, 5],
                           "learner_seats": [0, 0]})


def test_make_vec_defaults_to_the_vector_entry_point():
    # Gymnasium's rule: a registered vector entry point is make_vec's default.
    env = gymnasium.make_vec("SixtySix-v0", num_envs=2, opponent="heuristic", rules="santase")
    assert isinstance(env.unwrapped, SixtySixVectorEnv) and env.unwrapped.rules.name == "santase"
    sync = gymnasium.make_vec("SixtySix-v0", num_envs=2, vectorization_mode="sync")
    assert sync.single_observation_space == env.single_observation_space


def test_spaces_and_masks_for_sb3_contrib():
    env = gymnasium.make_vec("SixtySix-v0", num_envs=3, vectorization_mode="vector_entry_point")
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space
    assert env.single_observation_space == SixtySixEnv().observation_space
    masks = env.unwrapped.action_masks()
    assert masks.dtype == bool and masks.shape == (3, 34)
    assert np.array_equal(masks, obs["action_mask"].astype(bool))


def test_self_play_form_acts_for_the_seat_to_move():
    env = SixtySixSelfPlayVectorEnv(num_envs=32, rules="santase")
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    totals = np.zeros(2)
    ended = 0
    for _ in range(200):
        assert obs["action_mask"].any(axis=1).all()
        acts = (rng.random((32, 34)) * obs["action_mask"]).argmax(1)
        obs, rewards, term, _, info = env.step(acts)
        assert (rewards.sum(axis=1) == 0).all() and not rewards[~term].any()
        assert set(np.unique(info["seat"])) <= {0, 1}
        totals += rewards.sum(axis=0)
        ended += int(term.sum())
    assert ended > 200 and totals[0] == -totals[1]
    with pytest.raises(IllegalActionError, match="in game 0"):
        env.step(np.full(32, 99))


@pytest.mark.parametrize(
    "name",
    # The small first network in the fast lane; the wide one and the symmetric one (24
    # renamings a move) in the full run: the fast lane's 30 s.
    ["sixtysix-ppo-v2", pytest.param("sixtysix-ppo-v4", marks=pytest.mark.slow),
     pytest.param("sixtysix-ppo-v2-sym", marks=pytest.mark.slow)],
)
def test_shipped_networks_score_the_same_against_heuristic(name):
    """The shipped network as the learner, argmax, against ``heuristic`` on the same 120
    deals: the same reward in every game on the vector env as on ``SixtySix-v0``."""
    agent = make_agent(name)
    net = agent.network
    n = 120
    decks, dealers, seats = given_deals(n, 11)

    def argmax(obs, mask):
        x = np.asarray(obs, np.float32)
        logits = net.logits(x) if net.symmetry else net.layer_logits(x[:, None, :])[:, 0, :]
        z = np.where(mask.astype(bool), logits, -np.inf)
        if net.symmetry:
            return np.argmax(z >= z.max(axis=1, keepdims=True) - 1e-4, axis=1)
        return np.argmax(z, axis=1)

    vec = SixtySixVectorEnv(num_envs=n, opponent="heuristic")
    obs, _ = vec.reset(seed=0, options={"decks": decks, "dealers": dealers,
                                        "learner_seats": seats})
    got = np.full(n, np.nan)
    while np.isnan(got).any():
        obs, r, term, _, _ = vec.step(argmax(obs["observation"], obs["action_mask"]))
        fresh = term & np.isnan(got)
        got[fresh] = r[fresh]
    want = []
    for i in range(n):
        env = SixtySixEnv(opponent="heuristic")
        o, _ = env.reset(seed=0, options={"deck": decks[i].tolist(), "dealer": int(dealers[i]),
                                          "learner_seat": int(seats[i])})
        while True:  # the agent itself, on its player view
            a = agent.act(player_view(env.state, env.seat), random.Random(0))
            o, r, term, _, _ = env.step(int(a))
            if term:
                want.append(r)
                break
    assert np.array_equal(got, np.array(want)), (got.sum(), sum(want))
    assert got.mean() > 0  # the shipped networks beat the heuristic
