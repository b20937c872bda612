"""Sixty-Six as an OpenSpiel Python game (``pip install 'sixtysix[openspiel]'``).

::

    import pyspiel
    from sixtysix_env import openspiel_game

    openspiel_game.register()  # registers "python_sixtysix" with pyspiel, once
    game = pyspiel.load_game("python_sixtysix", {"rules": "santase"})

One hand per game. Chance deals it: first the dealer (chance outcome 0 or
1), then the deck card by card, top first (outcomes are card ids 0-23, the
order :func:`sixtysix_env.game.engine.deal_from_deck` reads). The players' action
ids are the engine's (0-33, as in :mod:`sixtysix_env.env.sixtysix_v0`); the
utilities are the hand's game points, zero-sum (-3 to 3).

* observation tensor (349): the environment's observation
  (:func:`sixtysix_env.policy.observation.encode_view` of the player's view);
  observation string: the player's view as text.
* information-state tensor: the observation, then the public move history,
  one row per move (26 rows: 24 cards, the trump exchange and the close;
  each row the action one-hot (34) and the mover's seat one-hot (2)).
  Information-state string: the view as text, then the move history.
  Every move in Sixty-Six is public; a player's private information is its
  hand (and what it deduced), which the view holds. The view does not keep
  the order in which the player's own cards reached its hand, so this is not
  strictly perfect recall: histories that differ only in which of its cards
  came from the deal and which from the stock share an information state
  (the order matters to no future play or score).
* ``resample_from_infostate(player, sampler)``: the same public history on
  a deal drawn uniformly among those consistent with the player's view
  (:func:`sixtysix_env.game.view.determinize`), for OpenSpiel's ISMCTS bot. With the
  game parameter ``inference`` (an opponent model's name: ``heuristic``,
  ``random``, a shipped policy or a ``.npz`` file) the deal is drawn from the
  belief that reading the opponent's moves with that model gives
  (:func:`sixtysix_env.agents.beliefs.infer`), computed once per information state.

``pyspiel`` is imported only when this module is; the package itself never
imports it.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel

from ..game.actions import NUM_ACTIONS, action_name
from ..game.cards import NUM_CARDS, card_code
from ..game.engine import State, deal_from_deck
from ..game.render import render_state, render_view
from ..game.rules import PRESETS, make_rules
from ..game.view import determinize, player_view
from ..policy.observation import OBS_SIZE, encode_view

GAME_NAME = "python_sixtysix"
#: The belief behind ``inference``: a rule-based model's softness, the worlds weighed.
INFERENCE_SOFTNESS, INFERENCE_WORLDS = 0.3, 256
#: The most moves one hand can have: 24 cards, the trump exchange, the close.
MAX_MOVES = NUM_CARDS + 2
_ROW = NUM_ACTIONS + 2

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Sixty-Six (sixtysix)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": "altmisalti", "inference": ""},
)
_GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=NUM_ACTIONS,
    max_chance_outcomes=NUM_CARDS,
    num_players=2,
    min_utility=-3.0,
    max_utility=3.0,
    utility_sum=0.0,
    max_game_length=MAX_MOVES,
)


class SixtySixGame(pyspiel.Game):
    """One hand of Sixty-Six; parameters ``rules``: a preset name; ``inference``: an opponent
    model for the resampling (empty: uniform)."""

    def __init__(self, params: dict | None = None) -> None:
        params = dict(params or {})
        super().__init__(_GAME_TYPE, _GAME_INFO, params)
        rules = params.get("rules", "altmisalti")
        if rules not in PRESETS:
            raise ValueError(
                f"unknown rules {rules!r}; allowed: " + ", ".join(map(repr, sorted(PRESETS)))
            )
        self.rules = make_rules(rules)
        self.inference = params.get("inference", "")
        self.model = None
        if self.inference:
            from ..agents.models import opponent_model

            self.model = opponent_model(self.inference, INFERENCE_SOFTNESS)
        #: The last beliefs computed, by (player, public moves): ISMCTS resamples one
        #: information state many times in a row.
        self.beliefs: dict = {}

    def belief(self, state: SixtySixState, player: int):
        """The belief of ``player`` in ``state`` under the game's model (cached)."""
        from ..agents.beliefs import infer

        key = (player, tuple(state.moves), state.engine.dealer, state.engine.trump_card)
        b = self.beliefs.get(key)
        if b is None:
            view = player_view(state.engine, player)
            b = infer(view, self.model, random.Random(len(state.moves)), INFERENCE_WORLDS)
            if len(self.beliefs) >= 64:
                self.beliefs.clear()
            self.beliefs[key] = b
        return b

    def new_initial_state(self) -> SixtySixState:
        return SixtySixState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> SixtySixObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        return SixtySixObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class SixtySixState(pyspiel.State):
    """A hand being dealt (chance) or played (the engine's :class:`State`)."""

    def __init__(self, game: SixtySixGame) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._dealer: int | None = None
        self._deck: list[int] = []
        self.engine: State | None = None
        #: The public moves so far: (seat, action id).
        self.moves: list[tuple[int, int]] = []

    def current_player(self) -> int:
        engine = self.engine
        if engine is None:
            return pyspiel.PlayerId.CHANCE
        if engine.result is not None:
            return pyspiel.PlayerId.TERMINAL
        return engine.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._dealer is None:
            return [(0, 0.5), (1, 0.5)]
        left = sorted(set(self._rules.deck_cards).difference(self._deck))
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            if self._dealer is None:
                self._dealer = action
                return
            self._deck.append(action)
            if len(self._deck) == len(self._rules.deck_cards):  # 24, or 20 without the nines
                self.engine = deal_from_deck(self._deck, self._dealer, self._rules)
            return
        self.moves.append((self.engine.current_player(), action))
        self.engine = self.engine.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._dealer is None:
                return f"dealer:{action}"
            return f"deal:{card_code(action)}"
        return action_name(action)

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.result is not None

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        r0, r1 = self.engine.result.returns()
        return [float(r0), float(r1)]

    def resample_from_infostate(self, player_id: int, probability_sampler) -> SixtySixState:
        """A state with the same public history, its hidden cards dealt anew.

        The hidden cards are drawn uniformly among those the player's view
        allows (:func:`~sixtysix_env.game.view.determinize`), from a generator
        seeded by ``probability_sampler`` (OpenSpiel's uniform sampler).
        """
        if self.engine is None:
            raise ValueError("resample_from_infostate: the hand is still being dealt")
        rng = random.Random(int(probability_sampler() * 2**53))
        clone = self.clone()
        game = self.get_game()
        if getattr(game, "model", None) is not None and not self.engine.is_exhausted():
            clone.engine = game.belief(self, player_id).determinize(rng)
        else:
            clone.engine = determinize(player_view(self.engine, player_id), rng)
        return clone

    def __str__(self) -> str:
        if self.engine is None:
            return f"dealing (dealer {self._dealer}, {len(self._deck)} cards dealt)"
        return render_state(self.engine)


