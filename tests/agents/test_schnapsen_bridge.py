"""The bridge with the ``schnapsen`` package (the [schnapsen] extra), both ways.

Their bots as agents here (``schnapsen:NAME``): the perspective they are shown holds the
view's hand, scores, pending points and legal moves; they play in SixtySix-v0. Our agents as
their ``Bot`` (SixtySixBot): the view rebuilt from a perspective equals the one our engine
gives on the same deal, and a game in their engine runs to its end.
"""

from __future__ import annotations

import random
import sys
import warnings

import pytest

from sixtysix_env.agents.registry import make_agent, parse_agent_spec
from sixtysix_env.game.engine import deal_from_deck, new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import player_view

sg = pytest.importorskip("schnapsen.game", reason="the [schnapsen] extra is not installed")

from sixtysix_env.agents import schnapsen as bridge
from sixtysix_env.agents.schnapsen_bot import SixtySixBot

RULES = make_rules("schnapsen-vu")


def test_specs_parse_the_bot_and_its_options():
    assert parse_agent_spec("schnapsen:rdeep:num_samples=16,depth=4") == (
        "schnapsen:rdeep", {"num_samples": 16, "depth": 4})
    assert parse_agent_spec("schnapsen:rand") == ("schnapsen:rand", {})
    assert parse_agent_spec("schnapsen:mybots.strong:Strong:k=2") == (
        "schnapsen:mybots.strong:Strong", {"k": 2})
    assert parse_agent_spec("schnapsen:mybot:MyBot") == ("schnapsen:mybot:MyBot", {})


def test_the_perspective_shows_what_the_view_shows():
    """Random hands: at every decision the replayed perspective's legal moves, hand, scores
    (direct and pending) and talon are the view's (a marriage on the table is not pending
    yet in their engine: its points are added as its trick is played)."""
    agent = bridge.SchnapsenAgent(object())
    n = 0
    for h in range(40):
        rng = random.Random(h)
        s = new_hand(rng, rules=RULES, dealer=h % 2)
        while not s.is_terminal():
            p = s.current_player()
            v = player_view(s, p)
            per, _ = agent.perspective(v, random.Random(n))
            assert {bridge.our_action(m) for m in per.valid_moves()} == set(v.legal_actions())
            assert sum(1 << bridge.our_card(c) for c in per.get_hand()) == v.hand
            mine, theirs = per.get_my_score(), per.get_opponent_score()
            assert (mine.direct_points, theirs.direct_points) == (v.points(p), v.points(1 - p))
            pending = list(v.pending_points)
            _, on_table = bridge.steps_of_view(v)
            if on_table is not None:  # their engine scores a marriage as its trick is played
                pending[v.leader] -= v.marriages()[-1].points
            assert (mine.pending_points, theirs.pending_points) == (pending[p], pending[1 - p])
            assert per.get_talon_size() == v.stock_size
            n += 1
            s = s.apply(rng.choice(s.legal_actions()))
    assert n > 400


@pytest.mark.slow  # the package's bots import scikit-learn and Flask (2 s)
@pytest.mark.parametrize(
    "spec", ["schnapsen:rand", "schnapsen:bully", "schnapsen:rdeep:num_samples=2,depth=2",
             "schnapsen:alphabeta:phase_one=rand", "schnapsen:minimax:phase_one=bully"])
def test_their_bots_play_in_sixtysix_v0(spec):
    import gymnasium

    import sixtysix_env  # noqa: F401  (registers SixtySix-v0)

    env = gymnasium.make("SixtySix-v0", rules="schnapsen-vu", opponent=spec)
    for ep in range(3):
        _, info = env.reset(seed=ep)
        term = trunc = False
        while not (term or trunc):
            legal = [a for a, ok in enumerate(info["action_mask"]) if ok]
            _, _, term, trunc, info = env.step(legal[0])
        assert term
    env.close()


