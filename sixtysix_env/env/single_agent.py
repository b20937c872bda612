"""A single-agent Gymnasium environment: the learner against a fixed opponent.

The learner plays one seat (drawn each episode from the seeded generator,
unless ``learner_seat`` fixes it); the opponent, any object with the agents'
``act(view, rng)`` interface or a name for :func:`sixtysix_env.agents.make_agent`,
plays the other seat inside :meth:`SixtySixEnv.step`, from its own player view
and a ``random.Random`` derived from the environment's seed. Observations,
action ids and rewards are those of :mod:`sixtysix_env.env.sixtysix_v0`, from the
learner's side; :meth:`SixtySixEnv.action_masks` serves sb3-contrib's
``MaskablePPO``.

Registered as ``SixtySix-v0``::

    import gymnasium, sixtysix_env
    env = gymnasium.make("SixtySix-v0", opponent="random", rules="santase")

and, N games stepped together on the batched engine (the same games; the
``[fast]`` extra, :mod:`sixtysix_env.env.vector`)::

    envs = gymnasium.make_vec("SixtySix-v0", num_envs=1024,
                              vectorization_mode="vector_entry_point", opponent="heuristic")

``reset(options={"deck": ..., "dealer": ..., "learner_seat": ...})`` plays a
given deal (in match mode ``{"match_seed": ..., "learner_seat": ...}`` a given
match), to compare programs on the same hands.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np

from ..agents import make_agent
from ..game.engine import HandResult, parse_deck
from ..game.rules import RuleConfig
from ..game.view import player_view
from ..policy.observation import encode_with_mask
from ..util.checks import ALLOWED, as_seed, is_int
from ..util.errors import IllegalActionError
from .core import (
    ILLEGAL_ACTION_MODES,  # noqa: F401  (kept importable from here)
    Table,
    check_learner_options,
    check_options,
    given_seat,
    make_spaces,
    show,
)

RENDER_VIEWS = ("table", "learner")


def check_render_view(render_view) -> None:
    if render_view not in RENDER_VIEWS:
        raise ValueError(
            f"unknown render_view {render_view!r}; allowed: " + ", ".join(map(repr, RENDER_VIEWS))
        )


def set_learner_options(env: Any, rules, mode, hand_rewards, learner_seat, illegal_action,
                        illegal_reward, render_mode, render_view, vector: bool = False) -> None:
    """The options ``SixtySix-v0`` and its vector entry point share, checked in one place and
    set on ``env``: ``rules`` (a ``RuleConfig``), ``mode``, ``hand_rewards`` (the weight),
    ``learner_seat``, ``illegal_action``, ``illegal_reward`` (given, or the worst loss),
    ``render_mode`` and ``render_view``. The vector environment (``vector``) draws nothing:
    its ``render_mode`` is None only."""
    if vector:
        config, mode, weight = check_options(rules, mode, hand_rewards, None)
        if render_mode is not None:
            raise ValueError(f"the vector environment does not render (render_mode="
                             f"{render_mode!r}); allowed: None")
    else:
        config, mode, weight = check_options(
            rules, mode, hand_rewards, render_mode, strict_render=False
        )
    check_render_view(render_view)
    env.illegal_reward = check_learner_options(
        learner_seat, illegal_action, illegal_reward, mode, config, weight
    )
    env.rules, env.mode, env.hand_rewards = config, mode, weight
    env.learner_seat, env.illegal_action = learner_seat, illegal_action
    env.render_mode, env.render_view = render_mode, render_view


class SixtySixEnv(gymnasium.Env):
    """Sixty-Six against an opponent, one hand (or match) per episode.

    Options: ``opponent`` (an agent object or name, default ``"random"``),
    ``rules``, ``mode``, ``hand_rewards``, ``render_mode`` as in
    ``sixtysix_v0``; ``learner_seat`` (``None``: drawn each episode, or 0/1);
    ``illegal_action``: ``"lose"`` (default: an illegal learner action ends
    the episode with ``illegal_reward``, by default minus the worst loss legal
    play can bring; Gymnasium's contract is that any action of the action
    space may be stepped, and its and SB3's ``check_env`` step unmasked
    samples) or ``"raise"`` (strict: it raises
    :class:`~sixtysix_env.util.errors.IllegalActionError` and changes nothing);
    ``render_view``: ``"table"`` (both hands) or ``"learner"`` (the learner's
    view only). A ``render_mode`` other than ``None``, ``"human"`` or
    ``"ansi"`` (SB3's ``make_vec_env`` passes ``"rgb_array"``) is kept with a
    warning, as Gymnasium does, and :meth:`render` then raises.

    Every ``info`` (``reset`` and ``step``) has the same keys:
    ``learner_seat``, ``illegal_action`` (the id of an
    illegal action that ended the episode, else -1) and those of
    :data:`~sixtysix_env.env.core.INFO_KEYS`, all numbers, and
    ``action_mask``: the observation's own mask array (int8, 1 = legal; all
    zeros once the episode is over), for training loops that read masks from
    ``info`` (AgileRL's, for one). The engine's ``HandResult`` of
    the last hand is :attr:`last_hand_result`.
    """

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        opponent: Any = "random",
        rules: str | RuleConfig | dict = "altmisalti",
        mode: str = "hand",
        hand_rewards: bool | float = False,
        learner_seat: int | None = None,
        illegal_action: str = "lose",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
        render_view: str = "table",
    ) -> None:
        set_learner_options(self, rules, mode, hand_rewards, learner_seat, illegal_action,
                            illegal_reward, render_mode, render_view)
        if isinstance(opponent, str):
            opponent = make_agent(opponent)
        elif not callable(getattr(opponent, "act", None)):
            raise ValueError(
                f"opponent must be an agent name or an object with act(view, rng), got {opponent!r}"
            )
        self.opponent = opponent
        self.action_space, self.observation_space = make_spaces()
        self._table = Table(self.rules, self.mode, self.hand_rewards)
        self._deal_rng: random.Random | None = None
        self._opp_rng: random.Random | None = None
        self.seat = 0
        self._over = True
        self._mask = np.zeros(34, np.int8)
        self._quiet_info: dict = {}

    # -- the episode ------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new episode; ``seed`` fixes deals, seats and the opponent's choices.

        Everything is checked before anything changes: a refused reset (a bad seed or
        given deal) raises and leaves the episode, the seats and the generators as they
        were. An opponent that fails on its first moves (an illegal action) fails the reset
        after the deal: then ``step`` refuses until a reset succeeds."""
        seed = as_seed(seed)
        given = self._given_deal(options)
        super().reset(seed=seed)
        if seed is not None or self._deal_rng is None:
            self._deal_rng = random.Random(int(self.np_random.integers(2**63)))
            self._opp_rng = random.Random(int(self.np_random.integers(2**63)))
        rng = self._deal_rng
        seat = rng.randrange(2)
        if self.learner_seat is not None:
            seat = self.learner_seat
        if given is not None:
            seat = given[-1]
        self._over = True  # until the opponent has moved: a reset it breaks leaves no game
        self.seat = seat
        self._table.deal(rng, given)
        _, over, _ = self._opponent_moves()
        self._over = over
        self._quiet_info = self._info(None)
        if self.render_mode == "human":
            self.render()
        obs = self._observe()
        return obs, self._with_mask(self._quiet_info.copy(), obs)

    def _given_deal(self, options: dict | None) -> tuple | None:
        """A given deal instead of a drawn one, to compare programs on the same hands:
        ``reset(options={"deck": 24 card ids or codes, "dealer": 0/1, "learner_seat": 0/1})``
        in hand mode, ``{"match_seed": int, "learner_seat": 0/1}`` in match mode (the match
        dealt as ``Match(rules, seed=random.Random(match_seed))``). Checked by the one
        checker of given deals (:mod:`sixtysix_env.env.core`): a deck of card ids or codes (a
        list, or one string), seats and seeds integers (``1.0`` is refused, as in ``step``)."""
        if not options:
            return None
        if not isinstance(options, dict):
            raise TypeError(f"reset options must be a dict, got {type(options).__name__}")
        keys = {"deck", "dealer", "learner_seat"} if self.mode == "hand" else {
            "match_seed", "learner_seat"}
        if set(options) != keys:
            raise ValueError(f"reset options in {self.mode} mode must give exactly "
                             f"{', '.join(sorted(keys))}, got {', '.join(sorted(map(str, options)))}")
        if self.mode == "hand":
            deck = parse_deck(options["deck"], self.rules)
            dealer = given_seat(options["dealer"], "dealer")
            return deck, dealer, given_seat(options["learner_seat"], "learner_seat")
        if not is_int(options["match_seed"]):
            raise ValueError(f"match_seed must be {ALLOWED}, got {options['match_seed']!r}")
        return int(options["match_seed"]), given_seat(options["learner_seat"], "learner_seat")

    def step(self, action):
        table = self._table
        if self._over:
            raise IllegalActionError(
                f"action {action!r} by the learner: the episode is over; call reset()", action, ()
            )
        if type(action) is not int:
            if not is_int(action):  # the one rule: see sixtysix_env.util.checks
                raise table.legal_error(action, "the learner")
            action = int(action)
        if not (0 <= action < 34 and table.state.legal_mask() >> action & 1):
            if self.illegal_action == "raise":
                raise table.legal_error(action, "the learner")
            self._over = True
            obs = self._observe()
            info = self._with_mask(self._quiet_info.copy(), obs)
            info["illegal_action"] = action
            return obs, self.illegal_reward, True, False, info
        seat = self.seat
        result, over, rewards = table.apply(action)
        reward = rewards[seat]
        if not over:
            opp_result, over, opp_reward = self._opponent_moves()
            reward += opp_reward
            if opp_result is not None:
                result = opp_result
        self._over = over
        if result is None:
            info = self._quiet_info.copy()
        else:
            info = self._info(result)
            if not over:  # a match goes on: the scores changed
                self._quiet_info = self._info(None)
        if self.render_mode == "human":
            self.render()
        obs = self._observe()
        return obs, reward, over, False, self._with_mask(info, obs)

    @staticmethod
    def _with_mask(info: dict, obs: dict) -> dict:
        info["action_mask"] = obs["action_mask"]
        return info

    def _info(self, result) -> dict[str, Any]:
        info = self._table.info(result)
        info["learner_seat"] = self.seat
        info["illegal_action"] = -1
        return info

    @property
    def state(self):
        """The engine state of the current position: full information, hidden cards included.

        For training tools that may see more than the learner (a privileged
        critic); the learner's observation never reads it.
        """
        return self._table.state

    @property
    def last_hand_result(self) -> HandResult | None:
        """The engine's ``HandResult`` of the last hand ended in this episode (or None)."""
        return self._table.last_result

    def _opponent_moves(self):
        """Let the opponent act until it is the learner's turn or the episode ends."""
        table = self._table
        opp = 1 - self.seat
        result, over, reward = None, False, 0.0
        while table.state.current_player() == opp:
            view = player_view(table.state, opp)
            a = self.opponent.act(view, self._opp_rng)
            ok = is_int(a) and 0 <= int(a) < 34 and view.legal_mask >> int(a) & 1
            if not ok:
                raise IllegalActionError(
                    f"the opponent {getattr(self.opponent, 'name', self.opponent)!r} chose "
                    f"an illegal action {a!r}; legal actions: {view.legal_actions()}",
                    a,
                    view.legal_actions(),
                )
            res, over, rewards = table.apply(int(a))
            reward += rewards[self.seat]
            if res is not None:
                result = res
            if over:
                break
        return result, over, reward

    def _observe(self) -> dict:
        obs, mask = encode_with_mask(player_view(self._table.state, self.seat))
        if self._over:
            mask = np.zeros_like(mask)
        self._mask = mask
        return {"observation": obs, "action_mask": mask}

    def action_masks(self) -> np.ndarray:
        """Legal learner actions as booleans (sb3-contrib's ``MaskablePPO`` interface)."""
        return self._mask.astype(bool)

    # -- display ------------------------------------------------------------

    def render(self) -> str | None:
        """The table as text, from the learner's seat, shown as ``render_mode`` says
        (:func:`~sixtysix_env.env.core.show`: ``"ansi"`` returns it, ``"human"`` prints it)."""
        return show(self.render_mode, self._text)

    def _text(self) -> str | None:
        if self._table.state is None:
            return None
        seat = self.seat if self.render_view == "learner" else None
        return f"(learner: seat {self.seat})\n" + self._table.render(seat)

    def close(self) -> None:
        pass