class SixtySixObserver:
    """OpenSpiel's observer interface: ``tensor``, ``dict``, ``set_from``, ``string_from``."""

    def __init__(self, iig_obs_type) -> None:
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not (
            iig_obs_type.public_info
        ):
            raise ValueError(
                "only a player's own observation is provided (public_info=True, "
                "private_info=SINGLE_PLAYER), with or without perfect_recall"
            )
        self.history = bool(iig_obs_type.perfect_recall)
        size = OBS_SIZE + (MAX_MOVES * _ROW if self.history else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:OBS_SIZE]}
        if self.history:
            self.dict["moves"] = self.tensor[OBS_SIZE:].reshape(MAX_MOVES, _ROW)

    def set_from(self, state: SixtySixState, player: int) -> None:
        self.tensor.fill(0.0)
        if state.engine is None:
            return
        self.tensor[:OBS_SIZE] = encode_view(player_view(state.engine, player))
        if self.history:
            rows = self.dict["moves"]
            for i, (seat, action) in enumerate(state.moves):
                rows[i, action] = 1.0
                rows[i, NUM_ACTIONS + seat] = 1.0

    def string_from(self, state: SixtySixState, player: int) -> str:
        if state.engine is None:
            return f"player {player}: dealing"
        text = render_view(player_view(state.engine, player))
        if self.history:
            text += "\nmoves: " + " ".join(f"{s}:{action_name(a)}" for s, a in state.moves)
        return text


def register() -> None:
    """Register ``python_sixtysix`` with pyspiel (a no-op once done)."""
    if GAME_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_GAME_TYPE, SixtySixGame)


register()