@pytest.mark.slow  # the package's bots import scikit-learn and Flask (2 s)
def test_the_same_seed_gives_the_same_moves():
    def moves(seed):
        a = make_agent("schnapsen:rdeep:num_samples=3,depth=2", seed=seed)
        s = new_hand(random.Random(5), rules=RULES)
        out = []
        rng = random.Random(seed)
        while not s.is_terminal():
            act = a.act(player_view(s, s.current_player()), rng)
            out.append(act)
            s = s.apply(act)
        return out

    assert moves(1) == moves(1)


@pytest.mark.slow  # the package's bots import scikit-learn and Flask (2 s)
def test_a_bot_built_once_follows_the_generator_it_is_given():
    """The bot's own generators are seeded from act's rng: the same rng, the same move,
    whatever the bot played before (an environment's seeded episodes replay)."""
    agent = make_agent("schnapsen:rand")
    s = new_hand(random.Random(3), rules=RULES)
    view = player_view(s, s.current_player())
    first = [agent.act(view, random.Random(k)) for k in range(12)]
    assert [agent.act(view, random.Random(k)) for k in range(12)] == first
    assert len(set(first)) > 1


@pytest.mark.slow  # the package's bots import scikit-learn and Flask (2 s)
def test_unknown_bots_and_options_are_named():
    with pytest.raises(bridge.SchnapsenBridgeError) as e:
        make_agent("schnapsen:deepest")
    assert "schnapsen:rdeep" in str(e.value) and "schnapsen:deepest" in str(e.value)
    with pytest.raises(bridge.SchnapsenBridgeError) as e:
        make_agent("schnapsen:rdeep:samples=3")
    assert "'samples'" in str(e.value) and "num_samples=16" in str(e.value)
    with pytest.raises(bridge.SchnapsenBridgeError) as e:
        make_agent("schnapsen:rdeep:depth=0")
    assert "depth" in str(e.value)
    with pytest.raises(bridge.SchnapsenBridgeError) as e:
        make_agent("schnapsen:ml")
    assert "model=PATH" in str(e.value)
    with pytest.raises(bridge.SchnapsenBridgeError) as e:
        make_agent("schnapsen:no_such_module_here:Bot")
    assert "no_such_module_here" in str(e.value)


@pytest.mark.slow  # the package's bots import scikit-learn and Flask (2 s)
def test_other_rules_are_refused_with_the_rules_it_plays():
    agent = make_agent("schnapsen:rand")
    view = player_view(new_hand(random.Random(0), rules="schnapsen"), 0)
    with pytest.raises(bridge.SchnapsenBridgeError) as e:
        agent.act(view, random.Random(0))
    assert "'schnapsen-vu'" in str(e.value) and "'schnapsen'" in str(e.value)
    with pytest.raises(bridge.SchnapsenBridgeError):
        SixtySixBot("random", rules="altmisalti")


class _Cheat(sg.Bot):
    """A user's bot that always plays the trump ace, legal or not."""

    def get_move(self, perspective, leader_move):
        return sg.RegularMove(bridge.their_card(5))


def test_a_users_bot_by_module_and_class_and_its_illegal_move(monkeypatch):
    mod = type(sys)("user_bots_for_test")
    mod.Cheat = _Cheat
    monkeypatch.setitem(sys.modules, "user_bots_for_test", mod)
    agent = make_agent("schnapsen:user_bots_for_test:Cheat")
    assert agent.name == "schnapsen:user_bots_for_test:Cheat"
    rng = random.Random(0)
    for h in range(20):  # a hand where the ace of clubs is not in the bot's hand
        s = new_hand(random.Random(h), rules=RULES)
        if not s.hand(s.current_player()) >> 5 & 1:
            break
    with pytest.raises(bridge.SchnapsenBridgeError) as e:
        agent.act(player_view(s, s.current_player()), rng)
    text = str(e.value)
    assert "schnapsen:user_bots_for_test:Cheat" in text and "illegal move" in text
    assert "legal moves:" in text


