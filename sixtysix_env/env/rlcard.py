"""Sixty-Six as an RLCard environment (``pip install rlcard``).

::

    import rlcard
    import sixtysix_env.env.rlcard  # registers "sixtysix" with RLCard, once

    env = rlcard.make("sixtysix", config={"seed": 0, "game_rules": "santase"})

One hand per game, two players; the payoffs are the hand's game points,
zero-sum (-3 to 3; 0 each for a tie). The config takes RLCard's own keys
(``seed``, ``allow_step_back``) and ``game_rules``: a preset name
(``"altmisalti"``, the default, ``"santase"``, ...) or a dict of rule switches
(:func:`sixtysix_env.game.rules.make_rules`). Each deal and its dealer are drawn
from the environment's ``np_random``, which RLCard seeds from ``config["seed"]``
(and ``env.seed(i)``, as DMC's actors do): the same seed gives the same hands.

A state is what RLCard's agents read:

* ``obs``: the project's observation of the player's view (349 float32 values in
  [0, 1], :func:`sixtysix_env.policy.observation.encode_view`), so a network trained
  here has the input of the project's own policies;
* ``legal_actions``: an ``OrderedDict`` of the legal action ids (0-33, the engine's,
  as in :mod:`sixtysix_env.env.sixtysix_v0`) to ``None``, the player's to move (empty
  for the other player and once the hand is over);
* ``raw_obs``: a dict with the ``player``, its ``view``
  (:class:`~sixtysix_env.game.view.PlayerView`) and the view as ``text``;
  ``raw_legal_actions``: the legal actions' names (``"QH"``, ``"marry-QH"``,
  ``"exchange"``, ``"close"``); ``action_record``: ``(player, action name)`` per move.

The exchange of the trump 9 and the close do not pass the turn: the player who
made one acts again, as ``get_player_id()`` says. An action that is not legal
raises :class:`~sixtysix_env.util.errors.IllegalActionError` naming the legal ones
(RLCard's own games replace it with another; none is replaced here).

:class:`ProjectAgent` is the other way round: any agent of this project (``"heuristic"``,
``"expert"``, a shipped policy, a ``.npz``) as an RLCard agent, for
``rlcard.utils.tournament``. ``rlcard`` is imported only when this module is; the
package itself never imports it.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from typing import Any

import numpy as np
from rlcard.envs import Env
from rlcard.envs.registration import register, registry

from ..agents.registry import make_agent
from ..game.actions import NUM_ACTIONS, action_name
from ..game.cards import card_code, cards_of
from ..game.engine import State, new_hand
from ..game.render import render_view
from ..game.rules import RuleConfig, make_rules
from ..game.view import player_view
from ..policy.observation import OBS_SIZE, encode_view

ENV_ID = "sixtysix"
#: The configuration keys of this game (RLCard's game-specific keys start with ``game_``).
DEFAULT_GAME_CONFIG = {"game_rules": "altmisalti"}
NUM_PLAYERS = 2


class SixtySixGame:
    """One hand on the rules engine, with the interface RLCard's ``Env`` drives."""

    def __init__(self, rules: str | dict | RuleConfig = "altmisalti", allow_step_back=False):
        self.rules = make_rules(rules)
        self.allow_step_back = allow_step_back
        self.np_random = np.random.RandomState()
        self.state: State | None = None
        self.history: list[tuple[State, int]] = []
        #: The player who made the last move (or is to make the first).
        self.last_player = 0

    def configure(self, game_config: dict) -> None:
        self.rules = make_rules(game_config["game_rules"])

    def init_game(self) -> tuple[dict, int]:
        """Deal a hand (its deck and dealer drawn from ``np_random``)."""
        seed = int(self.np_random.randint(2**31))
        dealer = int(self.np_random.randint(2))
        self.state = new_hand(seed, dealer, self.rules)
        self.history = []
        self.last_player = self.state.current_player()
        player = self.get_player_id()
        return self.get_state(player), player

    def step(self, action: int | str) -> tuple[dict, int]:
        """Apply ``action`` (an id or a name) for the player to move."""
        new = self.state.apply(action)
        if self.allow_step_back:
            self.history.append((self.state, self.last_player))
        self.last_player = self.state.current_player()
        self.state = new
        player = self.get_player_id()
        return self.get_state(player), player

    def step_back(self) -> bool:
        if not self.history:
            return False
        self.state, self.last_player = self.history.pop()
        return True

    def get_state(self, player: int) -> dict:
        view = player_view(self.state, player)
        legal = self.state.legal_actions() if player == self.state.current_player() else []
        return {"player": player, "view": view, "legal_actions": legal}

    def get_player_id(self) -> int:
        """The player to act (the last to have acted once the hand is over)."""
        p = self.state.current_player()
        return p if p >= 0 else self.last_player

    def is_over(self) -> bool:
        return self.state is not None and self.state.is_terminal()

    def get_payoffs(self) -> np.ndarray:
        return np.array(self.state.returns(), dtype=np.float64)

    def get_legal_actions(self) -> list[int]:
        return self.state.legal_actions()

    @staticmethod
    def get_num_players() -> int:
        return NUM_PLAYERS

    @staticmethod
    def get_num_actions() -> int:
        return NUM_ACTIONS


