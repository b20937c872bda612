"""The PettingZoo AEC environment; its documentation page is :mod:`sixtysix_env.env.sixtysix_v0`."""

from __future__ import annotations

import random
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..game.engine import HandResult
from ..game.rules import RuleConfig
from ..game.view import player_view
from ..policy.observation import encode_with_mask
from ..util.checks import as_seed, is_int
from .core import (
    AGENTS,
    SEATS,
    Table,
    check_illegal_reward,
    check_options,
    make_spaces,
    seat_of,
    show,
    worst_loss,
)

OBSERVATION_FORMATS = ("dict", "flat")


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` inside PettingZoo's standard wrappers.

    ``illegal_reward`` (default: minus the worst loss legal play can bring,
    see :meth:`raw_env.worst_loss`) is what an agent gets for an illegal
    move, which ends the episode (PettingZoo's ``TerminateIllegalWrapper``:
    the other agent gets 0). It may not be milder than that worst loss.
    An action outside 0-33 fails an assertion (``AssertOutOfBoundsWrapper``);
    calls out of order raise (``OrderEnforcingWrapper``).

    ``observation_format``: ``"dict"`` (default, ``{"observation",
    "action_mask"}``) or ``"flat"`` (one ``Box`` of 383, the mask last, for
    SuperSuit's observation wrappers: see
    :class:`~sixtysix_env.env.wrappers.FlatObservation`).
    """
    illegal_reward = kwargs.pop("illegal_reward", None)
    observation_format = kwargs.pop("observation_format", "dict")
    if observation_format not in OBSERVATION_FORMATS:
        raise ValueError(
            f"unknown observation_format {observation_format!r}; allowed: "
            + ", ".join(map(repr, OBSERVATION_FORMATS))
        )
    base = raw_env(**kwargs)
    worst = base.worst_loss()
    illegal_reward = check_illegal_reward(illegal_reward, worst)
    e = _TerminateIllegalWrapper(base, illegal_reward=float(illegal_reward))
    e = _AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    if observation_format == "flat":
        from .wrappers import FlatObservation

        e = FlatObservation(e)
    return e


# PettingZoo's standard wrappers, each with one fix; subclasses rather than
# extra layers, since every layer costs each attribute lookup a hop.


class _TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """Checks the next action against the env's own mask, not the caller's copy.

    PettingZoo's wrapper keeps the very dict it hands out and checks the next
    action against its ``action_mask``: a caller who edited that array in
    place changed the check. This keeps a private copy of the mask.
    """

    def observe(self, agent: str):
        obs = super().observe(agent)
        if self._prev_obs is obs:
            self._prev_obs = {"action_mask": obs["action_mask"].copy()}
        return obs


class _AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """Refuses a non-integer action (a bool, a float) with the env's own error first.

    ``TerminateIllegalWrapper`` indexes the action mask with the action
    (``mask[True]`` is an array, so a bool failed with numpy's "truth value
    of an array is ambiguous") and the bounds check asserts: this applies the
    one rule of :mod:`sixtysix_env.util.checks`, as ``raw_env.step`` does.
    """

    def step(self, action) -> None:
        if action is not None and type(action) is not int and not is_int(action):
            raise self.env.unwrapped._table.legal_error(action, self.agent_selection)
        super().step(action)


class raw_env(AECEnv):
    """Two-player Sixty-Six, one hand or one match per episode.

    Options (keywords): ``rules`` (preset name, ``RuleConfig`` or dict of
    switches; default ``"altmisalti"``), ``mode`` (``"hand"`` or
    ``"match"``), ``hand_rewards`` (match mode: also reward each hand's game
    points, ``True`` or a weight), ``render_mode`` (``None``, ``"human"``,
    ``"ansi"``), ``render_agent`` (``None`` for a neutral picture showing
    both hands, or an agent name to draw only that player's view).
    """

    metadata = {
        "name": "sixtysix_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: str | RuleConfig | dict = "altmisalti",
        mode: str = "hand",
        hand_rewards: bool | float = False,
        render_mode: str | None = None,
        render_agent: str | None = None,
    ) -> None:
        super().__init__()
        config, mode, weight = check_options(rules, mode, hand_rewards, render_mode)
        if render_agent is not None:
            seat_of(render_agent)
        self.rules = config
        self.mode = mode
        self.hand_rewards = weight
        self.render_mode = render_mode
        self.render_agent = render_agent
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        action_space, observation_space = make_spaces()
        self.action_spaces = {a: action_space for a in AGENTS}
        self.observation_spaces = {a: observation_space for a in AGENTS}
        self._table = Table(config, mode, weight)
        self._rng: random.Random | None = None
        # Each seat's encoded (observation, mask) of this step, once asked for.
        self._obs: list[tuple | None] = [None, None]
        self._rewarded = False
        self._infos_set = False

    # -- spaces ---------------------------------------------------------------

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def worst_loss(self) -> float:
        """The most legal play can lose in one episode (3 in hand mode; see core.worst_loss)."""
        return worst_loss(self.mode, self.rules.match_target, self.hand_rewards)

    # -- the episode ------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new episode; ``seed`` fixes the deals, no seed continues the generator.

        ``options`` is accepted for the API and not used.
        """
        seed = as_seed(seed)
        if seed is not None or self._rng is None:
            self._rng = random.Random(seed)
        state = self._table.deal(self._rng)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = self._quiet_infos()
        self._rewarded = False
        self._infos_set = False
        self._obs = [None, None]
        self.agent_selection = AGENTS[state.current_player()]
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self._table
        state = table.state
        if type(action) is not int:
            if not is_int(action):  # the one rule: see sixtysix_env.util.checks
                raise table.legal_error(action, agent)
            action = int(action)
        if not (0 <= action < 34 and state.legal_mask() >> action & 1):
            raise table.legal_error(action, agent)

        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self.rewards = {a: 0.0 for a in AGENTS}
            self._rewarded = False
        if self._infos_set:
            self.infos = self._quiet_infos()
            self._infos_set = False
        result, over, (r0, r1) = table.apply(action)
        self._obs = [None, None]
        if result is not None:
            self.rewards = {AGENTS[0]: r0, AGENTS[1]: r1}
            self._rewarded = True
            self._accumulate_rewards()
            # Infos change only when a hand ends (and back on the next step),
            # so a quiet step builds none.
            self.infos = {a: table.info(result) for a in AGENTS}
            self._infos_set = True
        if over:
            self.terminations = {a: True for a in AGENTS}
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self.agent_selection = AGENTS[table.state.current_player()]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict:
        """``{"observation": float32[349], "action_mask": int8[34]}`` from the agent's view.

        Every call returns fresh copies of the step's encoding (kept once per
        step): a caller that edits its arrays changes neither the env's state nor
        any later observation (``TerminateIllegalWrapper`` reads the mask too).
        """
        seat = SEATS.get(agent)
        if seat is None:
            seat_of(agent)  # raises, naming the agents
        cached = self._obs[seat]
        if cached is None:
            cached = self._obs[seat] = encode_with_mask(player_view(self._table.state, seat))
        return {"observation": cached[0].copy(), "action_mask": cached[1].copy()}

    def _quiet_infos(self) -> dict[str, dict]:
        return {a: self._table.info(None) for a in AGENTS}

    @property
    def last_hand_result(self) -> HandResult | None:
        """The engine's ``HandResult`` of the last hand ended in this episode (or None).

        ``infos`` carry its plain figures (winner, game points, reason); this
        is the rich object, with ``explain()``.
        """
        return self._table.last_result

    # -- display ------------------------------------------------------------

    def render(self) -> str | None:
        """The table as text, from ``render_agent``'s seat, or a neutral picture when it is None.

        ``render_mode="ansi"`` returns the text, ``"human"`` prints it (and
        returns None); with no render mode it warns and returns None. There is
        no picture (``rgb_array``): this is a card game told in text.
        """
        return show(self.render_mode, self._text)

    def _text(self) -> str | None:
        if self._table.state is None:
            return None
        return self._table.render(None if self.render_agent is None else seat_of(self.render_agent))

    def close(self) -> None:
        pass

    @property
    def game_state(self):
        """The engine's full state of the current hand (hidden cards included: not for agents)."""
        return self._table.state

    @property
    def match(self):
        """The engine's :class:`~sixtysix_env.game.match.Match` in match mode, else None."""
        return self._table.match