def test_a_users_bot_is_found_in_the_current_folder(tmp_path, monkeypatch):
    """From the command line too (a console script's sys.path starts with its bin folder),
    as the project's own module:Class agents are."""
    (tmp_path / "mybot_cwd_for_test.py").write_text(
        "from schnapsen.bots import RandBot\n"
        "class MyBot(RandBot):\n"
        "    def __init__(self, seed: int = 0):\n"
        "        import random\n"
        "        super().__init__(random.Random(seed))\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "mybot_cwd_for_test", raising=False)
    agent = make_agent("schnapsen:mybot_cwd_for_test:MyBot:seed=3")
    assert agent.name == "schnapsen:mybot_cwd_for_test:MyBot"


def _their_game(bot1, bot2, seed):
    """Their engine plays a game; returns (our deck of its deal, the actions played)."""
    played = []

    class Rec(sg.Bot):
        def __init__(self, inner):
            super().__init__(str(inner))
            self.inner = inner

        def get_move(self, perspective, leader_move):
            move = self.inner.get_move(perspective, leader_move)
            played.append(bridge.our_action(move))
            return move

    eng = sg.SchnapsenGamePlayEngine()
    eng.play_game(Rec(bot1), Rec(bot2), random.Random(seed))
    shuffled = eng.deck_generator.shuffle_deck(eng.deck_generator.get_initial_deck(),
                                               random.Random(seed))
    return bridge.our_deck([bridge.our_card(c) for c in shuffled.get_cards()]), played


def test_the_rebuilt_view_is_our_engines_view():
    """SixtySixBot's view of each perspective equals player_view of the same deal and moves
    in our engine (the unseen cards' placement changes nothing the view holds)."""
    class Spy(SixtySixBot):
        def get_move(self, perspective, leader_move):
            self.views.append(self.view(perspective, leader_move))
            return super().get_move(perspective, leader_move)

    for seed in range(12):
        views: list = []
        spies = Spy("random", seed=seed), Spy("random", seed=seed + 99)
        for spy in spies:
            spy.views = views
        deck, played = _their_game(*spies, seed)
        s = deal_from_deck(deck, dealer=1, rules=RULES)
        assert len(views) == len(played)
        for v, a in zip(views, played):
            assert v == player_view(s, s.current_player())
            s = s.apply(a)
        assert s.is_terminal()


@pytest.mark.slow  # the package's bots import scikit-learn and Flask (2 s)
def test_their_engine_plays_expert_and_a_shipped_network_against_rdeep():
    rng = random.Random(3)
    engine = sg.SchnapsenGamePlayEngine()
    from schnapsen.bots import RdeepBot

    _, points, _ = engine.play_game(
        SixtySixBot("expert:samples=4", seed=1), RdeepBot(4, 2, random.Random(1)), rng)
    assert points in (1, 2, 3)
    from sixtysix_env.policy.agent import RulesMismatchWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, points, _ = engine.play_game(
            RdeepBot(4, 2, random.Random(2)), SixtySixBot("sixtysix-ppo", seed=2), rng)
    assert points in (1, 2, 3)
    assert any(issubclass(w.category, RulesMismatchWarning) for w in caught)


@pytest.mark.slow  # trains the package's MLPlayingBot model (a few seconds)
def test_their_ml_bot_plays_here_from_its_model_file(tmp_path):
    import gymnasium
    from schnapsen.bots import MLDataBot, RandBot, train_ML_model

    import sixtysix_env  # noqa: F401  (registers SixtySix-v0)

    engine, memory, model = sg.SchnapsenGamePlayEngine(), tmp_path / "replay.txt", tmp_path / "m"
    for g in range(20):
        engine.play_game(MLDataBot(RandBot(random.Random(g)), memory),
                         MLDataBot(RandBot(random.Random(g + 99)), memory), random.Random(g))
    train_ML_model(memory, model, "LR")
    env = gymnasium.make("SixtySix-v0", rules="schnapsen-vu", opponent=f"schnapsen:ml:model={model}")
    _, info = env.reset(seed=0)
    term = trunc = False
    while not (term or trunc):
        _, _, term, trunc, info = env.step(next(a for a, ok in enumerate(info["action_mask"]) if ok))
    assert term
    with pytest.raises(bridge.SchnapsenBridgeError) as e:
        make_agent(f"schnapsen:ml:model={tmp_path / 'absent'}")
    assert "does not exist" in str(e.value)