class SixtySixEnv(Env):
    """RLCard's environment for one hand of Sixty-Six (the module's docstring says what a
    state holds). ``config``: ``seed``, ``allow_step_back``, ``game_rules``."""

    def __init__(self, config: dict) -> None:
        self.name = ENV_ID
        self.default_game_config = DEFAULT_GAME_CONFIG
        unknown = sorted(k for k in config if k.startswith("game_") and k not in DEFAULT_GAME_CONFIG)
        if unknown:
            raise ValueError(
                f"unknown config key(s) {', '.join(map(repr, unknown))} for {ENV_ID!r}; its "
                f"game keys: {', '.join(map(repr, DEFAULT_GAME_CONFIG))} (and RLCard's 'seed', "
                "'allow_step_back')"
            )
        self.game = SixtySixGame(config.get("game_rules", DEFAULT_GAME_CONFIG["game_rules"]))
        super().__init__(config)
        self.state_shape = [[OBS_SIZE] for _ in range(self.num_players)]
        self.action_shape = [None for _ in range(self.num_players)]

    def _extract_state(self, state: dict) -> dict:
        view = state["view"]
        legal = state["legal_actions"]
        return {
            "obs": encode_view(view),
            "legal_actions": OrderedDict((a, None) for a in legal),
            "raw_obs": {"player": state["player"], "view": view, "text": render_view(view)},
            "raw_legal_actions": [action_name(a) for a in legal],
            "action_record": self.action_recorder,
        }

    def _decode_action(self, action_id: int) -> str:
        """The name of ``action_id`` (checked as legal by the engine when applied)."""
        return action_name(action_id)

    def _get_legal_actions(self) -> list[int]:
        return self.game.get_legal_actions()

    def get_payoffs(self) -> np.ndarray:
        """Each player's game points for the hand (zero-sum; both 0 before its end)."""
        return self.game.get_payoffs()

    def get_perfect_information(self) -> dict[str, Any]:
        """Both hands, the stock in drawing order, the trump card, the scores so far."""
        s = self.game.state
        return {
            "hands": [[card_code(c) for c in cards_of(h)] for h in s.hands],
            "stock": [card_code(c) for c in s.stock_cards],
            "trump_card": card_code(s.trump_card),
            "card_points": list(s.card_points),
            "marriage_points": list(s.marriage_points),
            "tricks_won": list(s.tricks_won),
            "dealer": s.dealer,
            "current_player": s.current_player(),
            "legal_actions": [action_name(a) for a in s.legal_actions()],
        }


class ProjectAgent:
    """An agent of this project (any name :func:`sixtysix_env.agents.make_agent` takes) as an
    RLCard agent: it reads ``raw_obs["view"]`` and answers the action's name
    (``use_raw``), drawing from its own generator seeded with ``seed``."""

    use_raw = True

    def __init__(self, agent: Any = "heuristic", seed: int = 0) -> None:
        self.agent = make_agent(agent)
        self.rng = random.Random(seed)

    def step(self, state: dict) -> str:
        return action_name(self.agent.act(state["raw_obs"]["view"], self.rng))

    def eval_step(self, state: dict) -> tuple[str, dict]:
        return self.step(state), {}


def register_env() -> None:
    """Register ``"sixtysix"`` with RLCard (a no-op once done)."""
    if ENV_ID not in registry.env_specs:
        register(env_id=ENV_ID, entry_point=f"{__name__}:SixtySixEnv")


register_env()
